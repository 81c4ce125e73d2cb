import {
  CONTENT_PATH,
  documents as api,
  PREVIEW_PATH,
  PREVIEW_SIZE,
  RECEIPT_NOTE_MAX,
} from "../shared/contract/documents.ts";
import type { Receipt, ReceiptRead } from "../shared/contract/documents.ts";
import type { UploadResponse } from "../shared/contract/documents.ts";
import { fetchFile } from "../api/files.ts";
import { ApiError, call } from "../api/http.ts";
import { t } from "../i18n/index.ts";
import { onReplayed, sendWrites } from "./replay.ts";
import { noteDraft, receiptUpload, txReceipts } from "../state/receipts.ts";
import { readingReceipt } from "../state/reading.ts";
import { transactionRows, txDetail } from "../state/transactions.ts";
import { askConfirm, closeSheet, openSheet, pushBanner, showNotice } from "../state/ui.ts";
import { busy } from "./busy.ts";
import { checkFile, deleteDocument, type Prepared, sendFile } from "./files.ts";
import { lookup } from "./lookups.ts";
import { messageOf } from "./messages.ts";
import { changed } from "./changes.ts";
import { receiptsKey, showReceipts, showTx } from "./tx_cache.ts";
import { readForTransaction, readToSend } from "./reading.ts";

// Receipts of the transaction on screen (spec §2 Transaction detail: receipt
// images or a PDF viewer, attach and remove receipt, receipt notes panel; §5 Receipt note
// and Upload; §7 pwaexpensereceipts, pwasaveReceiptNote, pwaauploaddocument, pwadeletedocument).

/**
 * spec §7 pwaexpensereceipts, cache first (the list, not the files). After a write
 * (`afterWrite`: attach, remove, note) the list on screen is newer than the cached one: only
 * the server's answer replaces it (a removed receipt never shows again meanwhile).
 */
export async function loadReceipts(txOid: string, afterWrite = false): Promise<void> {
  await lookup(
    "lists",
    receiptsKey(txOid),
    api.receipts.response,
    () => call(api.receipts, { query: { oid: txOid } }),
    // Read from the cache or about to be cached by this read: not written again.
    (d) => showReceipts(txOid, d.receipts, true),
    afterWrite,
  );
}

/** The counters a change left on the transaction, on screen at once (detail and rows). */
export function applyCounts(txOid: string, counts: { nbReceipts: number; nbDocuments: number }) {
  const d = txDetail.value;
  if (d?.oid === txOid) {
    txDetail.value = {
      ...d,
      row: d.row ? { ...d.row, nbReceipts: counts.nbReceipts } : d.row,
      tx: d.tx ? { ...d.tx, ...counts } : d.tx,
    };
  }
  transactionRows.value = transactionRows.value.map((r) =>
    r.oid === txOid ? { ...r, nbReceipts: counts.nbReceipts } : r
  );
}

/** A receipt (or document) the server now has: its counts and the list on screen. */
function applyUpload(txOid: string, r: UploadResponse): void {
  applyCounts(txOid, r);
  const list = txReceipts.value;
  if (r.receipt && list?.txOid === txOid && !list.receipts.some((x) => x.oid === r.receipt!.oid)) {
    txReceipts.value = { txOid, receipts: [...list.receipts, r.receipt] };
  }
}

function applyNote(txOid: string, saved: Receipt): void {
  const list = txReceipts.value;
  if (list?.txOid === txOid) {
    txReceipts.value = {
      txOid,
      receipts: list.receipts.map((x) => x.oid === saved.oid ? saved : x),
    };
  }
}

// Queued writes (spec §1 offline) that landed: shown as if they had just been made. Without an
// answer (done earlier, its answer gone: see outcomeOf) the transaction is read again.
const uploaded = (answer: unknown) =>
  typeof (answer as UploadResponse | undefined)?.nbReceipts === "number"
    ? answer as UploadResponse
    : null;
onReplayed("receipt", async (w, answer) => {
  const r = uploaded(answer);
  if (r) applyUpload(w.target, r);
  else {
    await reloadTransaction(w.target);
    if (txDetail.value?.oid === w.target) await loadReceipts(w.target, true);
  }
});
onReplayed("document", async (w, answer) => {
  const r = uploaded(answer);
  if (r) applyCounts(w.target, r);
  else await reloadTransaction(w.target);
});
onReplayed("note", (w, answer) => {
  const saved = (answer as { expenseReceipt?: Receipt } | undefined)?.expenseReceipt;
  if (saved) applyNote(w.target, saved);
});

/**
 * Attach receipt (camera or files): checked (spec §5, §8 alert), made smaller on the device,
 * sent with its percent showing, then the receipts and the lists are re-read (the overdue
 * block lifts at once). Resolves false when the input must be cleared. `prepared`: made on
 * the device already (the photo pages of client/actions/capture.ts).
 */
export async function attachReceipt(file: File, prepared?: Prepared): Promise<boolean> {
  const txOid = txDetail.value?.oid;
  if (!txOid) return false;
  // A file chosen (not photos read already): read on the device beside the upload; what is
  // read follows it only when the person sends it (sendReading).
  const fileKey = `${file.name} ${file.size} ${file.lastModified}`;
  if (!prepared) void readForTransaction(txOid, [file], fileKey);
  const done = await busy(async () => {
    try {
      if (!(await checkFile(file))) return false;
      receiptUpload.value = { name: file.name, percent: 0 };
      // Photos: the person saw what was read and tapped Send.
      const read = prepared ? readToSend(txOid) : undefined;
      const r = await sendFile(
        file,
        { record: txOid, documenttype: "receipt", read },
        (percent) => {
          receiptUpload.value = { name: file.name, percent };
        },
        prepared,
      );
      // null: no network, it waits in the offline queue, shown as pending (spec §1 offline).
      if (r) {
        applyUpload(txOid, r);
        showNotice(t("receipts.attached"));
        if (!prepared && r.receipt) {
          readingReceipt.value = { txOid, key: fileKey, receiptOid: r.receipt.oid, sent: false };
        }
      }
      return true;
    } catch (err) {
      // spec §8 upload error: the loading indicator stops.
      pushBanner(messageOf(err));
      return false;
    } finally {
      setTimeout(() => (receiptUpload.value = null), 600);
    }
  });
  await changed("receipt", txOid);
  return done === true;
}

/** Remove receipt, after a confirmation; an advanced-security one through the document service. */
export function removeReceipt(receipt: Receipt): void {
  const txOid = txDetail.value?.oid;
  if (!txOid) return;
  askConfirm({
    message: t("receipts.removeConfirm", { name: receipt.name }),
    showNo: true,
    yesLabel: t("receipts.remove"),
    noLabel: t("confirm.keep"),
    danger: true,
    onYes: async () => {
      await busy(async () => {
        try {
          await deleteDocument(receipt.oid);
          forget(receipt.oid);
          if (txReceipts.value?.txOid === txOid) {
            const left = txReceipts.value.receipts.filter((x) => x.oid !== receipt.oid);
            txReceipts.value = { txOid, receipts: left };
          }
          showNotice(t("receipts.removed"));
        } catch (err) {
          pushBanner(messageOf(err));
        }
      });
      await changed("receipt", txOid);
    },
  });
}

/**
 * The open transaction read again after a change (a receipt, the stream): on screen and, by
 * the detail's write-through (actions/tx_cache.ts), in its cache, so an offline reopening
 * shows the same counts as its receipt list.
 */
export async function reloadTransaction(oid: string): Promise<void> {
  const { transactions } = await import("../shared/contract/transactions.ts");
  try {
    const r = await call(transactions.transaction, { query: { oid } });
    showTx(oid, r.transaction, false);
  } catch {
    // the lists refresh shows what changed
  }
}

// ---- Receipt notes panel (spec §2, §5: at most 200 characters) ----

export function openNote(receipt: Receipt): void {
  noteDraft.value = { receiptOid: receipt.oid, note: receipt.note, error: null };
  openSheet({ kind: "receiptNote" });
}

export function editNote(note: string): void {
  if (noteDraft.value) noteDraft.value = { ...noteDraft.value, note, error: null };
}

export async function saveNote(): Promise<void> {
  const d = noteDraft.value;
  const txOid = txDetail.value?.oid;
  if (!d || !txOid) return;
  if (d.note.length > RECEIPT_NOTE_MAX) {
    noteDraft.value = { ...d, error: t("receipts.noteTooLong", { max: RECEIPT_NOTE_MAX }) };
    return;
  }
  const body = { expenseReceipt: { oid: d.receiptOid, note: d.note } };
  // Without a network the note waits in the offline queue, shown as pending (spec §1 offline).
  const saved = await busy(async (): Promise<Receipt | "queued" | null> => {
    try {
      const r = await sendWrites(txOid, [{
        kind: "note",
        ref: d.receiptOid,
        label: d.note,
        call: { ep: "receipt.saveNote", body },
      }]);
      return r === "queued" ? r : (r.sent as { expenseReceipt: Receipt }).expenseReceipt;
    } catch (err) {
      noteDraft.value = { ...d, error: messageOf(err) };
      return null;
    }
  });
  if (!saved) return;
  if (saved === "queued") {
    noteDraft.value = null;
    closeSheet();
    return;
  }
  applyNote(txOid, saved);
  noteDraft.value = null;
  closeSheet();
  showNotice(t("receipts.noteSaved"));
  await loadReceipts(txOid, true);
}

/**
 * "Send with the receipt": the reading of a receipt that went up before it was done (a file
 * chosen with Add receipt) follows it (pwasaveReceiptRead) — what the card shows, as a
 * captured receipt's reading travels (readToSend); without a network it waits in the offline
 * queue.
 */
export async function sendReading(): Promise<void> {
  const r = readingReceipt.value;
  const txOid = txDetail.value?.oid;
  if (!r || r.sent || !txOid || r.txOid !== txOid) return;
  const json = readToSend(txOid);
  if (!json) return;
  const body = { expenseReceipt: { oid: r.receiptOid, read: JSON.parse(json) as ReceiptRead } };
  const saved = await busy(async (): Promise<Receipt | "queued" | null> => {
    try {
      const a = await sendWrites(txOid, [{
        kind: "read",
        ref: r.receiptOid,
        label: t("reading.sendWith"),
        call: { ep: "receipt.saveRead", body },
      }]);
      return a === "queued" ? a : (a.sent as { expenseReceipt: Receipt }).expenseReceipt;
    } catch (err) {
      pushBanner(messageOf(err));
      return null;
    }
  });
  if (!saved) return;
  readingReceipt.value = { ...r, sent: true };
  if (saved === "queued") return;
  applyNote(txOid, saved);
  showNotice(t("reading.sentWith"));
}
onReplayed("read", (w, answer) => {
  const saved = (answer as { expenseReceipt?: Receipt } | undefined)?.expenseReceipt;
  if (saved) applyNote(w.target, saved);
});

// ---- The files themselves (memory only: object URLs, never written to disk in clear) ----

const files = new Map<string, Promise<{ blob: Blob; type: string }>>();

/** A receipt's or document's bytes, fetched once per session (spec §7 pwadocumentcontent). */
export function fileOf(oid: string): Promise<{ blob: Blob; type: string }> {
  let p = files.get(oid);
  if (!p) {
    p = fetchFile(CONTENT_PATH, { record: oid, app: "1" });
    files.set(oid, p);
    p.catch(() => files.delete(oid));
  }
  return p;
}

const previews = new Map<string, Promise<{ blob: Blob; type: string } | null>>();

/**
 * spec §7 pwapreview?record&size=1024: a receipt's or document's preview image (≤ 1024 px),
 * what the viewers show first; the file itself only when asked (fileOf). Null when the
 * server has none (404). Once per session.
 */
export function previewFileOf(oid: string): Promise<{ blob: Blob; type: string } | null> {
  let p = previews.get(oid);
  if (!p) {
    p = fetchFile(PREVIEW_PATH, { record: oid, size: String(PREVIEW_SIZE) }).catch((err) => {
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    });
    previews.set(oid, p);
    p.catch(() => previews.delete(oid));
  }
  return p;
}

export function forget(oid: string): void {
  files.delete(oid);
  previews.delete(oid);
}
