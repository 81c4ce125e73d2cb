/**
 * VAT arithmetic and review rules (spec §5 VAT panel: amount × p / (100 + p) to the
 * cent, §9 VAT lines up to 3): client/shared/vat.ts, which the panel and the server share, and
 * the server's pure review check (server/domain/vat_checks.ts).
 */
import assert from "node:assert/strict";
import {
  doTaxOfFlag,
  flagOfDoTax,
  reviewProblems,
  vatAmount,
  vatAmountText,
  vatMinor,
} from "../../client/shared/vat.ts";
import {
  checkReview,
  codeOf,
  linesFor,
  sameReview,
  type VatRefs,
  type Wanted,
  wantedOf,
} from "../../server/domain/vat_checks.ts";
import { transactionRecord } from "../server/transaction_records.ts";

/**
 * The table, worked out by hand: amount (cents) × p / (100 + p), half away from zero.
 */
export const TABLE: { percent: number; amount: number; vat: number }[] = [
  // 19 %: 1 × 19 / 119 = 0.16 → 0; 999 × 19 / 119 = 18981 / 119 = 159.50 (119 × 159 = 18921,
  // rest 60) → 160; 123456 × 19 / 119 = 2345664 / 119 = 19711.46 → 19711.
  { percent: 19, amount: 0.01, vat: 0 },
  { percent: 19, amount: 9.99, vat: 1.6 },
  { percent: 19, amount: 1234.56, vat: 197.11 },
  // 20 %: 1 / 6 = 0.17 → 0; 999 / 6 = 166.5 → 167 (a half, away from zero); 123456 / 6 = 20576.
  { percent: 20, amount: 0.01, vat: 0 },
  { percent: 20, amount: 9.99, vat: 1.67 },
  { percent: 20, amount: 1234.56, vat: 205.76 },
  // 5.5 %: 5.5 / 105.5 = 0.05 → 0; 5494.5 / 105.5 = 52.08 (105.5 × 52 = 5486) → 52;
  // 679008 / 105.5 = 6436.09 (105.5 × 6436 = 678998) → 6436.
  { percent: 5.5, amount: 0.01, vat: 0 },
  { percent: 5.5, amount: 9.99, vat: 0.52 },
  { percent: 5.5, amount: 1234.56, vat: 64.36 },
  // 7.7 %: 7.7 / 107.7 = 0.07 → 0; 7692.3 / 107.7 = 71.42 (107.7 × 71 = 7646.7) → 71;
  // 950611.2 / 107.7 = 8826.47 (107.7 × 8826 = 950560.2) → 8826.
  { percent: 7.7, amount: 0.01, vat: 0 },
  { percent: 7.7, amount: 9.99, vat: 0.71 },
  { percent: 7.7, amount: 1234.56, vat: 88.26 },
  // 0 %: nothing.
  { percent: 0, amount: 0.01, vat: 0 },
  { percent: 0, amount: 9.99, vat: 0 },
  { percent: 0, amount: 1234.56, vat: 0 },
];

Deno.test("[vat] the rounding table: 19, 20, 5.5, 7.7 and 0 % on 0.01, 9.99 and 1234.56", () => {
  for (const { percent, amount, vat } of TABLE) {
    assert.equal(vatAmount(amount, percent, "EUR"), vat, `${amount} @ ${percent} %`);
    assert.equal(
      vatMinor(Math.round(amount * 100), percent),
      Math.round(vat * 100),
      `${amount} @ ${percent} % in cents`,
    );
  }
});

Deno.test("[vat] halves round away from zero, also for negative amounts (refunds)", () => {
  // 3 cents @ 20 % = 0.5 → 1; −3 → −1; −999 @ 20 % = −166.5 → −167.
  assert.equal(vatMinor(3, 20), 1);
  assert.equal(vatMinor(-3, 20), -1);
  assert.equal(vatMinor(-999, 20), -167);
  assert.equal(vatAmount(-9.99, 20, "EUR"), -1.67);
  // −123456 × 19 / 119 = −19711.46 → −19711.
  assert.equal(vatAmount(-1234.56, 19, "EUR"), -197.11);
  assert.equal(vatMinor(0, 20), 0);
  assert.equal(vatMinor(999, -5), 0, "a negative percentage is no VAT");
});

Deno.test("[vat] currencies without cents (JPY) and with three decimals (KWD)", () => {
  // 999 JPY @ 20 % = 166.5 → 167 yen; 1000 JPY @ 10 % = 10000 / 110 = 90.91 → 91.
  assert.equal(vatAmount(999, 20, "JPY"), 167);
  assert.equal(vatAmount(1000, 10, "JPY"), 91);
  // 1 yen @ 20 % = 0.17 → 0.
  assert.equal(vatAmount(1, 20, "JPY"), 0);
  // 1.000 KWD = 1000 fils @ 20 % = 166.67 → 167 fils = 0.167.
  assert.equal(vatAmount(1, 20, "KWD"), 0.167);
  assert.equal(vatAmountText(167, "JPY"), "167");
  assert.equal(vatAmountText(1.6, "EUR"), "1.60");
  assert.equal(vatAmountText(null, "EUR"), "");
});

Deno.test("[vat] the VAT flag on the wire: unknown, false, true", () => {
  assert.equal(flagOfDoTax("unknown"), null);
  assert.equal(flagOfDoTax("false"), false);
  assert.equal(flagOfDoTax("true"), true);
  for (const f of [null, false, true]) assert.equal(flagOfDoTax(doTaxOfFlag(f)), f);
});

Deno.test("[vat] reviewProblems: read-only, required accounting code and receipt type", () => {
  const base = {
    readOnly: false,
    accountingCodeEnabled: "true" as const,
    typeEnabled: "true" as const,
    accountingCodeOid: null,
    typeOid: null,
  };
  assert.deepEqual(reviewProblems(base), []);
  assert.deepEqual(reviewProblems({ ...base, readOnly: true }), ["vat.readOnly"]);
  assert.deepEqual(
    reviewProblems({ ...base, accountingCodeEnabled: "required", typeEnabled: "required" }),
    ["vat.accountingRequired", "vat.typeRequired"],
  );
  assert.deepEqual(
    reviewProblems({
      ...base,
      accountingCodeEnabled: "required",
      typeEnabled: "required",
      accountingCodeOid: "ac-meals",
      typeOid: "rt-invoice",
    }),
    [],
  );
  assert.deepEqual(reviewProblems({ ...base, typeEnabled: "false" }), []);
});

const REFS: VatRefs = {
  accountingCodeEnabled: "true",
  typeEnabled: "true",
  countries: new Set(["FR", "CH", "ZZ"]),
  codes: new Map([
    ["fr-20", { oid: "fr-20", description: "20", percentage: 20, countryid: "FR" }],
    ["fr-5.5", { oid: "fr-5.5", description: "5.5", percentage: 5.5, countryid: "FR" }],
    ["ch-7.7", { oid: "ch-7.7", description: "7.7", percentage: 7.7, countryid: "CH" }],
    ["zz-100", { oid: "zz-100", description: "100", percentage: 100, countryid: "ZZ" }],
    ["zz-90", { oid: "zz-90", description: "90", percentage: 90, countryid: "ZZ" }],
    ["zz-80", { oid: "zz-80", description: "80", percentage: 80, countryid: "ZZ" }],
  ]),
  accountingCodes: new Set(["ac-meals"]),
  receiptTypes: new Set(["rt-invoice"]),
};

const want = (over: Partial<Parameters<typeof wantedOf>[0]> = {}): Wanted =>
  wantedOf({ oid: "x", ...over });

Deno.test("[vat] checkReview: lines of the country, amounts to the cent, first problem named", () => {
  const t = transactionRecord("u", { amount: 999, nbReceipts: 1 });
  const ok = checkReview(
    t,
    want({
      countryId: "FR",
      vat1Oid: "fr-20",
      vat1Amount: 1.67,
      vat2Oid: "fr-5.5",
      vat2Amount: 0.52,
    }),
    REFS,
  );
  assert.ok("vat" in ok);
  assert.deepEqual(ok.vat, {
    vat1Oid: "fr-20",
    vat1Amount: 1.67,
    vat2Oid: "fr-5.5",
    vat2Amount: 0.52,
    vat3Oid: null,
    vat3Amount: null,
  });
  const key = (w: Wanted, tt = t) => {
    const r = checkReview(tt, w, REFS);
    return "problem" in r ? r.problem.key : null;
  };
  assert.equal(
    key(want({ countryId: "FR", vat1Oid: "fr-20", vat1Amount: 1.66 })),
    "vat.amountMismatch",
  );
  assert.equal(key(want({ countryId: "FR", vat1Oid: "fr-20" })), "vat.amountMismatch");
  assert.equal(key(want({ countryId: "FR", vat2Oid: "fr-20", vat2Amount: 1.67 })), "vat.lineGap");
  assert.equal(key(want({ countryId: "FR", vat1Amount: 1.67 })), "vat.lineGap");
  assert.equal(key(want({ vat1Oid: "fr-20", vat1Amount: 1.67 })), "vat.countryRequired");
  assert.equal(key(want({ countryId: "XX" })), "vat.unknownCountry");
  assert.equal(
    key(want({ countryId: "CH", vat1Oid: "fr-20", vat1Amount: 1.67 })),
    "vat.unknownCode",
  );
  assert.equal(
    key(
      want({
        countryId: "FR",
        vat1Oid: "fr-20",
        vat1Amount: 1.67,
        vat2Oid: "fr-20",
        vat2Amount: 1.67,
      }),
    ),
    "vat.duplicateCode",
  );
  assert.equal(key(want({ accountingCodeOid: "ac-nope" })), "vat.unknownAccountingCode");
  assert.equal(key(want({ typeOid: "rt-nope" })), "vat.unknownType");
  assert.equal(key(want(), { ...t, nbReceipts: 0 }), "vat.receiptMissing");
  assert.equal(key(want(), { ...t, nbReceipts: 0, transactionType: "Refund" }), null);
  assert.equal(key(want(), { ...t, transactionStatus: "Refused" }), "vat.refused");
  assert.equal(
    key(want({ countryId: "FR", vat1Oid: "fr-20", vat1Amount: 1.67 }), {
      ...t,
      collectVatFlag: false,
    }),
    "vat.flagConflict",
  );
  // 7.7 % in Switzerland: 9.99 → 0.71; a negative amount (refund) → −0.71.
  assert.equal(key(want({ countryId: "CH", vat1Oid: "ch-7.7", vat1Amount: 0.71 })), null);
  assert.equal(
    key(want({ countryId: "CH", vat1Oid: "ch-7.7", vat1Amount: -0.71 }), { ...t, amount: -999 }),
    null,
  );
  // 9.99 @ 100 % = 999 / 2 = 499.5 → 5.00; @ 90 % = 89910 / 190 = 473.2 → 4.73; @ 80 % =
  // 79920 / 180 = 444 → 4.44: 14.17 in all, above 9.99 (the first two alone, 9.73, are not).
  assert.equal(
    key(want({
      countryId: "ZZ",
      vat1Oid: "zz-100",
      vat1Amount: 5,
      vat2Oid: "zz-90",
      vat2Amount: 4.73,
      vat3Oid: "zz-80",
      vat3Amount: 4.44,
    })),
    "vat.sumTooHigh",
  );
  assert.equal(
    key(
      want({
        countryId: "ZZ",
        vat1Oid: "zz-100",
        vat1Amount: 5,
        vat2Oid: "zz-90",
        vat2Amount: 4.73,
      }),
    ),
    null,
  );
  const mismatch = checkReview(
    t,
    want({ countryId: "FR", vat1Oid: "fr-5.5", vat1Amount: 1 }),
    REFS,
  );
  assert.ok("problem" in mismatch);
  assert.deepEqual(mismatch.problem, {
    status: 422,
    key: "vat.amountMismatch",
    params: { line: 1, expected: "0.52" },
  });
  assert.equal(codeOf("vat.amountMismatch"), "amount_mismatch");
  assert.equal(codeOf("vat.readOnly"), "read_only");
});

Deno.test("[vat] checkReview: accounting code and receipt type per 'true' | 'false' | 'required'", () => {
  const t = transactionRecord("u", { nbReceipts: 1 });
  const key = (refs: Partial<VatRefs>, w: Wanted) => {
    const r = checkReview(t, w, { ...REFS, ...refs });
    return "problem" in r ? r.problem.key : null;
  };
  assert.equal(key({ accountingCodeEnabled: "required" }, want()), "vat.accountingRequired");
  assert.equal(
    key({ accountingCodeEnabled: "false" }, want({ accountingCodeOid: "ac-meals" })),
    "vat.accountingDisabled",
  );
  assert.equal(key({ accountingCodeEnabled: "false" }, want()), null);
  assert.equal(key({ typeEnabled: "required" }, want()), "vat.typeRequired");
  assert.equal(key({ typeEnabled: "false" }, want({ typeOid: "rt-invoice" })), "vat.typeDisabled");
  assert.equal(
    key({ typeEnabled: "required", accountingCodeEnabled: "required" }, {
      ...want({ typeOid: "rt-invoice", accountingCodeOid: "ac-meals" }),
    }),
    null,
  );
});

Deno.test("[vat] sameReview: a reviewed transaction compared to the review sent again", () => {
  const t = transactionRecord("u", {
    amount: 999,
    reviewed: true,
    countryId: "FR",
    typeOid: "rt-invoice",
    vat: {
      vat1Oid: "fr-20",
      vat1Amount: 1.67,
      vat2Oid: null,
      vat2Amount: null,
      vat3Oid: null,
      vat3Amount: null,
    },
  });
  const w = want({ countryId: "FR", typeOid: "rt-invoice", vat1Oid: "fr-20", vat1Amount: 1.67 });
  assert.equal(sameReview(t, w), true);
  assert.equal(sameReview(t, { ...w, typeOid: null }), false);
  assert.equal(sameReview(t, { ...w, vat: { ...w.vat, vat1Amount: 1.66 } }), false);
  assert.equal(sameReview(t, { ...w, vat: { ...w.vat, vat1Amount: 1.670000000001 } }), true);
  assert.equal(sameReview(t, want({ countryId: "FR", typeOid: "rt-invoice" })), false);
});

Deno.test("[vat] linesFor: each line computed again for a new amount; a code no longer known kept", () => {
  const t = {
    pricingCurrency: "EUR",
    vat: {
      vat1Oid: "a20",
      vat2Oid: "gone",
      vat3Oid: null,
      vat1Amount: 20,
      vat2Amount: 1.23,
      vat3Amount: null,
    },
  };
  const codes = new Map([["a20", { percentage: 20 }]]);
  // Amounts of the record are minor units (6000 = 60.00 €); the lines, as the API carries them.
  assert.deepEqual(linesFor(t, 6000, codes), { ...t.vat, vat1Amount: 10 });
  assert.deepEqual(linesFor(t, -1200, codes).vat1Amount, -2);
  assert.deepEqual(linesFor(t, 999, codes).vat1Amount, 1.67);
  assert.deepEqual(linesFor(t, 0, codes).vat1Amount, 0);
});
