/**
 * What the VAT panel starts from (spec §2 VAT side panel, advanced form): a suggestion the person
 * confirms with one tap or corrects. Two sources feed it through the same door: the merchant
 * country's standard rate (the organisation's highest VAT code of that country), and what a
 * receipt says once the phone reads it (rates and amounts printed on it). Pure: no DOM, no store.
 *
 * Rules: a suggestion fills only what is empty and untouched — nothing the person chose or typed
 * is ever replaced; a line the source is unsure of is marked, left for the person; a rate the
 * organisation has no code for in that country is not invented.
 */
import type { ReadReceipt } from "./receipt_text.ts";

export interface PrefillCode {
  oid: string;
  percentage: number;
  countryid: string;
}

/** One VAT line a source suggests: its rate, and its amount when the source read one. */
export interface SuggestedLine {
  percentage: number;
  /** In the transaction's currency; absent: computed from the rate (amount × p / (100 + p)). */
  amount?: number;
  /** The source is not sure of this line: shown marked, not filled. */
  unsure?: boolean;
}

export interface VatSuggestion {
  source: "country" | "receipt";
  countryId: string | null;
  lines: SuggestedLine[];
}

/** The draft's fields a suggestion may fill (a subset of the panel's draft). */
export interface PrefillDraft {
  countryId: string | null;
  lines: { oid: string | null; amount: string }[];
}

export interface PrefillResult<D extends PrefillDraft> {
  draft: D;
  /** Lines (0-based) filled from the suggestion: shown as "suggested" until confirmed. */
  filled: number[];
  /** Lines the source was unsure of: marked for the person. */
  unsure: number[];
}

/** The merchant country's standard rate: its highest code (none when the country has none). */
export function countrySuggestion(
  countryId: string | null,
  codes: readonly PrefillCode[],
): VatSuggestion | null {
  if (!countryId) return null;
  const mine = codes.filter((c) => c.countryid === countryId);
  if (!mine.length) return null;
  const top = mine.reduce((a, b) => (b.percentage > a.percentage ? b : a));
  return { source: "country", countryId, lines: [{ percentage: top.percentage }] };
}

/**
 * What a receipt read on the phone (client/shared/receipt_text.ts) suggests: its rates, and its
 * amounts when the receipt is in the card's currency (the panel's amounts are), else the panel
 * computes them from the rates; every line unsure when the reading was.
 */
export function readSuggestion(
  read: ReadReceipt,
  tx: { originalCurrency: string; pricingCurrency: string },
): VatSuggestion | null {
  if (!read.vat.length) return null;
  const sameCurrency = (read.currency ?? tx.originalCurrency) === tx.pricingCurrency;
  const unsure = read.unsure.includes("vat");
  return {
    source: "receipt",
    countryId: null,
    lines: read.vat.map((v) => ({
      percentage: v.rate,
      ...(sameCurrency ? { amount: v.amount } : {}),
      ...(unsure ? { unsure: true } : {}),
    })),
  };
}

/** The code of `countryId` with this rate (to 0.01 %), if the organisation has one. */
export function codeFor(
  countryId: string,
  percentage: number,
  codes: readonly PrefillCode[],
): PrefillCode | undefined {
  return codes.find((c) =>
    c.countryid === countryId && Math.abs(c.percentage - percentage) < 0.005
  );
}

/**
 * Fills the empty lines of `draft` from `s`. `amountOf(code, line)` gives the line's amount text
 * (the panel's own computation for a rate; the read amount when the source has one). A draft
 * whose country differs from the suggestion's, or that has any line chosen already, is left as
 * it is: the person has started.
 */
export function applySuggestion<D extends PrefillDraft>(
  draft: D,
  s: VatSuggestion | null,
  codes: readonly PrefillCode[],
  amountOf: (code: PrefillCode, line: SuggestedLine) => string,
): PrefillResult<D> {
  const none = { draft, filled: [], unsure: [] };
  if (!s || !s.lines.length) return none;
  if (draft.lines.some((l) => l.oid || l.amount)) return none;
  const countryId = draft.countryId ?? s.countryId;
  if (!countryId || (s.countryId && countryId !== s.countryId)) return none;
  const lines = draft.lines.map((l) => ({ ...l }));
  const filled: number[] = [];
  const unsure: number[] = [];
  // Lines fill in order (the panel opens a line once the one before has a code): the first
  // line the source is unsure of, or has no code for, stops the filling there.
  for (const [i, line] of s.lines.slice(0, lines.length).entries()) {
    const code = line.unsure ? undefined : codeFor(countryId, line.percentage, codes);
    if (!code) {
      unsure.push(i);
      break;
    }
    lines[i] = { oid: code.oid, amount: amountOf(code, line) };
    filled.push(i);
  }
  if (!filled.length) return { draft, filled, unsure };
  return { draft: { ...draft, countryId, lines } as D, filled, unsure };
}
