/**
 * Money as the app checks it (spec §9). Amounts travel as numbers with at most two decimals;
 * sums are done in integer cents so 0.1 + 0.2 never shows as 0.30000000000000004. How an
 * amount is shown (Intl, the person's locale) is client/shared/intl.ts: this file stays small,
 * it is part of the PIN pad's first load.
 */

/** spec §9: amounts over 10000 get the large-amount style. */
export const LARGE_AMOUNT = 10000;

/** spec §9: the currencies whose symbols are known; any other shows its ISO code. */
export const CURRENCY_SYMBOLS: Readonly<Record<string, string>> = {
  EUR: "€",
  GBP: "£",
  USD: "$",
  JPY: "¥",
  RSD: "дин.",
  PLN: "zł",
  QAR: "QR",
  AED: "د.إ",
  RON: "lei",
};

/** spec §9: default currency EUR. */
export const DEFAULT_CURRENCY = "EUR";

export function isLargeAmount(amount: number): boolean {
  return amount > LARGE_AMOUNT;
}

export function currencySymbol(code: string | null | undefined): string {
  const c = (code || DEFAULT_CURRENCY).toUpperCase();
  return CURRENCY_SYMBOLS[c] ?? c;
}

export function toCents(amount: number): number {
  return Math.round(amount * 100);
}

export function fromCents(cents: number): number {
  return cents / 100;
}

/** Sums amounts exactly (in cents). */
export function sumAmounts(amounts: readonly number[]): number {
  return fromCents(amounts.reduce((s, a) => s + toCents(a), 0));
}

/** True for a finite, non-negative number with at most two decimals. */
export function isMoney(amount: number): boolean {
  return Number.isFinite(amount) && amount >= 0 &&
    Math.abs(amount * 100 - Math.round(amount * 100)) < 1e-6;
}

/** The server's split of an amount (spec §3 fullamount / fractionamount): '1234' and '50'. */
export function splitAmount(amount: number): { fullamount: string; fractionamount: string } {
  const [full, fraction] = Math.abs(amount).toFixed(2).split(".");
  return { fullamount: (amount < 0 ? "-" : "") + full, fractionamount: fraction };
}

/** Reads what a person typed ('12', '12.5', '12,50', '1 234,5'); NaN when it is not money. */
export function parseAmount(text: string): number {
  const s = text.trim().replace(/[\s\u202f\u00a0]/g, "").replace(",", ".");
  if (!/^\d+(\.\d{1,2})?$/.test(s)) return NaN;
  return Number(s);
}
