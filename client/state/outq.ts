import { signal } from "@preact/signals-react";

// The offline write queue as the screens see it (spec §1 offline): what was written without a
// network and waits, in order, to be sent; what the server refused, with its message.

/** What a queued write changes; the screens show each kind where it belongs. */
export type OutqKind =
  | "comment"
  | "note"
  | "read"
  | "dotax"
  | "review"
  | "receipt"
  | "document";

/** One queued write, without its body or file (those stay encrypted in QCDB). */
export interface OutqView {
  seq: number;
  /** Its idempotency key. */
  key: string;
  kind: OutqKind;
  /** The record it is about: a transaction, request or card oid. */
  target: string;
  /** A second record: the receipt of a note. */
  ref?: string;
  /** What to show: the comment, the file name, the note, the VAT choice. */
  label: string;
  /** `sending` while a replay carries it. */
  state: "pending" | "sending" | "failed";
  /** The server's message when it refused the write. */
  error: string | null;
  attempts: number;
  createdAt: number;
}

/** Every queued write of this device, oldest first. */
export const outq = signal<OutqView[]>([]);

/** The queued writes of one kind about one record, oldest first. */
export function queuedFor(kind: OutqKind, target: string): OutqView[] {
  return outq.value.filter((e) => e.kind === kind && e.target === target);
}
