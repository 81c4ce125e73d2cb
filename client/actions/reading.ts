import { preferredLanguage } from "../i18n/language.ts";
import { receiptReading } from "../state/reading.ts";
import { txDetail } from "../state/transactions.ts";
import type { ReceiptLanguage } from "../shared/receipt_text.ts";
import { ReceiptRead } from "../shared/contract/documents.ts";
import { matchPayment } from "../shared/receipt_match.ts";

// The receipt read on the phone as soon as it is captured or chosen (client/ocr/read.ts,
// loaded then): the result is a suggestion — shown on the transaction against the payment,
// and offered to the VAT panel (client/actions/vat.ts: `receiptSuggestion`) — and nothing
// read leaves the phone.

/** Reads `files` (the pages of one receipt) for transaction `txOid`; `key` names them. */
export async function readForTransaction(txOid: string, files: Blob[], key: string): Promise<void> {
  if (!files.length) return;
  const now = receiptReading.value;
  if (now?.txOid === txOid && now.key === key && now.status !== "failed") return;
  receiptReading.value = { txOid, key, status: "busy", read: null, hidden: false };
  const tx = txDetail.value?.oid === txOid ? txDetail.value.tx : null;
  const still = () => receiptReading.value?.txOid === txOid && receiptReading.value.key === key;
  try {
    if (typeof WebAssembly !== "object" || typeof OffscreenCanvas === "undefined") {
      throw new Unavailable();
    }
    const { readReceipt } = await import("../ocr/read.ts");
    const read = await readReceipt(files, {
      lang: preferredLanguage() as ReceiptLanguage,
      currency: tx?.originalCurrency,
    });
    if (!still()) return;
    const nothing = read.total === null && !read.date && !read.vat.length;
    receiptReading.value = {
      txOid,
      key,
      status: nothing ? "failed" : "done",
      read: nothing ? null : read,
      hidden: false,
    };
    if (!nothing) {
      // The VAT panel open on this transaction takes it at once.
      const { offerReadVat } = await import("./vat.ts");
      offerReadVat();
    }
  } catch (err) {
    if (!still()) return;
    // No engine here (an old phone without WebAssembly SIMD), or it could not start.
    const unavailable = err instanceof Unavailable || /WebAssembly|wasm|SIMD/i.test(String(err));
    receiptReading.value = {
      txOid,
      key,
      status: unavailable ? "unavailable" : "failed",
      read: null,
      hidden: false,
    };
  }
}

class Unavailable extends Error {}

export function hideReading(): void {
  const r = receiptReading.value;
  if (r) receiptReading.value = { ...r, hidden: true };
}

/**
 * What travels with the receipt of `txOid` when the person sends it: the fields read and shown
 * to them (not hidden, none marked unsure) and what the phone said against the payment, as the
 * upload's `read` field; nothing when nothing was read.
 */
export function readToSend(txOid: string): string | undefined {
  const r = receiptReading.value;
  const tx = txDetail.value?.oid === txOid ? txDetail.value.tx : null;
  if (!r || r.txOid !== txOid || r.status !== "done" || r.hidden || !r.read || !tx) return;
  const read = r.read;
  const sure = (f: typeof read.unsure[number]) => !read.unsure.includes(f);
  const sent: ReceiptRead = {
    total: sure("total") ? read.total : null,
    currency: read.currency,
    date: read.date,
    merchant: read.merchant?.slice(0, 100) ?? null,
    vat: sure("vat") ? read.vat.slice(0, 5) : [],
    match: matchPayment(read, tx).kind,
  };
  // The server refuses an upload whose reading it cannot take: the receipt goes without it then.
  return ReceiptRead.safeParse(sent).success ? JSON.stringify(sent) : undefined;
}
