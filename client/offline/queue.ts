import { decryptJson, encryptJson, fromBase64Url, toBase64Url } from "../crypto/device_key.ts";
import { openQCDB, putCached } from "../db/qcdb.ts";
import type { OutqKind } from "../state/outq.ts";

// The offline write queue's storage (spec §1 offline): each queued write is one record of QCDB's
// `lists` store under `outq:<seq>`, encrypted with the device key like every cached list
// (spec §8); a queued file's bytes (and its preview) sit beside it under `outqf:<key>`, so
// listing the queue never decrypts megabytes. QCDB keeps its version 11 and nine stores
// (spec §3): the queue is data in an existing store, not a schema change.

export const OUTQ_PREFIX = "outq:";
export const OUTQ_FILE_PREFIX = "outqf:";
/** `outq:` then 12 digits: the `key` index orders them as numbers. */
const SEQ_DIGITS = 12;
/** Every key of the queue and nothing else ("outq;" is the next string after "outq:…"). */
const RANGE = () => IDBKeyRange.bound(OUTQ_PREFIX, "outq;", false, true);

/** A JSON call of the contract, named (the names live in replay.ts). */
export interface JsonCall {
  ep: string;
  query?: Record<string, string>;
  body?: unknown;
}
/** A multipart upload; its file and preview are stored apart under `outqf:<key>`. */
export interface UploadCall {
  upload: { path: string; fields: Record<string, string>; name: string };
}
export type QueuedCall = JsonCall | UploadCall;

/** One queued write as stored (decrypted). */
export interface QueuedWrite {
  seq: number;
  /** The idempotency key every attempt carries (crypto.randomUUID). */
  key: string;
  kind: OutqKind;
  target: string;
  ref?: string;
  label: string;
  call: QueuedCall;
  createdAt: number;
  state: "pending" | "failed";
  attempts: number;
  /** The last error's message (the server's, for a refusal). */
  error: string | null;
}

export type NewWrite = Omit<QueuedWrite, "seq" | "createdAt" | "state" | "attempts" | "error">;

export interface QueuedFiles {
  file: Blob;
  preview: Blob | null;
}

interface StoredFiles {
  file: string;
  type: string;
  preview: string | null;
  previewType: string;
}

export const seqKey = (seq: number) => `${OUTQ_PREFIX}${String(seq).padStart(SEQ_DIGITS, "0")}`;
const seqOf = (key: string) => Number(key.slice(OUTQ_PREFIX.length));
const fileKey = (w: { key: string }) => `${OUTQ_FILE_PREFIX}${w.key}`;

function isWrite(v: unknown): v is Omit<QueuedWrite, "seq"> {
  const w = v as QueuedWrite | null;
  return !!w && typeof w === "object" && typeof w.key === "string" &&
    typeof w.kind === "string" && typeof w.target === "string" &&
    typeof w.label === "string" && !!w.call && typeof w.call === "object" &&
    (w.state === "pending" || w.state === "failed") && typeof w.attempts === "number";
}

/**
 * The queue, oldest first. A record that does not decrypt under this key (written under
 * another PIN) or is not a queued write is skipped, not deleted: it is not ours to judge.
 */
export async function listQueued(key: CryptoKey): Promise<QueuedWrite[]> {
  const db = await openQCDB();
  const recs = await db.getAllFromIndex("lists", "key", RANGE());
  const out: QueuedWrite[] = [];
  for (const r of recs) {
    try {
      const v = await decryptJson(key, r);
      if (isWrite(v)) out.push({ ...v, seq: seqOf(r.key) });
    } catch {
      // unreadable under this key: left alone
    }
  }
  return out.sort((a, b) => a.seq - b.seq);
}

/**
 * Appends a write (and its files) to the queue; its number is one more than the last one,
 * taken in the same IndexedDB transaction as the write, so two tabs never share one.
 */
export async function addQueued(
  key: CryptoKey,
  w: NewWrite,
  files?: QueuedFiles,
): Promise<QueuedWrite> {
  const stored: Omit<QueuedWrite, "seq"> = {
    ...w,
    createdAt: Date.now(),
    state: "pending",
    attempts: 0,
    error: null,
  };
  if (files) {
    const f: StoredFiles = {
      file: toBase64Url(new Uint8Array(await files.file.arrayBuffer())),
      type: files.file.type,
      preview: files.preview
        ? toBase64Url(new Uint8Array(await files.preview.arrayBuffer()))
        : null,
      previewType: files.preview?.type ?? "",
    };
    await putCached("lists", fileKey(w), await encryptJson(key, f));
  }
  const blob = await encryptJson(key, stored);
  const db = await openQCDB();
  const tx = db.transaction("lists", "readwrite");
  const add = async () => {
    const last = await tx.store.index("key").openKeyCursor(RANGE(), "prev");
    const seq = last ? seqOf(last.key) + 1 : 1;
    await tx.store.add({ key: seqKey(seq), iv: blob.iv, ct: blob.ct, savedAt: Date.now() });
    return seq;
  };
  const [seq] = await Promise.all([add(), tx.done]);
  return { ...stored, seq };
}

/** Stores a write's new state (attempts, failed with its message, pending again). */
export async function updateQueued(key: CryptoKey, w: QueuedWrite): Promise<void> {
  const { seq: _seq, ...stored } = w;
  await putCached("lists", seqKey(w.seq), await encryptJson(key, stored));
}

/** Removes a write (sent, or discarded by the person) and its files. */
export async function removeQueued(w: Pick<QueuedWrite, "seq" | "key">): Promise<void> {
  const db = await openQCDB();
  const tx = db.transaction("lists", "readwrite");
  const drop = async (k: string) => {
    const id = await tx.store.index("key").getKey(k);
    if (id !== undefined) await tx.store.delete(id);
  };
  await Promise.all([drop(seqKey(w.seq)), drop(fileKey(w)), tx.done]);
}

/** The file and preview of a queued upload, decrypted; null when they are gone. */
export async function readQueuedFiles(key: CryptoKey, w: QueuedWrite): Promise<QueuedFiles | null> {
  const db = await openQCDB();
  const rec = await db.getFromIndex("lists", "key", fileKey(w));
  if (!rec) return null;
  const f = await decryptJson(key, rec) as StoredFiles;
  const file = fromBase64Url(f.file);
  if (!file) return null;
  const preview = f.preview ? fromBase64Url(f.preview) : null;
  return {
    file: new Blob([file], { type: f.type }),
    preview: preview ? new Blob([preview], { type: f.previewType }) : null,
  };
}
