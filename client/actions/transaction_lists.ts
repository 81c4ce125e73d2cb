import type { TransactionRow } from "../api/contract/transactions.ts";
import { transactionAttention } from "../state/session.ts";
import { flipDraft, transactionRows, txDetail, txSearch } from "../state/transactions.ts";

// The transactions' part of pwalists (issue 11). Kept apart from actions/transactions.ts so
// the lists loader (actions/session.ts) can apply them without an import circle.

/** Called with pwalists' `transactions.receiptslist` (from the cache, then from the network). */
export function showTransactions(rows: TransactionRow[]): void {
  transactionRows.value = rows;
  transactionAttention.value = rows.filter((r) => r.needsAttention).length;
  const d = txDetail.value;
  if (d) {
    const row = rows.find((r) => r.oid === d.oid);
    if (row) txDetail.value = { ...d, row };
  }
}

/** Logout and wipe: nothing of the previous session's transactions stays in memory. */
export function resetTransactions(): void {
  transactionRows.value = [];
  transactionAttention.value = 0;
  txSearch.value = "";
  txDetail.value = null;
  flipDraft.value = null;
}
