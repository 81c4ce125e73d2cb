import * as z from "zod/mini";
import { TransactionRow } from "../shared/contract/transactions.ts";
import { transactionAttention } from "../state/session.ts";
import { flipDraft, transactionRows, txDetail, txSearch } from "../state/transactions.ts";
import { readCache, writeCache } from "./cache.ts";
import { needsReceiptNow } from "../lib/receipts_due.ts";

// The transactions' part of pwalists (spec §7, §3 Lists payload). Kept apart from
// actions/transactions.ts so the lists loader (actions/lists.ts) can apply them without an import
// circle.

/** Called with pwalists' `transactions.receiptslist` (from the cache, then from the network). */
export function showTransactions(rows: TransactionRow[], attention?: number): void {
  transactionRows.value = rows;
  transactionAttention.value = attention ?? rows.filter((r) => r.needsAttention).length;
  const d = txDetail.value;
  if (d) {
    const row = rows.find((r) => r.oid === d.oid);
    // The open detail follows the list at once: a receipt attached lifts its overdue mark.
    const tx = d.tx && row
      ? { ...d.tx, needsAttention: row.needsAttention, nbReceipts: row.nbReceipts }
      : d.tx;
    if (row) txDetail.value = { ...d, row, tx };
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

// ---- The encrypted cache (spec §1, §8: shown first, never in clear) ----
//
// 5,000 transactions are megabytes of JSON: decrypting and parsing them before the first
// paint would hold every list back. So they are cached apart from the requests, twice: the
// newest ones the Transactions tab shows first (with how many need attention, so the badge
// is right at once), and all of them, read after the first paint.

const Rows = z.array(TransactionRow);
const Head = z.object({ rows: Rows, attention: z.number() });
const KEY = { head: "transactions:head", all: "transactions" } as const;
/** Rows cached for the first paint: more than the tab renders at first (60). */
export const HEAD_ROWS = 100;

/**
 * The newest rows not Moved (what the tab shows first), every older one that still needs a
 * receipt (the tab's "Needs a receipt" group and the badge are whole at once), and how many
 * need attention.
 */
export function headOf(rows: readonly TransactionRow[], n = HEAD_ROWS): z.infer<typeof Head> {
  const at = (r: TransactionRow) => Date.parse(r.transactionCreateDate) || 0;
  const shown = rows.filter((r) => r.transactionStatus !== "Moved").sort((a, b) => at(b) - at(a));
  return {
    rows: [...shown.slice(0, n), ...shown.slice(n).filter(needsReceiptNow)],
    attention: rows.filter((r) => r.needsAttention).length,
  };
}

export async function writeCachedTransactions(rows: TransactionRow[]): Promise<void> {
  await Promise.all([
    writeCache("lists", KEY.head, headOf(rows)),
    writeCache("lists", KEY.all, rows),
  ]);
}

/** The newest cached transactions and the attention count, for the first paint. */
export async function readCachedHead() {
  return await readCache("lists", KEY.head, Head);
}

/** Every cached transaction, unless the network answered meanwhile (`stale()`). */
export async function showAllCachedTransactions(stale: () => boolean): Promise<void> {
  const rows = await readCache("lists", KEY.all, Rows);
  if (!rows || stale()) return;
  showTransactions(rows);
  performance.mark("qc:transactions:all-shown"); // read by `deno task bench`
}

/** Runs `fn` once the browser has painted what is on screen now. */
export function afterPaint(fn: () => void): void {
  if (typeof requestAnimationFrame === "undefined") return void setTimeout(fn);
  requestAnimationFrame(() => setTimeout(fn));
}
