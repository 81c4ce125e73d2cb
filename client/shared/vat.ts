import { inputNumber } from "./intl.ts";
import { minorDigits } from "./currency_units.ts";

// VAT on card transactions (spec §4 VAT flag and lines, §5 VAT panel, §9 VAT lines up to 3,
// VAT amount at most 6 characters). Pure: the VAT panel and the server's
// pwaupdatereviewedtransactions check run the same arithmetic, so they cannot disagree.

/** spec §9: at most three VAT lines on a transaction. */
export const MAX_VAT_LINES = 3;
/** spec §5/§9: a VAT amount input holds at most 6 characters. */
export const VAT_AMOUNT_MAX_CHARS = 6;

/** spec §4 VAT flag: null unknown, false no VAT, true has VAT; on the wire 'unknown'|'false'|'true'. */
export type VatFlag = boolean | null;
export const DOTAX_VALUES = ["unknown", "false", "true"] as const;
export type DoTax = typeof DOTAX_VALUES[number];

export function flagOfDoTax(d: DoTax): VatFlag {
  return d === "unknown" ? null : d === "true";
}
export function doTaxOfFlag(f: VatFlag): DoTax {
  return f === null ? "unknown" : f ? "true" : "false";
}

/**
 * spec §5: VAT amount = amount × p / (100 + p), rounded half away from zero to the minor
 * unit of the currency (2 decimals for EUR). Computed on integers (the percentage kept to
 * 1/1000 %), so 9.99 at 20 % is 1.67 on every machine, never 1.66 from a float that fell short.
 */
export function vatMinor(amountMinor: number, percentage: number): number {
  const p = Math.round(percentage * 1000);
  if (!Number.isFinite(amountMinor) || p <= 0) return 0;
  const sign = amountMinor < 0 ? -1 : 1;
  const a = BigInt(Math.abs(Math.round(amountMinor)));
  const num = a * BigInt(p);
  const den = 100_000n + BigInt(p);
  return sign * Number((2n * num + den) / (2n * den));
}

/** The same in major units of `currency` (what the panel shows and the API carries). */
export function vatAmount(amount: number, percentage: number, currency: string): number {
  const scale = 10 ** minorDigits(currency);
  return vatMinor(Math.round(amount * scale), percentage) / scale;
}

/**
 * The draft's text of a VAT amount: fixed decimals of the currency in the machine form
 * ('12.50', spec §9 ≤ 6 chars) that the save reads; the input shows it in the locale's marks
 * (client/i18n/display.ts inputAmount).
 */
export function vatAmountText(amount: number | null, currency: string): string {
  return amount === null ? "" : inputNumber(amount, minorDigits(currency), "en");
}

/** One VAT line as the panel and pwaupdatereviewedtransactions carry it. */
export interface VatLine {
  oid: string | null;
  amount: number | null;
}

/** The three line slots of a transaction (vat1…vat3) as a list. */
export function linesOf(t: {
  vat1Oid: string | null;
  vat2Oid: string | null;
  vat3Oid: string | null;
  vat1Amount: number | null;
  vat2Amount: number | null;
  vat3Amount: number | null;
}): VatLine[] {
  return [
    { oid: t.vat1Oid, amount: t.vat1Amount },
    { oid: t.vat2Oid, amount: t.vat2Amount },
    { oid: t.vat3Oid, amount: t.vat3Amount },
  ];
}

/** The settings of spec §3 lists payload that shape the VAT panel. */
export type TriState = "true" | "false" | "required";

/** Why a review may not be sent (translation keys), or [] when it may (spec §5 VAT panel). */
export function reviewProblems(input: {
  readOnly: boolean;
  accountingCodeEnabled: TriState;
  typeEnabled: TriState;
  accountingCodeOid: string | null;
  typeOid: string | null;
}): ("vat.readOnly" | "vat.accountingRequired" | "vat.typeRequired")[] {
  const out: ("vat.readOnly" | "vat.accountingRequired" | "vat.typeRequired")[] = [];
  if (input.readOnly) out.push("vat.readOnly");
  if (input.accountingCodeEnabled === "required" && !input.accountingCodeOid) {
    out.push("vat.accountingRequired");
  }
  if (input.typeEnabled === "required" && !input.typeOid) out.push("vat.typeRequired");
  return out;
}
