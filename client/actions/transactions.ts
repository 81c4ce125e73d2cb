import { effect } from "@preact/signals-react";
import { transactions as api } from "../shared/contract/transactions.ts";
import { call } from "../api/http.ts";
import { formatLocale } from "../i18n/display.ts";
import { t } from "../i18n/index.ts";
import { requestWords } from "../lib/words.ts";
import { MAX_PURPOSE } from "../shared/request_rules.ts";
import { checkFlipPurpose } from "../shared/transaction_rules.ts";
import { requestRows } from "../state/requests.ts";
import { type FlipDraft, flipDraft, flipError, txDetail } from "../state/transactions.ts";
import {
  closeAllSheets,
  closeSheet,
  network,
  openSheet,
  progress,
  pushBanner,
  showNotice,
} from "../state/ui.ts";
import { txFromRow } from "../state/tx_source.ts";
import { txReceipts } from "../state/receipts.ts";
import { busy } from "./busy.ts";
import { loadReceipts } from "./receipts.ts";
import { rowOf, showFromRow, showTx, txKey, withRow } from "./tx_cache.ts";
import { cacheFirst } from "./cache.ts";
import { dropComment, sendComment } from "./comments.ts";
import { codesForCostCenter, loadCostCenters, lookup } from "./lookups.ts";
import { messageOf } from "./messages.ts";
import { changed } from "./changes.ts";
import { openDetail } from "./requests.ts";

// Card transactions (spec §2 Transaction detail and Flip form, §4 Moved and Flip,
// §5 Flip purpose required). The list itself comes with pwalists (transaction_lists.ts).

/**
 * spec §2: a transaction row opens its detail; the cached copy shows first (spec §1). Offline, a
 * transaction never opened on this phone opens from its row (actions/tx_cache.ts): a photo or
 * a receipt can still be added, and waits in the offline queue.
 */
export async function openTransaction(oid: string): Promise<void> {
  txDetail.value = { oid, row: rowOf(oid), tx: null, comments: [] };
  txFromRow.value = null;
  txReceipts.value = null;
  openSheet({ kind: "transaction", oid });
  await Promise.all([loadTransaction(oid), loadTransactionComments(oid), loadReceipts(oid)]);
}

/**
 * The transaction itself, cache first. The cached copy takes its row's newer counts (the
 * list is read again after every change; the detail only while open): one truth for the row,
 * the detail and its receipts. With neither network nor cache, the row makes the detail.
 */
async function loadTransaction(oid: string): Promise<void> {
  try {
    const from = await cacheFirst({
      store: "lists",
      key: txKey(oid),
      schema: api.transaction.response,
      fetch: () => call(api.transaction, { query: { oid } }),
      show: (d, source) => {
        const tx = source === "cache" ? withRow(d.transaction, rowOf(oid)) : d.transaction;
        showTx(oid, tx, tx === d.transaction);
      },
    });
    if (from === "none") showFromRow(oid);
  } catch (err) {
    pushBanner(messageOf(err));
  }
}

// Back online with a detail made from its row: the server's copy replaces it.
effect(() => {
  if (network.value !== "back") return;
  const oid = txFromRow.peek();
  if (oid && txDetail.peek()?.oid === oid) {
    void Promise.all([loadTransaction(oid), loadTransactionComments(oid), loadReceipts(oid)]);
  }
});

/** The transaction's comments, cache first like a request's. */
async function loadTransactionComments(oid: string): Promise<void> {
  await lookup(
    "lists",
    `txcomments:${oid}`,
    api.comments.response,
    () => call(api.comments, { query: { oid } }),
    (d) => {
      if (txDetail.value?.oid === oid) txDetail.value = { ...txDetail.value, comments: d.comments };
    },
  );
}

export function addTransactionComment(text: string): Promise<boolean> {
  return sendComment(
    txDetail.value?.oid,
    text,
    "transaction.addComment",
    loadTransactionComments,
  );
}

export function deleteTransactionComment(commentOid: string): Promise<void> {
  return dropComment(txDetail.value?.oid, commentOid, loadTransactionComments);
}

/**
 * spec §4: a Moved status links to the transaction it was moved to: that transaction's
 * detail takes this one's place. Without it (an older record), the expense it moved to.
 */
export async function openMovedTo(
  r: { movedToOid: string | null; movedToExpenseOid: string | null },
): Promise<void> {
  if (r.movedToOid) {
    closeSheet();
    await openTransaction(r.movedToOid);
  } else if (r.movedToExpenseOid) await openDetail(r.movedToExpenseOid);
}

// ---- Flip (spec §2 Flip form, §3 Flip payload, §4 Flip, §5 purpose required) ----

/** Opens the flip form for the transaction on screen, with the card type's cost centers. */
export async function startFlip(): Promise<void> {
  const d = txDetail.value;
  const row = d?.tx ?? d?.row;
  if (!d || !row || !row.canFlip) return;
  const typeOid = requestRows.value.find((r) => r.oid === row.cardOid)?.typeOid ??
    d.tx?.typeOid ?? null;
  flipDraft.value = {
    transactionoids: [d.oid],
    expenseOid: row.expenseOid,
    typeOid,
    purpose: "",
    costCenterOid: null,
    GLOid: null,
    projectOid: null,
  };
  flipError.value = null;
  openSheet({ kind: "flip" });
  await loadCostCenters(typeOid ?? "");
}

export function patchFlip(p: Partial<FlipDraft>): void {
  if (flipDraft.value) flipDraft.value = { ...flipDraft.value, ...p };
  flipError.value = null;
}

/** spec §4: a new cost center reloads its GL and project lists and drops what is not in them. */
export async function setFlipCostCenter(oid: string | null): Promise<void> {
  const d = flipDraft.value;
  if (!d) return;
  patchFlip({ costCenterOid: oid });
  patchFlip(await codesForCostCenter(d.typeOid ?? "", oid, flipDraft.value ?? d));
}

/**
 * spec §5 purpose required, then pwaflip — blocking (money moves between expenses: no
 * optimistic success). After it, the lists are re-read and the new expense opens (spec §4
 * 'Flip moves a transaction onto an expense and jumps to it').
 */
export async function submitFlip(): Promise<void> {
  const d = flipDraft.value;
  if (!d) return;
  const problem = checkFlipPurpose(d.purpose);
  if (problem) {
    flipError.value = t(problem, { max: MAX_PURPOSE });
    return;
  }
  const made = await busy(async () => {
    progress.value = t("flip.flipping");
    try {
      const r = await call(api.flip, {
        body: {
          transactionoids: d.transactionoids,
          purpose: d.purpose.trim(),
          oid: d.expenseOid,
          archive: false,
          ccoid: d.costCenterOid,
          gloid: d.GLOid,
          projoid: d.projectOid,
        },
      });
      return r.expenseRequest;
    } catch (err) {
      flipError.value = messageOf(err);
      return null;
    } finally {
      progress.value = null;
    }
  });
  if (!made) return;
  flipDraft.value = null;
  await changed("request", made.oid);
  closeAllSheets();
  showNotice(t("flip.done", { what: requestWords(made, formatLocale()) }));
  await openDetail(made.oid);
}
