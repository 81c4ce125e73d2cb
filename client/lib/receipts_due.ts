/**
 * Which card transactions still need a receipt from their holder, and when (spec §5 missing
 * receipts, §2 Transactions badge): the server says when each one falls due (pwalists'
 * receiptDueDate, from the organisation's receipt delay) and whether it is overdue
 * (needsAttention); a receipt attached on this phone takes it off at once (nbReceipts). Pure:
 * tested in tests/unit.
 */
import type { TransactionRow } from "../shared/contract/transactions.ts";
import { TX_STATUS } from "../shared/transaction_rules.ts";
import { daysBetween } from "./transaction_view.ts";

type Due = Pick<TransactionRow, "receiptDueDate" | "nbReceipts" | "transactionStatus">;

/**
 * A transaction that still needs a receipt (or a "no receipt" declaration) from its holder,
 * overdue or not yet: the server gave it a due date and no receipt is on it yet.
 */
export function needsReceiptNow(r: Due): boolean {
  return r.receiptDueDate !== null && r.nbReceipts === 0 &&
    r.transactionStatus !== TX_STATUS.moved;
}

/** When its receipt is due (epoch ms), or NaN. */
export const dueAt = (r: Pick<TransactionRow, "receiptDueDate">): number =>
  Date.parse(r.receiptDueDate ?? "");

/** Overdue: the server says so, or its time passed since the list was read. */
export function receiptIsOverdue(
  r: Pick<TransactionRow, "receiptDueDate" | "needsAttention">,
  now: number,
): boolean {
  return r.needsAttention || dueAt(r) <= now;
}

/**
 * The transactions that need a receipt, in the order they need it: overdue ones first (the
 * longest overdue on top), then by due date, the newest purchase first on the same instant.
 */
export function byReceiptDue<R extends TransactionRow>(rows: readonly R[], now: number): R[] {
  const key = (r: R) => dueAt(r) || 0;
  const created = (r: R) => Date.parse(r.transactionCreateDate) || 0;
  return rows.filter(needsReceiptNow).sort((a, b) =>
    Number(receiptIsOverdue(b, now)) - Number(receiptIsOverdue(a, now)) ||
    key(a) - key(b) || created(b) - created(a)
  );
}

/** spec §2 Transactions: the rows that need a receipt apart, the others in their sections. */
export function splitNeedsReceipt<R extends TransactionRow, S extends { rows: R[] }>(
  sections: readonly S[],
  now: number,
): { needing: R[]; sections: S[] } {
  const needing = byReceiptDue(sections.flatMap((s) => s.rows), now);
  if (!needing.length) return { needing, sections: [...sections] };
  const rest = sections.map((s) => ({ ...s, rows: s.rows.filter((r) => !needsReceiptNow(r)) }))
    .filter((s) => s.rows.length);
  return { needing, sections: rest };
}

/**
 * What a row says of its receipt's due date: overdue for how many calendar days (0: since
 * earlier today), or the instant it falls due. Days are counted in `timeZone`, the zone the
 * times are shown in. Null for a transaction that needs no receipt.
 */
export function dueState(
  r: Pick<TransactionRow, "receiptDueDate" | "needsAttention" | "nbReceipts" | "transactionStatus">,
  now: number,
  timeZone = "UTC",
): { overdue: true; days: number } | { overdue: false; at: number } | null {
  if (!needsReceiptNow(r)) return null;
  const at = dueAt(r);
  if (receiptIsOverdue(r, now)) {
    return {
      overdue: true,
      days: Number.isNaN(at) ? 0 : Math.max(0, daysBetween(at, now, timeZone)),
    };
  }
  return { overdue: false, at };
}
