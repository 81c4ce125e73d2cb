/**
 * The accounting export (docs/export.md, issue: month end) against the store and the issuer: a
 * month of the lived-in demo (with a partial refund and a merchant's credit added) exported in
 * each format — every booked transaction once, VAT lines summing to the amounts, sums per
 * account equal to the issuer's captures, receipts in the ZIP byte-equal to the stored files,
 * the DATEV file by the rules of its format description — then the export records ("only
 * new", changed since), the refusals (403 for non-finance, 400 for a bad period, nothing
 * written), a download broken off, a finance team limited to one account, and the CLI.
 */
import assert from "node:assert/strict";
import { isoDay } from "../../client/shared/dates.ts";
import { DEMO, type TestApi, testApp } from "../helpers.ts";
import { assertError, assertOk, getE, login } from "./api.ts";
import { bytesOf, exportCall, parseCsv, readZip, utf8 } from "./export_fixture.ts";
import { purchase, refund } from "../../server/domain/purchases.ts";
import { bookedAt, type TransactionRecord } from "../../server/store/transactions.ts";
import { blobsOf } from "../../server/domain/documents.ts";
import { setDoTax } from "../../server/domain/vat.ts";
import type { Authorization } from "../../server/issuer/mod.ts";
import { CSV_COLUMNS } from "../../server/export/csv.ts";
import { DATEV_BOOKING_COLUMNS, DATEV_HEADER_FIELDS } from "../../server/export/datev_format.ts";
import { runExportCli } from "../../server/app/export_cli.ts";
import { bumpOrg } from "../../server/store/org_version.ts";

const DAY = 86_400_000;

const SCIM_TOKEN = "scim-test-token-0123456789abcdef";

async function demo() {
  const api = await testApp({ DEMO_HISTORY: "true", SCIM_TOKEN });
  const fin = await login(api, DEMO.approver);
  const emp = await login(api, DEMO.employee);
  // The demo's active card gets a purchase refunded in part and a merchant's credit.
  const reqs = await api.deps.store.requests.byUser(emp.oid);
  const card = reqs.find((r) => r.hasCard && r.cardStatusCode === "Active")!;
  const bought = await purchase(api.deps, {
    card: card.oid,
    amount: 40,
    merchantName: "Office Depot",
    merchantCountry: "FR",
    capture: true,
  } as never);
  await refund(api.deps, { transactionOid: bought.transactionOid!, amount: 15 } as never);
  await refund(api.deps, { card: card.oid, amount: 10, merchantName: "SNCF" } as never);
  const to = isoDay(Date.now());
  const from = isoDay(Date.now() - 60 * DAY);
  return { api, fin, emp, from, to };
}

/** The live transactions booked in [from, to], straight from the store. */
async function booked(api: TestApi, from: string, to: string): Promise<TransactionRecord[]> {
  const out: TransactionRecord[] = [];
  const end = Date.parse(to) + DAY;
  for await (const e of api.deps.store.kv.list<TransactionRecord>({ prefix: ["transaction"] })) {
    const at = bookedAt(e.value);
    if (at !== null && !e.value.movedToOid && at >= Date.parse(from) && at < end) {
      out.push(e.value);
    }
  }
  return out;
}

/** Every authorization the issuer holds (its change feed from the start). */
async function authorizations(api: TestApi): Promise<Authorization[]> {
  const out: Authorization[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await api.deps.issuer.authorizationChanges(0, { after, limit: 100 });
    out.push(...page.authorizations);
    if (!page.next) return out;
    after = page.next;
  }
}

const cents = (s: string, decimal = ".") => Math.round(Number(s.replace(decimal, ".")) * 100);

function csvTable(text: string, sep = ",") {
  assert.ok(text.startsWith("\uFEFF"), "a byte-order mark");
  const [head, ...rows] = parseCsv(text.slice(1), sep);
  assert.equal(head.length, CSV_COLUMNS.length);
  for (const r of rows) assert.equal(r.length, head.length, r.join("|"));
  const col = (r: string[], k: string) => r[CSV_COLUMNS.indexOf(k)];
  return { head, rows, col };
}

Deno.test("[export] CSV of a month of the demo: each booked transaction once, VAT lines summing to it, sums per account as the issuer captured", async () => {
  const { api, fin, from, to } = await demo();
  try {
    const r = await exportCall(api, fin.h, { from, to, formats: ["csv"] });
    assert.equal(r.status, 200, r.text);
    assert.match(r.headers.get("content-type")!, /^text\/csv; charset=utf-8/);
    assert.equal(r.headers.get("cache-control"), "no-store");
    assert.match(r.headers.get("content-disposition")!, /attachment; filename="qcard-.*\.csv"/);
    const { rows, col } = csvTable(r.text);

    const expected = await booked(api, from, to);
    assert.ok(expected.length >= 6, `the demo books transactions (${expected.length})`);
    const byTx = Map.groupBy(rows, (row) => col(row, "txOid"));
    assert.deepEqual([...byTx.keys()].sort(), expected.map((t) => t.oid).sort(), "each once");
    assert.ok(expected.some((t) => t.transactionType === "Refund"), "a merchant's credit");
    assert.ok(expected.some((t) => t.amountRefunded > 0), "a refunded purchase");

    for (const t of expected) {
      const lines = byTx.get(t.oid)!;
      const amount = cents(col(lines[0], "amount"));
      const sign = t.transactionType === "Refund" ? -1 : 1;
      assert.equal(amount, sign * t.amount, `${t.merchantname}: the transaction's amount`);
      // The VAT lines sum to the amount, each line's net and VAT to its gross.
      const gross = lines.reduce((s, l) => s + cents(col(l, "gross")), 0);
      assert.equal(gross, amount, `${t.merchantname}: lines sum to the amount`);
      for (const l of lines) {
        assert.equal(cents(col(l, "net")) + cents(col(l, "vat")), cents(col(l, "gross")));
      }
      // As many VAT lines as the VAT panel declared (plus a line without VAT for a rest).
      const declared = [t.vat.vat1Oid, t.vat.vat2Oid, t.vat.vat3Oid].filter(Boolean).length;
      assert.equal(lines.filter((l) => col(l, "line") !== "0").length, declared, t.merchantname);
      assert.equal(col(lines[0], "receiptCount"), String(t.nbReceipts));
      assert.equal(col(lines[0], "vatAccepted"), t.reviewed ? "yes" : "no");
    }

    // Per account and currency, what the issuer captured net of refunds, and its credits.
    const requests = new Map<string, string>();
    for (const t of expected) {
      requests.set(
        t.cardOid,
        (await api.deps.store.requests.get(t.userOid, t.cardOid)).value!.accountOid,
      );
    }
    const accounts = new Map<string, string>(
      (await api.deps.store.org.list<{ oid: string; value: string }>("account")).map((
        a,
      ) => [a.oid, a.value]),
    );
    const issuerSums = new Map<string, number>();
    for (const a of await authorizations(api)) {
      const at = a.kind === "refund" ? a.createdAt : a.capturedAt;
      if (!a.approved || at === null || at < Date.parse(from) || at >= Date.parse(to) + DAY) {
        continue;
      }
      const key = `${accounts.get(requests.get(a.cardMetadata.requestOid)!)} ${a.currency}`;
      const net = a.kind === "refund" ? -a.amountRefunded : a.amountCaptured - a.amountRefunded;
      issuerSums.set(key, (issuerSums.get(key) ?? 0) + net);
    }
    const exportSums = new Map<string, number>();
    for (const lines of byTx.values()) {
      const key = `${col(lines[0], "account")} ${col(lines[0], "currency")}`;
      exportSums.set(key, (exportSums.get(key) ?? 0) + cents(col(lines[0], "amount")));
    }
    assert.deepEqual(exportSums, issuerSums);
  } finally {
    await api.close();
  }
});

Deno.test("[export] French CSV: ';' and decimal comma, column names in French", async () => {
  const { api, fin, from, to } = await demo();
  try {
    await api.deps.store.kv.set(["user", fin.oid], { ...fin.user, locale: "fr" });
    const r = await exportCall(api, { ...fin.h, "accept-language": "fr" }, {
      from,
      to,
      formats: ["csv"],
    });
    assert.equal(r.status, 200, r.text);
    const { head, rows, col } = csvTable(r.text, ";");
    assert.equal(head[0], "Date comptable");
    assert.ok(rows.every((row) => /^-?\d+,\d{2}$/.test(col(row, "amount"))), "decimal comma");
  } finally {
    await api.close();
  }
});

Deno.test("[export] DATEV Buchungsstapel: header, 125 columns, every field by its rule; ZIP receipts byte-equal to the stored files", async () => {
  const { api, fin, from: _f, to } = await demo();
  // One fiscal year (a DATEV file holds one).
  const from = `${to.slice(0, 4)}-01-01`;
  try {
    const r = await exportCall(api, fin.h, { from, to, formats: ["datev"] });
    assert.equal(r.status, 200, r.text);
    assert.match(r.headers.get("content-disposition")!, /filename="EXTF_Buchungsstapel_/);
    const text = new TextDecoder("windows-1252").decode(r.bytes);
    assert.ok(!text.startsWith("\uFEFF"), "Windows-1252: no byte-order mark");
    assert.ok(text.endsWith("\r\n") && !/[^\r]\n/.test(text), "CRLF line ends");
    const lines = text.slice(0, -2).split("\r\n");
    // Line 1: the header, field by field as the format description says.
    const header = lines[0].split(";");
    assert.equal(header.length, 31);
    for (const f of DATEV_HEADER_FIELDS) {
      const v = header[f.pos - 1];
      const pattern = f.pattern === "^[]$" ? "^$" : f.pattern;
      assert.match(v, new RegExp(pattern), `header ${f.pos} ${f.name}: ${v}`);
      if (f.value !== undefined) assert.equal(v, f.quoted ? `"${f.value}"` : String(f.value));
    }
    assert.equal(header[14], from.replaceAll("-", ""), "Datum von");
    assert.equal(header[15], to.replaceAll("-", ""), "Datum bis");
    // Line 2: the headings, in order.
    assert.deepEqual(lines[1].split(";"), DATEV_BOOKING_COLUMNS.map((c) => c.name));
    // Bookings: 125 fields, each filled one by its column's rule.
    const bookings = parseCsv(lines.slice(2).join("\r\n") + "\r\n", ";");
    assert.ok(bookings.length >= 6);
    const raw = lines.slice(2).map((l) => splitRaw(l));
    for (const row of raw) {
      assert.equal(row.length, 125, row.join(";"));
      for (const c of DATEV_BOOKING_COLUMNS) {
        const v = row[c.pos - 1];
        if (v === "" || !c.pattern) continue;
        // BU-Schlüssel: the organisation's key as its accountant writes it (1 to 4 digits).
        const pattern = c.pos === 9 ? String.raw`^["]\d{1,4}["]$` : c.pattern;
        assert.match(v, new RegExp(pattern), `column ${c.pos} ${c.name}: ${v}`);
      }
      assert.match(row[0], /^\d{1,10},\d{2}$/, "Umsatz");
      assert.match(row[1], /^"[SH]"$/);
      assert.match(row[9], /^\d{4}$/, "Belegdatum TTMM");
    }
    // The same money as the CSV, signed by Soll/Haben (every demo card is in EUR).
    const csv = csvTable((await exportCall(api, fin.h, { from, to, formats: ["csv"] })).text);
    const csvSum = csv.rows.reduce((s, row) => s + cents(csv.col(row, "gross")), 0);
    const datevSum = bookings.reduce(
      (s, b) => s + (b[1] === "H" ? -1 : 1) * cents(b[0], ","),
      0,
    );
    assert.equal(datevSum, csvSum);
    assert.ok(bookings.some((b) => b[1] === "H"), "a credit is Haben");
    assert.ok(bookings.some((b) => b[6] === "6251"), "Konto: the request's GL account");

    // The ZIP: both exports and the receipts, each byte-equal to its stored file, and named
    // where the CSV and the DATEV Beleglink say.
    const z = await exportCall(api, fin.h, { from, to, formats: ["csv", "datev", "zip"] });
    assert.equal(z.status, 200, z.text);
    assert.equal(z.headers.get("content-type"), "application/zip");
    const files = readZip(z.bytes);
    const names = [...files.keys()];
    assert.ok(
      names.some((n) => /^qcard-.*\.csv$/.test(n)) && names.some((n) => n.startsWith("EXTF_")),
    );
    const zcsv = csvTable(utf8(files.get(names.find((n) => n.startsWith("qcard-"))!)!));
    const listed = new Set(
      zcsv.rows.flatMap((row) => zcsv.col(row, "receipts").split(" | ").filter(Boolean)),
    );
    const receipts = names.filter((n) => n.startsWith("receipts/"));
    assert.deepEqual(new Set(receipts), listed);
    let compared = 0;
    for (const t of await booked(api, from, to)) {
      const docs = (await api.deps.store.documents.byTransaction(t.userOid, t.authorizationId))
        .filter((d) => d.documentType === "receipt");
      const paths = receipts.filter((n) => n.includes(t.oid.slice(0, 8)));
      assert.equal(paths.length, docs.length, t.merchantname);
      for (const [i, d] of docs.entries()) {
        const stored = await bytesOf(blobsOf(api.deps, d).read(d.blob));
        assert.deepEqual(files.get(paths[i]), stored, paths[i]);
        compared++;
      }
    }
    assert.ok(compared >= 3, `receipts compared: ${compared}`);
    const beleglinks = new TextDecoder("windows-1252").decode(
      files.get(names.find((n) => n.startsWith("EXTF_"))!),
    )
      .split("\r\n").slice(2).map((l) => splitRaw(l)[19]).filter(Boolean).map((v) =>
        v.slice(1, -1)
      );
    assert.ok(
      beleglinks.length >= 3 && beleglinks.every((b) => files.has(b)),
      "Beleglink names a file of the ZIP",
    );
  } finally {
    await api.close();
  }
});

/** A DATEV line's fields as written (quotes kept): ';' outside quotes splits. */
function splitRaw(line: string): string[] {
  const out: string[] = [];
  let cur = "", q = false;
  for (const c of line) {
    if (c === '"') q = !q;
    if (c === ";" && !q) (out.push(cur), cur = "");
    else cur += c;
  }
  out.push(cur);
  return out;
}

Deno.test("[export] each export is recorded: 'only new' leaves out what left before, a change brings it back as changed; a download broken off marks nothing", async () => {
  const { api, fin, emp, from, to } = await demo();
  try {
    const first = await exportCall(api, fin.h, { from, to, formats: ["csv"] });
    const all = csvTable(first.text);
    const count = new Set(all.rows.map((row) => all.col(row, "txOid"))).size;
    assert.ok(all.rows.every((row) => all.col(row, "state") === "new"));
    const rec = await api.deps.store.exports.get(first.headers.get("x-export-id")!);
    assert.equal(rec?.state, "done");
    assert.equal(rec?.count, count);
    assert.equal(rec?.byName, "Adam Fischer");

    // Again, in French and with receipts flat: everything marked exported before (neither the
    // language nor the ZIP's layout is a change); "only new": nothing.
    const fr = await exportCall(api, { ...fin.h, "accept-language": "fr" }, {
      from,
      to,
      formats: ["csv", "zip"],
      layout: "flat",
    });
    const frCsv = utf8([...readZip(fr.bytes).entries()].find(([n]) => n.endsWith(".csv"))![1]);
    const frTable = csvTable(frCsv, ";");
    assert.ok(frTable.rows.every((row) => frTable.col(row, "state") === "déjà exportée"));
    const again = csvTable((await exportCall(api, fin.h, { from, to, formats: ["csv"] })).text);
    assert.ok(again.rows.every((row) => again.col(row, "state") === "exported before"));
    assert.ok(again.rows.every((row) => again.col(row, "exportedAt") !== ""));
    const none = csvTable(
      (await exportCall(api, fin.h, { from, to, formats: ["csv"], onlyNew: true })).text,
    );
    assert.equal(none.rows.length, 0);

    // A VAT answer changed on one: "only new" brings it, as changed.
    const t = (await booked(api, from, to)).find((x) =>
      x.userOid === emp.oid && !x.reviewed && x.collectVatFlag !== false &&
      x.transactionType === "Purchase"
    )!;
    await setDoTax(api.deps, emp.user, t.oid, "false");
    const changed = csvTable(
      (await exportCall(api, fin.h, { from, to, formats: ["csv"], onlyNew: true })).text,
    );
    assert.deepEqual([...new Set(changed.rows.map((row) => changed.col(row, "txOid")))], [t.oid]);
    assert.equal(changed.col(changed.rows[0], "state"), "changed since export");

    // Broken off after the first bytes: the record says so, nothing counts as exported.
    await setDoTax(api.deps, emp.user, t.oid, "unknown");
    // (A browser accepts gzip: the file still streams, it is not read whole to be compressed.)
    const res = await api.app.request("/bonita/scmapi/expense/pwaexport", {
      method: "POST",
      headers: { ...fin.h, "content-type": "application/json", "accept-encoding": "gzip, br" },
      body: JSON.stringify({ from, to, formats: ["csv"] }),
    });
    assert.equal(res.headers.get("content-encoding"), null);
    assert.equal(res.headers.get("cache-control"), "no-store");
    const reader = res.body!.getReader();
    await reader.read();
    assert.equal(
      (await api.deps.store.exports.get(res.headers.get("x-export-id")!))?.state,
      "running",
      "the first bytes left before the export finished",
    );
    await reader.cancel();
    // The cancel reaches the export through the response's stream: a moment later.
    const id = res.headers.get("x-export-id")!;
    let broken = await api.deps.store.exports.get(id);
    for (let i = 0; i < 100 && broken?.state === "running"; i++) {
      await new Promise((r) => setTimeout(r, 20));
      broken = await api.deps.store.exports.get(id);
    }
    assert.equal(broken?.state, "broken");
    const items = [];
    for await (const e of api.deps.store.kv.list({ prefix: ["export_item", broken!.id] })) {
      items.push(e);
    }
    assert.equal(items.length, 0, "its items are gone");
    const after = csvTable(
      (await exportCall(api, fin.h, { from, to, formats: ["csv"], onlyNew: true })).text,
    );
    assert.deepEqual([...new Set(after.rows.map((row) => after.col(row, "txOid")))], [t.oid]);

    // The screen's list: the newest first, broken ones said so.
    const list = await getE(api, fin.h, "pwaexports");
    assertOk(list);
    const exportsList = list.json.exports as { state: string; count: number }[];
    assert.ok(exportsList.length >= 5);
    assert.ok(exportsList.some((x) => x.state === "broken"));
  } finally {
    await api.close();
  }
});

Deno.test("[export] refusals: 403 for a non-finance user on every export path, 400 for a bad period; nothing written", async () => {
  const { api, emp, fin, from, to } = await demo();
  try {
    const manager = await login(api, DEMO.manager);
    const records = async () => {
      let n = 0;
      for await (const _ of api.deps.store.kv.list({ prefix: ["export"] })) n++;
      return n;
    };
    for (const who of [emp, manager]) {
      const r = await exportCall(api, who.h, { from, to, formats: ["csv"] });
      assert.equal(r.status, 403, r.text);
      assert.equal(JSON.parse(r.text).error, "not_finance");
      assertError(await getE(api, who.h, "pwaexports"), 403, "not_finance");
    }
    const noToken = await exportCall(api, {}, { from, to, formats: ["csv"] });
    assert.equal(noToken.status, 401);
    const bad = async (body: unknown, error: string, message: RegExp) => {
      const r = await exportCall(api, fin.h, body);
      assert.equal(r.status, 400, r.text);
      const j = JSON.parse(r.text);
      assert.equal(j.error, error);
      assert.match(j.message, message);
    };
    await bad(
      { from: to, to: from, formats: ["csv"] },
      "period_reversed",
      /ends .* before it starts/,
    );
    await bad(
      { from: "2025-01-01", to: "2026-01-02", formats: ["csv"] },
      "period_too_long",
      /at most 366 days/,
    );
    await bad(
      { from: "2025-12-01", to: "2026-01-31", formats: ["datev"] },
      "period_fiscal_years",
      /one fiscal year/,
    );
    await bad({ from: "2026-02-30", to: to, formats: ["csv"] }, "invalid_export", /YYYY-MM-DD/);
    await bad({ from, to, formats: [] }, "invalid_export", /formats/);
    await bad({ from, to, formats: ["xlsx"] }, "invalid_export", /formats/);
    await bad({ from, to, formats: ["csv"], account: "acc-nope" }, "unknown_account", /acc-nope/);
    const malformed = await api.app.request("/bonita/scmapi/expense/pwaexport", {
      method: "POST",
      headers: { ...fin.h, "content-type": "application/json" },
      body: "{",
    });
    assert.equal(malformed.status, 400);
    assert.equal(await records(), 0, "no export recorded");
  } finally {
    await api.close();
  }
});

Deno.test("[export] a finance team limited to one account exports that account only; out of the SCIM group, no role", async () => {
  const { api, fin, from, to } = await demo();
  try {
    const { kv } = api.deps.store;
    const team = (await kv.get<Record<string, unknown>>(["team", "team-finance"])).value!;
    await bumpOrg(
      kv.atomic().set(["team", "team-finance"], { ...team, finance: { accountOids: ["acc-gbp"] } }),
    ).commit();
    const mine = await exportCall(api, fin.h, { from, to, formats: ["csv"], account: "acc-gbp" });
    assert.equal(mine.status, 200, mine.text);
    const notMine = await exportCall(api, fin.h, {
      from,
      to,
      formats: ["csv"],
      account: "acc-eur",
    });
    assert.equal(notMine.status, 403);
    // An account that does not exist is as refused as another's: nothing learnt of the others.
    const unknown = await exportCall(api, fin.h, { from, to, formats: ["csv"], account: "acc-zz" });
    assert.equal(JSON.parse(unknown.text).error, "not_your_account");
    const all = csvTable((await exportCall(api, fin.h, { from, to, formats: ["csv"] })).text);
    assert.ok(
      all.rows.every((row) => all.col(row, "account") === "OPS-GBP"),
      "only the GBP account",
    );
    const list = await getE(api, fin.h, "pwaexports");
    assert.deepEqual((list.json.accounts as { oid: string }[]).map((a) => a.oid), ["acc-gbp"]);
    // Their own exports of "all (their) accounts" are listed too.
    assert.equal((list.json.exports as unknown[]).length, 2);

    // The identity provider takes them out of the Finance group (SCIM): no role at once.
    const res = await api.app.request("/scim/v2/Groups/team-finance", {
      method: "PATCH",
      headers: { authorization: `Bearer ${SCIM_TOKEN}`, "content-type": "application/scim+json" },
      body: JSON.stringify({
        schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
        Operations: [{ op: "remove", path: `members[value eq "${fin.oid}"]` }],
      }),
    });
    assert.equal(res.status, 200, await res.text());
    assert.equal((await exportCall(api, fin.h, { from, to, formats: ["csv"] })).status, 403);
    const lists = await getE(api, fin.h, "pwalists");
    assert.equal(lists.json.finance, false);
  } finally {
    await api.close();
  }
});

Deno.test("[export] deno task export-accounting: the same export on the command line; a bad period exits 2", async () => {
  const { api, from, to } = await demo();
  const dir = await Deno.makeTempDir();
  try {
    const out: string[] = [];
    const code = await runExportCli(
      ["--from", from, "--to", to, "--format", "csv,zip", "--flat", "--out", `${dir}/m.zip`],
      api.deps,
      (l) => out.push(l),
    );
    assert.equal(code, 0, out.join("\n"));
    const files = readZip(await Deno.readFile(`${dir}/m.zip`));
    assert.ok([...files.keys()].some((n) => /^receipts\/[^/]+\.pdf$/.test(n)), "flat receipts");
    const rec = (await api.deps.store.exports.recent())[0];
    assert.equal(rec.byName, "operator");
    assert.equal(rec.state, "done");
    const bad: string[] = [];
    assert.equal(
      await runExportCli(
        ["--from", to, "--to", from, "--format", "csv"],
        api.deps,
        (l) => bad.push(l),
      ),
      2,
    );
    assert.match(bad.join("\n"), /period_reversed/);
    assert.equal(await runExportCli([], api.deps, () => {}), 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await api.close();
  }
});

Deno.test("[export] a flipped purchase is the same transaction (changed, not new); receipts alone mark nothing; a finish cut short leaves the export before it counting", async () => {
  const { api, fin, emp, from, to } = await demo();
  try {
    const table = async (body: Record<string, unknown>) =>
      csvTable((await exportCall(api, fin.h, { from, to, formats: ["csv"], ...body })).text);
    const ids = (t: ReturnType<typeof csvTable>) => [
      ...new Set(t.rows.map((row) => t.col(row, "txOid"))),
    ];

    // Receipts alone: a ZIP of files, no booking: nothing counts as exported.
    const zipOnly = await exportCall(api, fin.h, { from, to, formats: ["zip"] });
    assert.equal(zipOnly.status, 200);
    const fresh = await table({ onlyNew: true });
    assert.ok(
      fresh.rows.length > 0 && fresh.rows.every((row) => fresh.col(row, "state") === "new"),
    );

    // Flipped after its export: the copy (a new oid on another expense) is the same purchase.
    const t = (await booked(api, from, to)).find((x) =>
      x.userOid === emp.oid && x.transactionType === "Purchase" && !x.reviewed
    )!;
    const r = await api.call("POST", "/scmapi/expense/pwaflip", {
      headers: emp.h,
      body: {
        transactionoids: [t.oid],
        purpose: "Client dinner, Lyon",
        ccoid: "cc-marketing",
        gloid: "gl-entertainment",
        projoid: "prj-brand",
        oid: t.expenseOid,
        archive: false,
      },
    });
    assertOk(r);
    const after = await table({ onlyNew: true });
    const copy = (await booked(api, from, to)).find((x) => x.originOid === t.oid)!;
    assert.ok(copy, "the flip's copy is booked");
    assert.deepEqual(ids(after), [copy.oid], "only the moved purchase, once");
    assert.equal(after.col(after.rows[0], "state"), "changed since export");
    assert.equal(after.col(after.rows[0], "gl"), "6257", "on its new expense's GL account");
    assert.ok(!ids(await table({})).includes(t.oid), "the original is not exported again");

    // A finish cut short: the pointer names an export that is not done; the one before counts.
    const last = (await api.deps.store.exports.lastOf([copy.authorizationId]))[0]!;
    const before = (await api.deps.store.exports.get(last.exportId))!;
    await api.deps.store.exports.start({ ...before, id: "cut-short", state: "running" });
    await api.deps.store.kv.set(["export_last", copy.authorizationId], {
      exportId: "cut-short",
      at: Date.now(),
      stamp: "00000000",
      prev: { exportId: last.exportId, at: last.at, stamp: last.stamp },
    });
    assert.deepEqual(ids(await table({ onlyNew: true })), [], "exported by the one before");
  } finally {
    await api.close();
  }
});
