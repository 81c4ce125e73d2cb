/**
 * This file: the review's refusals, required codes, a 4th line, French, strangers, concurrent
 * changes (the same subject goes on in vat_test.ts).
 *
 * VAT of card transactions through the API (spec §4 VAT flag, §5 VAT panel, §7
 * pwavatcodes, pwaaccountingcodes, pwareceipttypes, pwasetreceiptdotax,
 * pwaupdatereviewedtransactions, §9 VAT lines up to 3): the organisation's lists, the flag,
 * and the review with every refusal, the rounding table and read-only once reviewed.
 */
import assert from "node:assert/strict";
import { DEMO, type TestApi, withApp } from "../helpers.ts";
import { assertError, assertOk, login } from "./api.ts";
import type { Transaction } from "../../client/shared/contract/transactions.ts";
import type { ReviewLine } from "../../client/shared/contract/vat.ts";
import type { TransactionRecord } from "../../server/store/transactions.ts";
import type { OrgMeta } from "../../server/store/org.ts";
import { fromMinor } from "../../client/shared/currency_units.ts";
import { vatMinor } from "../../client/shared/vat.ts";
import { addCodes, dotax, record, reviewCall, tx, TYPE } from "./vat_helpers.ts";

/** Changes the organisation's settings (spec §3 lists payload: accountingCodeEnabled, typeEnabled). */
async function settings(api: TestApi, over: Partial<OrgMeta["settings"]>) {
  const meta = (await api.deps.store.org.meta())!;
  const next = { ...meta, settings: { ...meta.settings, ...over } };
  assert.ok((await api.deps.store.kv.atomic().set(["org", "meta"], next).commit()).ok);
}

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
