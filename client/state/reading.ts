import { signal } from "@preact/signals-react";
import type { ReadReceipt } from "../shared/receipt_text.ts";

// What the phone read from the receipt just captured or chosen (client/actions/reading.ts):
// shown on the transaction as a suggestion, never sent. Signals only.

export interface ReceiptReading {
  txOid: string;
  /** The files read (page ids, or a file's name and size): a newer capture replaces it. */
  key: string;
  status: "busy" | "done" | "failed" | "unavailable";
  read: (ReadReceipt & { ms: number }) | null;
  /** "Hide": kept (the VAT panel still uses it) but not shown. */
  hidden: boolean;
}

export const receiptReading = signal<ReceiptReading | null>(null);

/**
 * A receipt that went up before its reading was done (a file chosen with Add receipt): the
 * reading of `key` may follow it, when the person sends it ("Send with the receipt").
 * `sent`: it did (or waits in the offline queue).
 */
export const readingReceipt = signal<
  { txOid: string; key: string; receiptOid: string; sent: boolean } | null
>(null);
