/**
 * This file: export records, refusals, account scope, the command line, flips (the same subject
 * goes on in export_test.ts).
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
import { DEMO } from "../helpers.ts";
import { assertError, assertOk, getE, login } from "./api.ts";
import { exportCall, readZip, utf8 } from "./export_fixture.ts";
import { setDoTax } from "../../server/domain/vat.ts";
import { runExportCli } from "../../server/app/export_cli.ts";
import { bumpOrg } from "../../server/store/org_version.ts";
import { booked, csvTable, demo, SCIM_TOKEN } from "./export_helpers.ts";

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
