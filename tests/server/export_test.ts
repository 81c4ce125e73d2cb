/**
 * This file: the CSV and DATEV files and the receipts ZIP (the same subject goes on in
 * export_records_test.ts).
 *
 * The accounting export (docs/export.md, issue: month end) against the store and the issuer: a
 * month of the lived-in demo (with a partial refund and a merchant's credit added) exported in
 * each format — every booked transaction once, VAT lines summing to the amounts, sums per
 * account equal to the issuer's captures, receipts in the ZIP byte-equal to the stored files,
 * the DATEV file by the rules of its format description — then the export records ("only
 * new", changed since), the refusals (403 for non-finance, 400 for a bad period, nothing
 * written), a download broken off, a finance team limited to one account, and the CLI.
 */
import assert from "node:assert/strict";
import { type TestApi } from "../helpers.ts";
import { bytesOf, exportCall, parseCsv, readZip, utf8 } from "./export_fixture.ts";
import { blobsOf } from "../../server/domain/documents.ts";
import type { Authorization } from "../../server/issuer/mod.ts";
import { DATEV_BOOKING_COLUMNS, DATEV_HEADER_FIELDS } from "../../server/export/datev_format.ts";
import { booked, csvTable, DAY, demo } from "./export_helpers.ts";

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
