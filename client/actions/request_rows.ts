import type { ExpenseRow } from "../shared/contract/requests.ts";
import { detail, filters, NO_FILTERS, requestRows } from "../state/requests.ts";
import { requestAttention } from "../state/session.ts";
import { closeAllSheets } from "../state/ui.ts";
import { resetWallet } from "../state/wallet.ts";
import { resetTransactions } from "./transaction_lists.ts";

// The Requests list's rows as pwalists gives them (spec §2), apart from the request actions
// (requests.ts): the lists loader (lists.ts) shows and clears them without loading those, so
// the PIN pad's first load does not carry the request screens' code.

/** Called with pwalists' rows (from the cache, then from the network). */
export function showRequests(rows: ExpenseRow[]): void {
  requestRows.value = rows;
  requestAttention.value = rows.filter((r) => r.needsAttention).length;
}

export function resetRequests(): void {
  requestRows.value = [];
  requestAttention.value = 0;
  detail.value = null;
  filters.value = NO_FILTERS;
  resetWallet();
  resetTransactions();
  closeAllSheets();
}
