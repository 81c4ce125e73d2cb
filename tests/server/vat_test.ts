/**
 * This file: the lists, the VAT flag, the rounding table, a review through /_issuer, lines after a
 * capture (the same subject goes on in vat_review_test.ts).
 *
 * VAT of card transactions through the API (spec §4 VAT flag, §5 VAT panel, §7
 * pwavatcodes, pwaaccountingcodes, pwareceipttypes, pwasetreceiptdotax,
 * pwaupdatereviewedtransactions, §9 VAT lines up to 3): the organisation's lists, the flag,
 * and the review with every refusal, the rounding table and read-only once reviewed.
 */
import assert from "node:assert/strict";
import { DEMO, withApp } from "../helpers.ts";
import { assertError, assertOk, login } from "./api.ts";
import { buy, defineSecure, detail, get, issuer, newCard, rows } from "./purchase_helpers.ts";
import type { Transaction } from "../../client/shared/contract/transactions.ts";
import type { ComboItem, VatCode } from "../../client/shared/contract/vat.ts";
import { addCodes, dotax, record, reviewCall, tx, TYPE } from "./vat_helpers.ts";

/** The table: amount, percentage, its VAT by hand (see tests/unit/vat_test.ts). */
const TABLE: [number, string, number][] = [
  [0.01, "vat-de-19", 0],
  [9.99, "vat-de-19", 1.6],
  [1234.56, "vat-de-19", 197.11],
  [0.01, "vat-fr-20", 0],
  [9.99, "vat-fr-20", 1.67],
  [1234.56, "vat-fr-20", 205.76],
  [0.01, "vat-fr-5.5", 0],
  [9.99, "vat-fr-5.5", 0.52],
  [1234.56, "vat-fr-5.5", 64.36],
  [0.01, "vat-ch-7.7", 0],
  [9.99, "vat-ch-7.7", 0.71],
  [1234.56, "vat-ch-7.7", 88.26],
  [0.01, "vat-ch-0", 0],
  [9.99, "vat-ch-0", 0],
  [1234.56, "vat-ch-0", 0],
];

const countryOf = (code: string) => code.slice(4, 6).toUpperCase();

Deno.test(
  "[vat] pwavatcodes, pwaaccountingcodes, pwareceipttypes: the organisation's lists; 401 without token",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    const all = await get(api, emp.h, "pwavatcodes");
    assertOk(all);
    const codes = all.json.vatcodes as VatCode[];
    assert.equal(codes.length, 15);
    assert.deepEqual(codes.find((c) => c.oid === "vat-fr-5.5"), {
      oid: "vat-fr-5.5",
      description: "FR reduced 5.5%",
      descriptions: {
        en: "FR reduced 5.5%",
        fr: "FR taux réduit 5,5\u00a0%",
        de: "FR ermäßigt 5,5\u00a0%",
        es: "FR tipo reducido 5,5\u00a0%",
      },
      percentage: 5.5,
      countryid: "FR",
    });
    const de = await get(api, emp.h, "pwavatcodes?countryid=DE");
    assertOk(de);
    assert.deepEqual((de.json.vatcodes as VatCode[]).map((c) => c.oid).sort(), [
      "vat-de-19",
      "vat-de-7",
    ]);
    const us = await get(api, emp.h, "pwavatcodes?countryid=US");
    assert.deepEqual(us.json.vatcodes, []);
    assertError(
      await get(api, emp.h, "pwavatcodes?countryid=TOOLONGCOUNTRY"),
      400,
      "invalid_query",
    );
    const acc = await get(api, emp.h, "pwaaccountingcodes");
    assertOk(acc);
    assert.deepEqual((acc.json.accountingcodes as ComboItem[])[0], {
      value: "ac-lodging",
      label: "Lodging",
      labels: { en: "Lodging", fr: "Hébergement", de: "Unterkunft", es: "Alojamiento" },
    });
    assert.equal((acc.json.accountingcodes as ComboItem[]).length, 5);
    const types = await get(api, emp.h, "pwareceipttypes");
    assertOk(types);
    assert.deepEqual(
      (types.json.receipttypes as ComboItem[]).map((t) => t.value).sort(),
      ["rt-hotel", "rt-invoice", "rt-receipt", "rt-ticket"],
    );
    for (
      const path of [
        "pwavatcodes",
        "pwaaccountingcodes",
        "pwareceipttypes",
        "pwasetreceiptdotax?oid=x&dotax=true",
      ]
    ) {
      assertError(await get(api, {}, path), 401, "unauthorized");
    }
    assertError(await reviewCall(api, {}, [{ oid: "x" }]), 401, "unauthorized");
  }),
);

Deno.test(
  "[vat] pwasetreceiptdotax: unknown, no VAT (clears the lines), has VAT; bad input 400",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    const t = await tx(api, emp.oid, {
      collectVatFlag: true,
      countryId: "FR",
      vat: {
        vat1Oid: "vat-fr-20",
        vat1Amount: 2.08,
        vat2Oid: null,
        vat2Amount: null,
        vat3Oid: null,
        vat3Amount: null,
      },
    });
    const yes = await dotax(api, emp.h, t.oid, "true");
    assertOk(yes);
    assert.equal((yes.json.transaction as Transaction).collectVatFlag, true);
    assert.equal((yes.json.transaction as Transaction).vat1Oid, "vat-fr-20", "unchanged");
    const no = await dotax(api, emp.h, t.oid, "false");
    assertOk(no);
    const n = no.json.transaction as Transaction;
    assert.equal(n.collectVatFlag, false);
    assert.equal(n.vat1Oid, null);
    assert.equal(n.vat1Amount, null);
    assert.equal(n.readOnlyVAT, false);
    assert.equal((await record(api, t)).vat.vat1Oid, null, "stored");
    const unknown = await dotax(api, emp.h, t.oid, "unknown");
    assertOk(unknown);
    assert.equal((unknown.json.transaction as Transaction).collectVatFlag, null);
    assert.equal((await detail(api, emp.h, t.oid)).collectVatFlag, null);
    assertOk(await dotax(api, emp.h, t.oid, "unknown")); // the same again: a success
    assertError(await dotax(api, emp.h, t.oid, "maybe"), 400, "invalid_query");
    assertError(await get(api, emp.h, "pwasetreceiptdotax?dotax=true"), 400, "invalid_query");
    assertError(await dotax(api, emp.h, "no-such-oid", "true"), 404, "not_found");
  }),
);

Deno.test(
  "[vat] pwasetreceiptdotax: another user's transaction 404, refused and moved 409 vat.refused",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    const mgr = await login(api, DEMO.manager);
    const t = await tx(api, emp.oid);
    assertError(await dotax(api, mgr.h, t.oid, "true"), 404, "not_found");
    assert.equal((await record(api, t)).collectVatFlag, null);
    for (const transactionStatus of ["Refused", "Moved"]) {
      const r = await tx(api, emp.oid, { transactionStatus });
      const res = await dotax(api, emp.h, r.oid, "true");
      assertError(res, 409, "refused", "Refused or moved transactions have no VAT");
      assert.equal(res.json.oid, r.oid);
    }
  }),
);

Deno.test(
  "[vat] the rounding table (19, 20, 5.5, 7.7, 0 % on 0.01, 9.99, 1234.56) through pwaupdatereviewedtransactions, all or nothing",
  withApp(async (api) => {
    await addCodes(api);
    const emp = await login(api, DEMO.employee);
    const txs = await Promise.all(
      TABLE.map(([amount]) => tx(api, emp.oid, { amount: Math.round(amount * 100) })),
    );
    const lines = TABLE.map(([, code, vat], i) => ({
      oid: txs[i].oid,
      archive: false,
      countryId: countryOf(code),
      vat1Oid: code,
      vat1Amount: vat,
      ...TYPE,
    }));
    // One cent off on the last line: refused, with the amount expected, and nothing written.
    const off = lines.map((l, i) => i === 11 ? { ...l, vat1Amount: 88.27 } : l);
    const bad = await reviewCall(api, emp.h, off);
    assertError(bad, 422, "amount_mismatch", "VAT line 1: the amount must be 88.26");
    assert.equal(bad.json.oid, txs[11].oid);
    for (const t of txs) assert.equal((await record(api, t)).reviewed, false);
    // 9.99 @ 20 % is 1.67 (166.5 cents, half away from zero), not 1.66.
    const low = lines.map((l, i) => i === 4 ? { ...l, vat1Amount: 1.66 } : l);
    assertError(
      await reviewCall(api, emp.h, low),
      422,
      "amount_mismatch",
      "VAT line 1: the amount must be 1.67",
    );
    const ok = await reviewCall(api, emp.h, lines);
    assertOk(ok);
    const out = ok.json.transactions as Transaction[];
    assert.equal(out.length, TABLE.length);
    out.forEach((t, i) => {
      const [amount, code, vat] = TABLE[i];
      assert.equal(t.oid, txs[i].oid);
      assert.equal(t.monetaryAmount, amount);
      assert.equal(t.vat1Oid, code);
      assert.equal(t.vat1Amount, vat, `${amount} @ ${code}`);
      assert.equal(t.countryId, countryOf(code));
      assert.equal(t.reviewed, true);
      assert.equal(t.readOnlyVAT, true);
      assert.equal(t.collectVatFlag, true);
    });
  }),
);

Deno.test(
  "[vat] a card purchase through /_issuer with a receipt is reviewed with two lines and stays read-only",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    await defineSecure(api, emp.h);
    const card = await newCard(api, emp.h);
    const p = await buy(api, card, { amount: "9.99" });
    const t = (await api.deps.store.transactions.get(emp.oid, p.transactionOid)).value!;
    const line = {
      oid: t.oid,
      countryId: "FR",
      vat1Oid: "vat-fr-20",
      vat1Amount: 1.67,
      vat2Oid: "vat-fr-5.5",
      vat2Amount: 0.52,
      typeOid: "rt-receipt",
      accountingCodeOid: "ac-meals",
    };
    // No receipt yet: reviewing would lift the missing-receipts block without one.
    assertError(await reviewCall(api, emp.h, [line]), 409, "receipt_missing");
    const { transactions, kv } = api.deps.store;
    assert.ok((await transactions.put(kv.atomic(), { ...t, nbReceipts: 1 }).commit()).ok);
    const r = await reviewCall(api, emp.h, [line]);
    assertOk(r);
    const [v] = r.json.transactions as Transaction[];
    assert.deepEqual(
      [v.vat1Oid, v.vat1Amount, v.vat2Oid, v.vat2Amount, v.vat3Oid, v.vat3Amount],
      ["vat-fr-20", 1.67, "vat-fr-5.5", 0.52, null, null],
    );
    assert.equal(v.typeOid, "rt-receipt");
    assert.equal(v.accountingCodeOid, "ac-meals");
    assert.equal(v.collectVatFlag, true);
    assert.equal(v.readOnlyVAT, true);
    const d = await detail(api, emp.h, t.oid);
    assert.equal(d.reviewed, true);
    assert.equal(d.vat2Amount, 0.52);
    assert.equal((await rows(api, emp.h))[0].needsAttention, false);
    // Read-only: another flag or another review 409; the same again is a success.
    assertError(await dotax(api, emp.h, t.oid, "false"), 409, "read_only");
    assertOk(await dotax(api, emp.h, t.oid, "true"));
    const again = await reviewCall(api, emp.h, [line]);
    assertOk(again);
    assert.deepEqual(again.json.transactions, r.json.transactions);
    const other = await reviewCall(api, emp.h, [{ ...line, accountingCodeOid: "ac-other" }]);
    assertError(
      other,
      409,
      "read_only",
      "This transaction is reviewed and can no longer be changed",
    );
    assert.equal(other.json.oid, t.oid);
    assertError(
      await reviewCall(api, emp.h, [{ ...line, vat2Oid: null, vat2Amount: null }]),
      409,
      "read_only",
    );
    assert.equal((await record(api, t)).accountingCodeOid, "ac-meals");
  }),
);

Deno.test(
  "[vat] the VAT lines follow a later capture for another amount and a refund",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    await defineSecure(api, emp.h);
    const card = await newCard(api, emp.h);
    // A hotel holds 100.00; the receipt is in; the stay is reviewed with two French lines.
    const a = await buy(api, card, { amount: "100", capture: false });
    const { transactions, kv } = api.deps.store;
    const cur = (await transactions.get(emp.oid, a.transactionOid)).value!;
    assert.ok((await transactions.put(kv.atomic(), { ...cur, nbReceipts: 1 }).commit()).ok);
    const r = await reviewCall(api, emp.h, [{
      oid: a.transactionOid,
      ...TYPE,
      countryId: "FR",
      vat1Oid: "vat-fr-20",
      vat1Amount: 16.67,
      vat2Oid: "vat-fr-10",
      vat2Amount: 9.09,
    }]);
    assertOk(r);
    const lines = (t: Transaction) => [t.monetaryAmount, t.vat1Amount, t.vat2Amount, t.vat3Amount];
    assert.deepEqual(lines(await detail(api, emp.h, a.transactionOid)), [100, 16.67, 9.09, null]);
    // Captured for 60.00: the lines are those of 60.00, codes kept, still reviewed.
    const c = await issuer(api, "capture", { transactionOid: a.transactionOid, amount: "60" });
    assert.equal(c.status, 200, c.text);
    let t = await detail(api, emp.h, a.transactionOid);
    assert.deepEqual(lines(t), [60, 10, 5.45, null]);
    assert.deepEqual([t.vat1Oid, t.vat2Oid, t.reviewed], ["vat-fr-20", "vat-fr-10", true]);
    // 15.00 refunded: 45.00 left.
    const f = await issuer(api, "refund", { transactionOid: a.transactionOid, amount: "15" });
    assert.equal(f.status, 200, f.text);
    t = await detail(api, emp.h, a.transactionOid);
    assert.deepEqual(lines(t), [45, 7.5, 4.09, null]);
    // The same review sent again now matches what the transaction holds (a replay, no 422).
    assertOk(
      await reviewCall(api, emp.h, [{
        oid: a.transactionOid,
        ...TYPE,
        countryId: "FR",
        vat1Oid: "vat-fr-20",
        vat1Amount: 7.5,
        vat2Oid: "vat-fr-10",
        vat2Amount: 4.09,
      }]),
    );
  }),
);
