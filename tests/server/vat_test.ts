/**
 * VAT of card transactions through the API (spec §4 VAT flag, §5 VAT panel, §7
 * pwavatcodes, pwaaccountingcodes, pwareceipttypes, pwasetreceiptdotax,
 * pwaupdatereviewedtransactions, §9 VAT lines up to 3): the organisation's lists, the flag,
 * and the review with every refusal, the rounding table and read-only once reviewed.
 */
import assert from "node:assert/strict";
import { DEMO, type TestApi, withApp } from "../helpers.ts";
import { assertError, assertOk, type Headers, login } from "./api.ts";
import { buy, defineSecure, detail, get, issuer, newCard, post, rows } from "./purchase_helpers.ts";
import { transactionRecord } from "./transaction_records.ts";
import type { Transaction } from "../../client/shared/contract/transactions.ts";
import type { ComboItem, ReviewLine, VatCode } from "../../client/shared/contract/vat.ts";
import type { TransactionRecord } from "../../server/store/transactions.ts";
import type { OrgMeta } from "../../server/store/org.ts";
import { fromMinor } from "../../client/shared/currency_units.ts";
import { vatMinor } from "../../client/shared/vat.ts";

/** A transaction of `userOid` written straight into the repository (with a receipt). */
async function tx(api: TestApi, userOid: string, over: Partial<TransactionRecord> = {}) {
  const t = transactionRecord(userOid, { nbReceipts: 1, ...over });
  const { transactions, kv } = api.deps.store;
  assert.ok((await transactions.put(kv.atomic(), t).commit()).ok);
  return t;
}

async function record(api: TestApi, t: TransactionRecord) {
  return (await api.deps.store.transactions.get(t.userOid, t.oid)).value!;
}

/** VAT codes and countries added the way the importer stores them (server/org_sync/import.ts). */
async function addCodes(api: TestApi) {
  const op = api.deps.store.kv.atomic()
    .set(["country", "CH"], { id: "CH", name: "Switzerland", label: "Schweiz" })
    .set(["country", "ZZ"], { id: "ZZ", name: "Testland", label: "Testland" });
  const codes: VatCode[] = [
    { oid: "vat-ch-7.7", description: "CH standard 7.7%", percentage: 7.7, countryid: "CH" },
    { oid: "vat-ch-0", description: "CH exempt 0%", percentage: 0, countryid: "CH" },
    { oid: "vat-zz-100", description: "ZZ 100%", percentage: 100, countryid: "ZZ" },
    { oid: "vat-zz-90", description: "ZZ 90%", percentage: 90, countryid: "ZZ" },
    { oid: "vat-zz-80", description: "ZZ 80%", percentage: 80, countryid: "ZZ" },
  ];
  for (const c of codes) op.set(["vatcode", c.oid], c);
  assert.ok((await op.commit()).ok);
}

/** Changes the organisation's settings (spec §3 lists payload: accountingCodeEnabled, typeEnabled). */
async function settings(api: TestApi, over: Partial<OrgMeta["settings"]>) {
  const meta = (await api.deps.store.org.meta())!;
  const next = { ...meta, settings: { ...meta.settings, ...over } };
  assert.ok((await api.deps.store.kv.atomic().set(["org", "meta"], next).commit()).ok);
}

const reviewCall = (api: TestApi, h: Headers, transactions: unknown[]) =>
  post(api, h, "pwaupdatereviewedtransactions", { transactions });
const dotax = (api: TestApi, h: Headers, oid: string, v: string) =>
  get(api, h, `pwasetreceiptdotax?oid=${oid}&dotax=${v}&archive=0`);

/** The demo organisation requires a receipt type (typeEnabled 'required'). */
const TYPE = { typeOid: "rt-invoice" };

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

type Case = {
  name: string;
  over?: Partial<TransactionRecord>;
  line: Omit<ReviewLine, "oid">;
  status: number;
  error: string;
  message?: string;
};

const CASES: Case[] = [
  {
    name: "refused",
    over: { transactionStatus: "Refused" },
    line: TYPE,
    status: 409,
    error: "refused",
  },
  {
    name: "moved",
    over: { transactionStatus: "Moved" },
    line: TYPE,
    status: 409,
    error: "refused",
  },
  {
    name: "no receipt",
    over: { nbReceipts: 0 },
    line: TYPE,
    status: 409,
    error: "receipt_missing",
    message: "Attach a receipt before the transaction is reviewed",
  },
  {
    name: "second line without a first",
    line: { ...TYPE, countryId: "FR", vat2Oid: "vat-fr-20", vat2Amount: 2.08 },
    status: 422,
    error: "line_gap",
  },
  {
    name: "amount without a code",
    line: { ...TYPE, countryId: "FR", vat1Amount: 2.08 },
    status: 422,
    error: "line_gap",
  },
  {
    name: "third line after an empty second",
    line: {
      ...TYPE,
      countryId: "FR",
      vat1Oid: "vat-fr-20",
      vat1Amount: 2.08,
      vat3Oid: "vat-fr-10",
      vat3Amount: 1.14,
    },
    status: 422,
    error: "line_gap",
  },
  {
    name: "no country",
    line: { ...TYPE, vat1Oid: "vat-fr-20", vat1Amount: 2.08 },
    status: 422,
    error: "country_required",
    message: "Choose the country of the VAT",
  },
  {
    name: "unknown country",
    line: { ...TYPE, countryId: "XX", vat1Oid: "vat-fr-20", vat1Amount: 2.08 },
    status: 422,
    error: "unknown_country",
    message: "Unknown country XX",
  },
  {
    name: "a code of another country",
    line: { ...TYPE, countryId: "DE", vat1Oid: "vat-fr-20", vat1Amount: 2.08 },
    status: 422,
    error: "unknown_code",
    message: "VAT code vat-fr-20 is not a code of DE",
  },
  {
    name: "a code nobody has",
    line: { ...TYPE, countryId: "FR", vat1Oid: "vat-nope", vat1Amount: 2.08 },
    status: 422,
    error: "unknown_code",
  },
  {
    name: "a code twice",
    line: {
      ...TYPE,
      countryId: "FR",
      vat1Oid: "vat-fr-20",
      vat1Amount: 2.08,
      vat2Oid: "vat-fr-20",
      vat2Amount: 2.08,
    },
    status: 422,
    error: "duplicate_code",
    message: "VAT code vat-fr-20 is used on two lines",
  },
  {
    // 12.50 @ 20 % = 1250 / 6 = 208.33 → 2.08.
    name: "a wrong amount",
    line: { ...TYPE, countryId: "FR", vat1Oid: "vat-fr-20", vat1Amount: 2.09 },
    status: 422,
    error: "amount_mismatch",
    message: "VAT line 1: the amount must be 2.08",
  },
  {
    // 12.50 @ 10 % = 12500 / 110 = 113.6 → 1.14, on line 2.
    name: "a code without its amount",
    line: {
      ...TYPE,
      countryId: "FR",
      vat1Oid: "vat-fr-20",
      vat1Amount: 2.08,
      vat2Oid: "vat-fr-10",
    },
    status: 422,
    error: "amount_mismatch",
    message: "VAT line 2: the amount must be 1.14",
  },
  {
    // 12.50 @ 100 % = 6.25, @ 90 % = 112500 / 190 = 592.1 → 5.92, @ 80 % = 100000 / 180 = 555.6
    // → 5.56: 17.73 in all, above 12.50.
    name: "lines adding up to more than the amount",
    line: {
      ...TYPE,
      countryId: "ZZ",
      vat1Oid: "vat-zz-100",
      vat1Amount: 6.25,
      vat2Oid: "vat-zz-90",
      vat2Amount: 5.92,
      vat3Oid: "vat-zz-80",
      vat3Amount: 5.56,
    },
    status: 422,
    error: "sum_too_high",
    message: "The VAT lines add up to more than the amount",
  },
  {
    name: "lines on a transaction marked without VAT",
    over: { collectVatFlag: false },
    line: { ...TYPE, countryId: "FR", vat1Oid: "vat-fr-20", vat1Amount: 2.08 },
    status: 422,
    error: "flag_conflict",
  },
  {
    name: "an unknown accounting code",
    line: { ...TYPE, accountingCodeOid: "ac-nope" },
    status: 422,
    error: "unknown_accounting_code",
    message: "Unknown accounting code ac-nope",
  },
  {
    name: "no receipt type while required",
    line: {},
    status: 422,
    error: "type_required",
    message: "Choose a receipt type",
  },
  {
    name: "an unknown receipt type",
    line: { typeOid: "rt-nope" },
    status: 422,
    error: "unknown_type",
    message: "Unknown receipt type rt-nope",
  },
];

Deno.test(
  "[vat] every refusal of pwaupdatereviewedtransactions: status, error code, message and oid",
  withApp(async (api) => {
    await addCodes(api);
    const emp = await login(api, DEMO.employee);
    for (const c of CASES) {
      const t = await tx(api, emp.oid, c.over);
      const r = await reviewCall(api, emp.h, [{ oid: t.oid, ...c.line }]);
      assertError(r, c.status, c.error, c.message);
      assert.equal(r.json.oid, t.oid, c.name);
      assert.equal((await record(api, t)).reviewed, false, c.name);
    }
  }),
);

Deno.test(
  "[vat] accounting code and receipt type per the organisation's 'required' / 'true' / 'false'",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    const send = async (line: Omit<ReviewLine, "oid">) =>
      await reviewCall(api, emp.h, [{ oid: (await tx(api, emp.oid)).oid, ...line }]);
    await settings(api, { accountingCodeEnabled: "required", typeEnabled: "true" });
    assertError(await send({}), 422, "accounting_required", "Choose an accounting code");
    assertOk(await send({ accountingCodeOid: "ac-meals" }));
    await settings(api, { accountingCodeEnabled: "false", typeEnabled: "false" });
    assertError(
      await send({ accountingCodeOid: "ac-meals" }),
      422,
      "accounting_disabled",
      "Accounting codes are not used in this organisation",
    );
    assertError(
      await send({ typeOid: "rt-invoice" }),
      422,
      "type_disabled",
      "Receipt types are not used in this organisation",
    );
    const none = await send({});
    assertOk(none);
    const [t] = none.json.transactions as Transaction[];
    assert.equal(t.reviewed, true);
    assert.equal(t.collectVatFlag, null, "no lines: the flag stays as it was");
    await settings(api, { accountingCodeEnabled: "true", typeEnabled: "required" });
    assertError(await send({}), 422, "type_required");
    assertOk(await send({ typeOid: "rt-hotel" }));
  }),
);

Deno.test(
  "[vat] a 4th VAT line is refused with 422, never silently dropped",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    const t = await tx(api, emp.oid);
    const lines = { countryId: "FR", ...TYPE } as Record<string, unknown>;
    ["vat-fr-20", "vat-fr-10", "vat-fr-5.5", "vat-fr-2.1"].forEach((code, i) => {
      lines[`vat${i + 1}Oid`] = code;
      lines[`vat${i + 1}Amount`] = fromMinor(vatMinor(t.amount, Number(code.slice(7))), "EUR");
    });
    const r = await reviewCall(api, emp.h, [{ oid: t.oid, ...lines }]);
    assertError(r, 422, "too_many_lines", "A transaction takes at most 3 VAT lines");
    assert.equal(r.json.oid, t.oid);
    assert.equal((await record(api, t)).reviewed, false);
    // An empty 4th line says nothing: the three lines are reviewed.
    const three = { ...lines, vat4Oid: null, vat4Amount: null };
    const ok = await reviewCall(api, emp.h, [{ oid: t.oid, ...three }]);
    assertOk(ok);
    assert.equal((ok.json.transactions as Transaction[])[0].vat3Oid, "vat-fr-5.5");
  }),
);

Deno.test(
  "[vat] refusals in the user's language (French)",
  withApp(async (api) => {
    const dir = await login(api, DEMO.employee);
    const { users, kv } = api.deps.store;
    assert.ok((await users.put(kv.atomic(), { ...dir.user, locale: "fr" }).commit()).ok);
    const t = await tx(api, dir.oid);
    const r = await reviewCall(api, dir.h, [{
      oid: t.oid,
      ...TYPE,
      countryId: "FR",
      vat1Oid: "vat-fr-20",
      vat1Amount: 2,
    }]);
    assertError(r, 422, "amount_mismatch", "Ligne de TVA 1\u00a0: le montant doit être 2.08");
    assertError(
      await dotax(
        api,
        dir.h,
        (await tx(api, dir.oid, { transactionStatus: "Refused" })).oid,
        "true",
      ),
      409,
      "refused",
      "Les transactions refusées ou déplacées n’ont pas de TVA",
    );
  }),
);

Deno.test(
  "[vat] pwaupdatereviewedtransactions: another user's transaction 404 and nothing written; list limits",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    const mgr = await login(api, DEMO.manager);
    const mine = await tx(api, mgr.oid);
    const theirs = await tx(api, emp.oid);
    const r = await reviewCall(api, mgr.h, [
      { oid: mine.oid, ...TYPE },
      { oid: theirs.oid, ...TYPE },
    ]);
    assertError(r, 404, "not_found");
    assert.equal((await record(api, mine)).reviewed, false, "all or nothing");
    assert.equal((await record(api, theirs)).reviewed, false);
    // One bad transaction of a list: none is reviewed.
    const other = await tx(api, mgr.oid);
    assertError(
      await reviewCall(api, mgr.h, [{ oid: mine.oid, ...TYPE }, { oid: other.oid }]),
      422,
      "type_required",
    );
    assert.equal((await record(api, mine)).reviewed, false);
    assertError(await reviewCall(api, mgr.h, []), 400, "invalid_body");
    const many = Array.from({ length: 51 }, () => ({ oid: mine.oid, ...TYPE }));
    assertError(await reviewCall(api, mgr.h, many), 400, "invalid_body");
    assertError(
      await reviewCall(api, mgr.h, [{ oid: mine.oid, ...TYPE, vat1Amount: "2.08" }]),
      400,
      "invalid_body",
    );
    assertError(
      await reviewCall(api, mgr.h, [{ oid: mine.oid, ...TYPE }, { oid: mine.oid }]),
      400,
      "invalid_body",
    );
    // The same transaction twice with the same values counts once.
    const twice = await reviewCall(api, mgr.h, [{ oid: mine.oid, ...TYPE }, {
      oid: mine.oid,
      ...TYPE,
    }]);
    assertOk(twice);
    assert.equal((twice.json.transactions as Transaction[]).length, 1);
    // 50 at once are fine.
    const fifty = await Promise.all(Array.from({ length: 50 }, () => tx(api, emp.oid)));
    const all = await reviewCall(api, emp.h, fifty.map((t) => ({ oid: t.oid, ...TYPE })));
    assertOk(all);
    assert.ok((all.json.transactions as Transaction[]).every((t) => t.reviewed));
  }),
);

Deno.test(
  "[vat] a review meeting a concurrent change reads the transaction again and checks it again",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    const { transactions, kv } = api.deps.store;
    const a = await tx(api, emp.oid);
    const b = await tx(api, emp.oid);
    // Right before the first commit, something else writes `a` (a second receipt arrives).
    let n = 0;
    api.deps.faults = {
      beforeCommit: async (what) => {
        if (what !== "vat.review" || n++) return;
        const cur = (await transactions.get(emp.oid, a.oid)).value!;
        await transactions.put(kv.atomic(), { ...cur, nbReceipts: 2 }).commit();
      },
    };
    try {
      const r = await reviewCall(api, emp.h, [{ oid: a.oid, ...TYPE }, { oid: b.oid, ...TYPE }]);
      assertOk(r);
      const [ra] = r.json.transactions as Transaction[];
      assert.equal(ra.nbReceipts, 2, "the other write is kept");
      assert.equal(ra.reviewed, true);
      assert.equal(n, 3, "a: refused commit, then a retry; b: one commit");
      // Now the change makes the review wrong: the refused status is seen on the retry.
      const c = await tx(api, emp.oid);
      n = 0;
      api.deps.faults = {
        beforeCommit: async (what) => {
          if (what !== "vat.review" || n++) return;
          const cur = (await transactions.get(emp.oid, c.oid)).value!;
          await transactions.put(kv.atomic(), { ...cur, transactionStatus: "Refused" }).commit();
        },
      };
      assertError(await reviewCall(api, emp.h, [{ oid: c.oid, ...TYPE }]), 409, "refused");
      assert.equal((await record(api, c)).reviewed, false);
      assert.equal(n, 1);
    } finally {
      api.deps.faults = undefined;
    }
    // Concurrent identical reviews: all succeed (a repeat is a success), one write.
    const d = await tx(api, emp.oid);
    const all = await Promise.all(
      Array.from({ length: 5 }, () => reviewCall(api, emp.h, [{ oid: d.oid, ...TYPE }])),
    );
    all.forEach(assertOk);
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
