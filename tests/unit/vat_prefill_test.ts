import assert from "node:assert/strict";
import {
  applySuggestion,
  countrySuggestion,
  type PrefillCode,
  type PrefillDraft,
} from "../../client/shared/vat_prefill.ts";

const CODES: PrefillCode[] = [
  { oid: "fr-20", percentage: 20, countryid: "FR" },
  { oid: "fr-10", percentage: 10, countryid: "FR" },
  { oid: "fr-5", percentage: 5.5, countryid: "FR" },
  { oid: "de-19", percentage: 19, countryid: "DE" },
  { oid: "de-7", percentage: 7, countryid: "DE" },
];
const empty = (countryId: string | null): PrefillDraft => ({
  countryId,
  lines: [{ oid: null, amount: "" }, { oid: null, amount: "" }, { oid: null, amount: "" }],
});
const amountOf = (c: PrefillCode, l: { amount?: number }) => (l.amount ?? c.percentage).toFixed(2);

Deno.test("[vat prefill] the merchant country's standard rate is its highest code", () => {
  assert.deepEqual(countrySuggestion("DE", CODES)?.lines, [{ percentage: 19 }]);
  assert.equal(countrySuggestion("IT", CODES), null, "no code, no invented rate");
  assert.equal(countrySuggestion(null, CODES), null);
  const r = applySuggestion(empty("FR"), countrySuggestion("FR", CODES), CODES, amountOf);
  assert.deepEqual(r.filled, [0]);
  assert.equal(r.draft.lines[0].oid, "fr-20");
  assert.equal(r.draft.lines[0].amount, "20.00");
});

Deno.test("[vat prefill] never over what the person chose; another country's suggestion is not used", () => {
  const chosen = empty("FR");
  chosen.lines[0] = { oid: "fr-10", amount: "1.00" };
  const r = applySuggestion(chosen, countrySuggestion("FR", CODES), CODES, amountOf);
  assert.equal(r.draft, chosen);
  assert.deepEqual(r.filled, []);
  const other = applySuggestion(empty("FR"), countrySuggestion("DE", CODES), CODES, amountOf);
  assert.deepEqual(other.filled, []);
  assert.equal(other.draft.lines[0].oid, null);
});

Deno.test("[vat prefill] a receipt's lines fill in order; an unsure or unknown rate stops there, marked", () => {
  const read = {
    source: "receipt" as const,
    countryId: "FR",
    lines: [{ percentage: 20, amount: 3.5 }, { percentage: 10, unsure: true }, {
      percentage: 5.5,
    }],
  };
  const r = applySuggestion(empty("FR"), read, CODES, amountOf);
  assert.deepEqual(r.filled, [0]);
  assert.deepEqual(r.unsure, [1]);
  assert.equal(r.draft.lines[0].amount, "3.50", "the read amount, not the computed one");
  assert.equal(r.draft.lines[2].oid, null, "nothing past the unsure line");
  const unknown = applySuggestion(
    empty("FR"),
    {
      source: "receipt",
      countryId: "FR",
      lines: [{ percentage: 7 }],
    },
    CODES,
    amountOf,
  );
  assert.deepEqual([unknown.filled, unknown.unsure], [[], [0]]);
  // No country on the draft: the suggestion's is taken.
  const noCountry = applySuggestion(empty(null), read, CODES, amountOf);
  assert.equal(noCountry.draft.countryId, "FR");
});
