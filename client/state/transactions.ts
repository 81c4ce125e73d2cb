import { computed, signal } from "@preact/signals-react";
import type { Comment } from "../shared/contract/requests.ts";
import type { Transaction, TransactionRow } from "../shared/contract/transactions.ts";
import { needsReceiptNow } from "../lib/receipts_due.ts";

// Card transactions' state (spec §2 Transactions tab, Transaction detail, Flip form). Signals
// only: the lists loader (first-load chunk) fills them; the rules are in lib/transaction_view.

/** The user's transactions as pwalists last gave them (cache first, then network). */
export const transactionRows = signal<TransactionRow[]>([]);
/** spec §2 Transactions search box. */
export const txSearch = signal("");

/**
 * spec §2 badge, §5 missing receipts: how many transactions need a receipt (or a "no receipt"
 * declaration) from the person, overdue or not yet — the Transactions tab's badge and its
 * "Needs a receipt" group. (session.transactionAttention counts the overdue ones: the block.)
 */
export const receiptsNeeded = computed(() =>
  transactionRows.value.reduce((n, r) => n + (needsReceiptNow(r) ? 1 : 0), 0)
);

/**
 * Bumped when the Transactions tab is tapped while its badge shows: the tab lands on its
 * "Needs a receipt" group (scrolled to, and not hidden by a search).
 */
export const landOnReceipts = signal(0);

/** The transaction shown in the detail panel: its row at once, every field when it arrives. */
export const txDetail = signal<
  {
    oid: string;
    row: TransactionRow | null;
    tx: Transaction | null;
    /** spec §2 transaction detail comments (the card author's notes). */
    comments: Comment[];
  } | null
>(
  null,
);

/** spec §2 Flip form: purpose, cost center, GL code, project code. */
export interface FlipDraft {
  /** The transactions to flip and the expense they are on (the flip payload's oid). */
  transactionoids: string[];
  expenseOid: string;
  /** The card request's type: its cost centers are offered. */
  typeOid: string | null;
  purpose: string;
  costCenterOid: string | null;
  GLOid: string | null;
  projectOid: string | null;
}
export const flipDraft = signal<FlipDraft | null>(null);
export const flipError = signal<string | null>(null);
