import type { ReviewLine, VatCode } from "../../client/shared/contract/vat.ts";
import type { TranslationKey } from "../../client/shared/i18n/locales/en.ts";
import { fromMinor, minorDigits } from "../../client/shared/currency_units.ts";
import { declarationCounts, TX_STATUS } from "../../client/shared/transaction_rules.ts";
import { MAX_VAT_LINES, type TriState, vatMinor } from "../../client/shared/vat.ts";
import { noVatLines, type TransactionRecord } from "../store/transactions.ts";

// The pure checks of a VAT review (spec §3 Transaction VAT fields and VAT
// code, §4 VAT flag, §5 VAT panel, §7 pwavatcodes, pwaaccountingcodes, pwareceipttypes,
// pwasetreceiptdotax, pwaupdatereviewedtransactions, §9 VAT lines up to 3). The arithmetic is
// client/shared/vat.ts, the one the VAT panel runs, so the two sides cannot disagree by a cent.
// VAT amounts are kept in the record as the API carries them (major units of the pricing
// currency, exactly the cents vatMinor computed): toTransaction answers them as they are.

export type Lines = TransactionRecord["vat"];
type Params = Record<string, string | number>;

/** Why a transaction may not take a VAT change: a translation key, its status and parameters. */
export interface Problem {
  status: 409 | 422;
  key: TranslationKey;
  params?: Params;
}

/** What a review checks against: the organisation's settings and reference lists. */
export interface VatRefs {
  accountingCodeEnabled: TriState;
  typeEnabled: TriState;
  countries: ReadonlySet<string>;
  codes: ReadonlyMap<string, VatCode>;
  accountingCodes: ReadonlySet<string>;
  receiptTypes: ReadonlySet<string>;
}

/** What one review would write, every absent or empty field null. */
export interface Wanted {
  vat: Lines;
  countryId: string | null;
  typeOid: string | null;
  accountingCodeOid: string | null;
}

export const SLOTS = [1, 2, 3] as const;
export const oidKey = (i: 1 | 2 | 3) => `vat${i}Oid` as const;
const amountKey = (i: 1 | 2 | 3) => `vat${i}Amount` as const;
const text = (s: string | null | undefined) => (s ? s : null);
const num = (n: number | null | undefined) => (typeof n === "number" ? n : null);

/** 'vat.amountMismatch' → 'amount_mismatch' (the convention of request_checks.ts). */
export function codeOf(key: string): string {
  return key.replace(/^[a-z]+\./, "").replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** A review line of the API as what it asks to write. */
export function wantedOf(line: ReviewLine): Wanted {
  return {
    vat: {
      vat1Oid: text(line.vat1Oid),
      vat2Oid: text(line.vat2Oid),
      vat3Oid: text(line.vat3Oid),
      vat1Amount: num(line.vat1Amount),
      vat2Amount: num(line.vat2Amount),
      vat3Amount: num(line.vat3Amount),
    },
    countryId: text(line.countryId),
    typeOid: text(line.typeOid),
    accountingCodeOid: text(line.accountingCodeOid),
  };
}

/**
 * spec §9 VAT lines up to 3: the number of a VAT line past the third that a review line fills
 * (`vat4Oid`, `vat4Amount`…), or null. Such a line is refused, never silently dropped.
 */
export function extraVatLine(line: Record<string, unknown>): number | null {
  for (const [k, v] of Object.entries(line)) {
    const m = /^vat(\d+)(Oid|Amount)$/.exec(k);
    if (!m || Number(m[1]) <= MAX_VAT_LINES) continue;
    if (v !== null && v !== undefined && v !== "") return Number(m[1]);
  }
  return null;
}

/** spec §4: refused and moved transactions hide receipts and VAT. */
export function isRefused(t: Pick<TransactionRecord, "transactionStatus">): boolean {
  return t.transactionStatus === TX_STATUS.refused || t.transactionStatus === TX_STATUS.moved;
}

/** An amount of `currency` in (possibly fractional) minor units. */
const minorOf = (amount: number, currency: string) => amount * 10 ** minorDigits(currency);
/** Equal to the minor unit (a float like 1.67 × 100 = 166.99999999999997 is 167). */
const sameMinor = (amount: number, minor: number, currency: string) =>
  Math.abs(minorOf(amount, currency) - minor) < 1e-6;

/**
 * Whether a review asks exactly what a reviewed transaction holds (a replay: engineering.md §5).
 */
export function sameReview(t: TransactionRecord, w: Wanted): boolean {
  if (
    t.countryId !== w.countryId || t.typeOid !== w.typeOid ||
    t.accountingCodeOid !== w.accountingCodeOid
  ) return false;
  return SLOTS.every((i) => {
    const a = w.vat[amountKey(i)], b = t.vat[amountKey(i)];
    if (t.vat[oidKey(i)] !== w.vat[oidKey(i)]) return false;
    if (a === null || b === null) return a === b;
    const m = minorOf(b, t.pricingCurrency);
    return sameMinor(a, Math.round(m), t.pricingCurrency);
  });
}

/** A setting 'true' | 'false' | 'required' against a given value of its list. */
function optionProblem(
  setting: TriState,
  value: string | null,
  known: ReadonlySet<string>,
  keys: { required: TranslationKey; disabled: TranslationKey; unknown: TranslationKey },
): Problem | null {
  if (value === null) return setting === "required" ? { status: 422, key: keys.required } : null;
  if (setting === "false") return { status: 422, key: keys.disabled };
  if (!known.has(value)) return { status: 422, key: keys.unknown, params: { code: value } };
  return null;
}

/**
 * spec §5 VAT panel and §7 pwaupdatereviewedtransactions: what is wrong with reviewing `t`
 * with `w` (the first problem), or the VAT lines to write, amounts canonical to the cent.
 * Pure: ownership, and whether `t` is already reviewed, are the caller's.
 */
export function checkReview(
  t: TransactionRecord,
  w: Wanted,
  refs: VatRefs,
): { problem: Problem } | { vat: Lines } {
  const fail = (status: 409 | 422, key: TranslationKey, params?: Params) => ({
    problem: { status, key, params },
  });
  if (isRefused(t)) return fail(409, "vat.refused");
  // Reviewing lifts the missing-receipts block (spec §5): not without a receipt (or a valid
  // "no receipt" declaration standing in for it).
  if (t.transactionType === "Purchase" && t.nbReceipts < 1 && !declarationCounts(t)) {
    return fail(409, "vat.receiptMissing");
  }
  const given = SLOTS.filter((i) => w.vat[oidKey(i)] !== null);
  let gap = false;
  for (const i of SLOTS) {
    const code = w.vat[oidKey(i)], amount = w.vat[amountKey(i)];
    if (code === null && amount !== null) gap = true;
    if (code !== null && i > given.length) gap = true;
  }
  if (gap) return fail(422, "vat.lineGap");
  if (given.length && t.collectVatFlag === false) return fail(422, "vat.flagConflict");
  const country = w.countryId;
  if (given.length && country === null) return fail(422, "vat.countryRequired");
  if (country !== null && !refs.countries.has(country)) {
    return fail(422, "vat.unknownCountry", { country });
  }
  const cur = t.pricingCurrency;
  const vat: Lines = noVatLines();
  const seen = new Set<string>();
  let sum = 0;
  for (const i of given.slice(0, MAX_VAT_LINES)) {
    const oid = w.vat[oidKey(i)]!;
    const code = refs.codes.get(oid);
    if (!code || code.countryid !== country) {
      return fail(422, "vat.unknownCode", { code: oid, country: country! });
    }
    if (seen.has(oid)) return fail(422, "vat.duplicateCode", { code: oid });
    seen.add(oid);
    const expected = vatMinor(t.amount, code.percentage);
    const amount = w.vat[amountKey(i)];
    if (amount === null || !sameMinor(amount, expected, cur)) {
      return fail(422, "vat.amountMismatch", {
        line: i,
        expected: fromMinor(expected, cur).toFixed(minorDigits(cur)),
      });
    }
    sum += expected;
    vat[oidKey(i)] = oid;
    vat[amountKey(i)] = fromMinor(expected, cur);
  }
  if (Math.abs(sum) > Math.abs(t.amount)) return fail(422, "vat.sumTooHigh");
  const acc = optionProblem(refs.accountingCodeEnabled, w.accountingCodeOid, refs.accountingCodes, {
    required: "vat.accountingRequired",
    disabled: "vat.accountingDisabled",
    unknown: "vat.unknownAccountingCode",
  });
  if (acc) return { problem: acc };
  const type = optionProblem(refs.typeEnabled, w.typeOid, refs.receiptTypes, {
    required: "vat.typeRequired",
    disabled: "vat.typeDisabled",
    unknown: "vat.unknownType",
  });
  if (type) return { problem: type };
  return { vat };
}

/**
 * The VAT lines of `t` once its amount became `amount` (the record's minor units) after a
 * later capture, reversal or refund: each line keeps its code and its amount is computed again
 * as a review computes it, so the lines stay true to the transaction. A line whose code the
 * organisation no longer has is kept as it was.
 */
export function linesFor(
  t: Pick<TransactionRecord, "vat" | "pricingCurrency">,
  amount: number,
  codes: ReadonlyMap<string, Pick<VatCode, "percentage">>,
): Lines {
  const vat: Lines = { ...t.vat };
  for (const i of SLOTS) {
    const code = t.vat[oidKey(i)];
    const known = code === null ? undefined : codes.get(code);
    if (!known) continue;
    vat[amountKey(i)] = fromMinor(vatMinor(amount, known.percentage), t.pricingCurrency);
  }
  return vat;
}
