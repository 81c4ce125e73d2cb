/**
 * How the Transactions tab arranges card transactions (spec §2 Transactions, §9 groups): groups
 * by age in the zone the times are shown in, the search, the amounts shown. Pure: tested in
 * tests/unit.
 */
import type { TransactionRow } from "../shared/contract/transactions.ts";
import { minorDigits } from "../shared/currency_units.ts";
import { dayNumber, formatMoney } from "../shared/intl.ts";
import { TX_STATUS } from "../shared/transaction_rules.ts";

/** spec §2: the tab's groups, in the order shown. */
export type TxGroup = "today" | "yesterday" | "lastWeek" | "older";
export const TX_GROUPS: readonly TxGroup[] = ["today", "yesterday", "lastWeek", "older"];

/** spec §9 'last week (older than 7 days)': past 7 days the group is Older. */
export const LAST_WEEK_DAYS = 7;

/** Whole calendar days in `timeZone` between two instants (0: same day there). */
export function daysBetween(earlier: number, later: number, timeZone = "UTC"): number {
  return dayNumber(later, timeZone) - dayNumber(earlier, timeZone);
}

/**
 * spec §2/§9 groups, by calendar day in `timeZone` (the zone the times are shown in, so a
 * purchase at 00:30 local time is Today): the same day is Today, the day before Yesterday,
 * 2 to 7 days back Last week, and older than 7 days Older. A date ahead of `now` (a clock a
 * little behind the issuer's) counts as today; an unreadable one as older.
 */
export function txGroup(createdIso: string, now: number, timeZone = "UTC"): TxGroup {
  const at = Date.parse(createdIso);
  if (Number.isNaN(at)) return "older";
  const days = daysBetween(at, now, timeZone);
  if (days <= 0) return "today";
  if (days === 1) return "yesterday";
  if (days <= LAST_WEEK_DAYS) return "lastWeek";
  return "older";
}

/** Lower case without accents, so 'cafe' finds 'Café'. */
export function fold(s: string): string {
  return s.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
}

/** An amount as a person may type it: '12.5', '12,50', '1 234,5' → '12.5', '1234.5'. */
function amountQuery(q: string): string | null {
  const s = q.replace(/[\s\u202f\u00a0€$£¥]/g, "").replace(",", ".");
  return /^\d+(\.\d*)?$|^\.\d+$/.test(s) ? s : null;
}

/** Amount texts a search is matched against: '12.5' and '12.50' (the currency's digits). */
function amountTexts(amount: number, currency: string): string[] {
  const a = Math.abs(amount);
  return [String(a), a.toFixed(minorDigits(currency))];
}

type Searchable = Pick<
  TransactionRow,
  | "merchantname"
  | "originalPurpose"
  | "monetaryAmount"
  | "pricingCurrency"
  | "displayMonetaryAmount"
  | "originalCurrency"
>;

/**
 * How well a transaction answers a search: 2 when its own fields (the merchant, the amount
 * in either currency) contain what was typed, 1 when only its card's purpose does, 0 when
 * nothing does; case and accents do not matter. An empty search: 2 for every one.
 */
export function searchScore(r: Searchable, query: string): 0 | 1 | 2 {
  const q = fold(query.trim());
  if (!q) return 2;
  if (fold(r.merchantname).includes(q)) return 2;
  const n = amountQuery(q);
  if (
    n !== null && [
      ...amountTexts(r.monetaryAmount, r.pricingCurrency),
      ...amountTexts(r.displayMonetaryAmount, r.originalCurrency),
    ].some((text) => text.includes(n))
  ) return 2;
  return fold(r.originalPurpose).includes(q) ? 1 : 0;
}

/**
 * spec §2 search box: the merchant, the purpose or the amount (either currency) contains
 * what was typed; case and accents do not matter. An empty search matches everything.
 */
export function matchesSearch(r: Searchable, query: string): boolean {
  return searchScore(r, query) > 0;
}

/** spec §2: Moved transactions are hidden. */
export const isShown = (r: Pick<TransactionRow, "transactionStatus">) =>
  r.transactionStatus !== TX_STATUS.moved;

export interface TxSection<R> {
  group: TxGroup;
  rows: R[];
}

/**
 * The tab's body: shown rows that match the search, newest first, in their groups (empty
 * groups left out). When some rows match by their own fields (merchant, amount), only those
 * are shown: "hotel" finds the hotel, not every purchase of a card whose purpose names a
 * hotel; the purpose is searched when nothing else matches. One pass over the rows, one
 * sort: 5,000 rows stay well under a frame. Days are counted in `timeZone`.
 */
export function groupTransactions<R extends TransactionRow>(
  rows: readonly R[],
  query: string,
  now: number,
  timeZone = "UTC",
): TxSection<R>[] {
  const buckets: Record<TxGroup, { at: number; row: R }[]> = {
    today: [],
    yesterday: [],
    lastWeek: [],
    older: [],
  };
  // Purpose-only matches wait aside, used only when no row matches by its own fields.
  const byPurpose: R[] = [];
  const put = (row: R) =>
    buckets[txGroup(row.transactionCreateDate, now, timeZone)].push({
      at: Date.parse(row.transactionCreateDate) || 0,
      row,
    });
  let own = 0;
  for (const row of rows) {
    if (!isShown(row)) continue;
    const score = searchScore(row, query);
    if (score === 2) {
      own++;
      put(row);
    } else if (score === 1) byPurpose.push(row);
  }
  if (!own) byPurpose.forEach(put);
  return TX_GROUPS.filter((g) => buckets[g].length).map((group) => ({
    group,
    rows: buckets[group].sort((a, b) => b.at - a.at).map((x) => x.row),
  }));
}

/** The amount shown, and the merchant's amount beside it when it differs (spec §2). */
export function amountDisplay(
  r: Pick<
    TransactionRow,
    "monetaryAmount" | "pricingCurrency" | "displayMonetaryAmount" | "originalCurrency"
  >,
  locale = "en",
): { amount: string; original: string | null } {
  const amount = formatMoney(r.monetaryAmount, r.pricingCurrency, locale);
  const differs = r.originalCurrency !== r.pricingCurrency ||
    r.displayMonetaryAmount !== r.monetaryAmount;
  // The merchant's amount keeps its currency's own digits (JPY none, KWD three): intl.ts.
  return {
    amount,
    original: differs ? formatMoney(r.displayMonetaryAmount, r.originalCurrency, locale) : null,
  };
}

/** spec §2 receipt-count indicator: shown when receipts exist. */
export const showsReceipts = (r: Pick<TransactionRow, "nbReceipts" | "transactionStatus">) =>
  r.nbReceipts > 0 && r.transactionStatus !== TX_STATUS.refused;

/** spec §5: the transaction whose receipt has been overdue longest (the block's first fix). */
export function firstOverdue<R extends Pick<TransactionRow, "needsAttention" | "receiptDueDate">>(
  rows: readonly R[],
): R | null {
  const due = (r: R) => Date.parse(r.receiptDueDate ?? "") || 0;
  return rows.filter((r) => r.needsAttention).sort((a, b) => due(a) - due(b))[0] ?? null;
}
