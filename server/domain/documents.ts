import {
  CONTENT_PATH,
  type DocumentInfo,
  PREVIEW_PATH,
  PREVIEW_SIZE,
  type Receipt,
  type ReceiptRead,
  UPLOAD_PATH,
} from "../../client/shared/contract/documents.ts";
import type { TranslationKey } from "../../client/shared/i18n/locales/en.ts";
import { TX_STATUS } from "../../client/shared/transaction_rules.ts";
import { HttpError, notFound } from "../errors.ts";
import type { Deps } from "./env.ts";
import { translate } from "../i18n.ts";
import type { BlobStore } from "../store/blobs.ts";
import type { DocumentRecord } from "../store/documents.ts";
import type { TransactionRecord } from "../store/transactions.ts";
import type { User } from "../store/users.ts";
import { imageSize } from "./file_types.ts";
import { ownTransaction } from "./transactions.ts";

// Receipts and documents of card transactions (spec §2 document panel, §3 Receipt,
// Document, Document list response, §5 'A receipt cannot be attached to an already reviewed
// transaction', §7 the document calls). Documents are kept under the transaction's issuer
// authorization (server/store/documents.ts), so they follow it through flips; the counts on
// the transaction change in the same atomic write as the documents themselves.

/** A preview made on the device: JPEG or PNG, ≤ PREVIEW_SIZE px, at most this many bytes. */
export const PREVIEW_MAX_BYTES = 512 * 1024;

/** A transaction holds at most this many documents and receipts together. */
export const MAX_DOCUMENTS = 20;
/**
 * Retries of a write that lost a race with another write of the same transaction (every
 * document write checks the transaction's version: uploads of one transaction queue).
 */
export const RETRIES = 30;

/** A short random wait before retry `i`, so racing writers do not collide again at once. */
export const backoff = (i: number) =>
  new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 * i)));

export type Tr = Awaited<ReturnType<typeof translate>>;

/** 'doc.tooMany' → 'too_many': the machine code of an answer (as request_checks does). */
const codeOf = (key: string) =>
  key.replace(/^[a-z]+\./, "").replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A refusal in the caller's language: `{error: code of the key, message}`. */
export function docError(
  status: HttpError["status"],
  tr: Tr,
  key: TranslationKey,
  params?: Record<string, string | number>,
  extra?: Record<string, unknown>,
): HttpError {
  return new HttpError(status, codeOf(key), tr(key, params), extra);
}

/** Why nothing may be attached to `t` now (spec §5), or null. */
export function addRefusal(t: TransactionRecord): TranslationKey | null {
  if (t.transactionStatus === TX_STATUS.refused || t.transactionStatus === TX_STATUS.moved) {
    return "doc.refused";
  }
  if (t.reviewed) return "doc.reviewed";
  return null;
}

/** Reviewed transactions are read-only (spec §4): their documents stay. */
export const deletable = (t: TransactionRecord): 0 | 1 => t.reviewed ? 0 : 1;

/** The store a document's file is in: the document service's for advanced security. */
export const blobsOf = (deps: Deps, d: Pick<DocumentRecord, "advancedSecurity">): BlobStore =>
  d.advancedSecurity ? deps.store.secureBlobs : deps.store.blobs;

/** The counts after adding (+1) or removing (-1) `d`. */
export function recount(
  t: TransactionRecord,
  d: DocumentRecord,
  delta: 1 | -1,
): Pick<TransactionRecord, "nbReceipts" | "nbDocuments"> {
  const receipt = d.documentType === "receipt";
  return {
    nbReceipts: Math.max(0, t.nbReceipts + (receipt ? delta : 0)),
    nbDocuments: Math.max(0, t.nbDocuments + (receipt ? 0 : delta)),
  };
}

const iso = (ms: number) => new Date(ms).toISOString();
/**
 * spec §7 pwapreview answers a bounded image: the device-made preview, else an image small
 * enough to be its own (≤ PREVIEW_MAX_BYTES; its pixels are checked when served, see
 * previewOf). A large image or a PDF without a device-made preview has none: the viewer
 * offers the original on demand instead of fetching megabytes on every view.
 */
const hasPreview = (d: DocumentRecord) =>
  d.preview !== null || (d.mimeType.startsWith("image/") && d.size <= PREVIEW_MAX_BYTES);

/** How many chunks of an image are read, at most, to find its size in pixels. */
const SIZE_PROBE_CHUNKS = 3;

/**
 * spec §7 pwapreview: what to serve as the preview of `d` — its device-made preview, or the
 * image itself when it is within PREVIEW_MAX_BYTES and PREVIEW_SIZE px on its long side —
 * or null (no bounded preview exists; never the full file of a large image).
 */
export async function previewOf(
  deps: Deps,
  d: DocumentRecord,
): Promise<{ ref: DocumentRecord["blob"]; mimeType: string; own: boolean } | null> {
  if (d.preview) return { ref: d.preview, mimeType: d.preview.mimeType, own: false };
  if (!hasPreview(d)) return null;
  const dims = await imageHeadSize(blobsOf(deps, d), d.blob);
  if (!dims || Math.max(dims.width, dims.height) > PREVIEW_SIZE) return null;
  return { ref: d.blob, mimeType: d.mimeType, own: true };
}

/** The size in px of a stored image, read from its first chunks only (null if not found). */
async function imageHeadSize(blobs: BlobStore, ref: DocumentRecord["blob"]) {
  const reader = blobs.read(ref).getReader();
  let head = new Uint8Array(0);
  try {
    for (let i = 0; i < SIZE_PROBE_CHUNKS; i++) {
      const { value, done } = await reader.read();
      if (done) break;
      const next = new Uint8Array(head.length + value.length);
      next.set(head);
      next.set(value, head.length);
      head = next;
      const dims = imageSize(head);
      if (dims) return dims;
    }
    return null;
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** spec §3 Document, for the panel. */
export function toInfo(d: DocumentRecord, canDelete: 0 | 1): DocumentInfo {
  return {
    oid: d.oid,
    archive: d.archive,
    documentName: d.name,
    documentDesc: d.note,
    documentVersion: 1,
    documentType: d.documentType,
    advancedSecurity: d.advancedSecurity,
    canBeDeleted: canDelete,
    size: d.size,
    mimeType: d.mimeType,
    createdDate: iso(d.createdAt),
    hasPreview: hasPreview(d),
  };
}

/** spec §3 Receipt with its Receipt document, for the viewer (URLs need the bearer token). */
export function toReceipt(d: DocumentRecord, canDelete: 0 | 1): Receipt {
  const q = `record=${encodeURIComponent(d.oid)}`;
  return {
    oid: d.oid,
    note: d.note,
    url: `/bonita${CONTENT_PATH}?${q}`,
    previewUrl: hasPreview(d) ? `/bonita${PREVIEW_PATH}?${q}&size=${PREVIEW_SIZE}` : null,
    type: d.mimeType === "application/pdf" ? "application/pdf" : "application/octet-stream",
    mimeType: d.mimeType,
    name: d.name,
    size: d.size,
    createdDate: iso(d.createdAt),
    canBeDeleted: canDelete,
    read: d.read ?? null,
  };
}

/** A document of the user and the transaction it is on now, or 404 for anyone else's. */
export async function ownDocument(deps: Deps, userOid: string, oid: string) {
  const { documents } = deps.store;
  const ref = await documents.ref(oid);
  if (!ref || ref.userOid !== userOid) throw notFound();
  const doc = await documents.get(ref, oid);
  if (!doc.value) throw notFound();
  const tx = await liveTransaction(deps, doc.value);
  return { doc: doc as Deno.KvEntry<DocumentRecord>, tx };
}

/**
 * The transaction a document belongs to now: the one the authorization points at (a flip's
 * copy after a flip), else the one it was attached to.
 */
export async function liveTransaction(
  deps: Deps,
  d: DocumentRecord,
): Promise<Deno.KvEntry<TransactionRecord>> {
  const { transactions } = deps.store;
  const link = (await transactions.byAuthorization(d.authorizationId)).value;
  for (const oid of [link?.userOid === d.userOid ? link.oid : null, d.transactionOid]) {
    if (!oid) continue;
    const e = await transactions.get(d.userOid, oid);
    if (e.value && e.value.authorizationId === d.authorizationId) {
      return e as Deno.KvEntry<TransactionRecord>;
    }
  }
  throw notFound();
}

/** spec §7 pwaexpensereceiptdocuments: the entity uploads go to, and its documents. */
export async function listDocuments(deps: Deps, user: User, record: string) {
  const t = await ownTransaction(deps, user, record);
  const docs = await deps.store.documents.byTransaction(user.oid, t.authorizationId);
  return {
    entity: {
      entityUrl: `/bonita${UPLOAD_PATH}`,
      archive: t.archive,
      entity1oid: t.oid,
      entity2oid: t.expenseOid,
      entity3oid: t.cardOid,
    },
    documents: docs.map((d) => toInfo(d, deletable(t))),
  };
}

/** spec §7 pwaexpensereceipts: a transaction's receipts with their notes. */
export async function listReceipts(deps: Deps, user: User, oid: string): Promise<Receipt[]> {
  const t = await ownTransaction(deps, user, oid);
  const docs = await deps.store.documents.byTransaction(user.oid, t.authorizationId);
  return docs.filter((d) => d.documentType === "receipt").map((d) => toReceipt(d, deletable(t)));
}

/** spec §7 pwasaveReceiptNote (≤ 200, checked by the contract); refused once reviewed. */
export function saveNote(deps: Deps, user: User, oid: string, note: string): Promise<Receipt> {
  return changeDocument(deps, user, oid, { note });
}

/**
 * pwasaveReceiptRead: what the phone read from a receipt sent before its reading was done (the
 * contract checked it as an upload's `read` field is); refused once reviewed, as notes are. A
 * reading belongs to a receipt: another document answers 404.
 */
export function saveRead(deps: Deps, user: User, oid: string, read: ReceiptRead): Promise<Receipt> {
  return changeDocument(deps, user, oid, { read }, "receipt");
}

/**
 * The caller's document `oid` with `change`, checked against its transaction (409 once that is
 * reviewed) and retried on a conflicting write; `only`: of that document type, else 404.
 */
async function changeDocument(
  deps: Deps,
  user: User,
  oid: string,
  change: Pick<Partial<DocumentRecord>, "note" | "read">,
  only?: DocumentRecord["documentType"],
): Promise<Receipt> {
  const tr = await translate(user.locale);
  for (let i = 0; i < RETRIES; i++) {
    if (i > 0) await backoff(i);
    const { doc, tx } = await ownDocument(deps, user.oid, oid);
    if (only && doc.value.documentType !== only) throw notFound();
    if (tx.value.reviewed) throw docError(409, tr, "doc.readOnly");
    const next = { ...doc.value, ...change, updatedAt: deps.now() };
    const op = deps.store.kv.atomic().check(doc, tx);
    if ((await deps.store.documents.put(op, next).commit()).ok) return toReceipt(next, 1);
  }
  throw new HttpError(409, "conflict", tr("request.busy"));
}

/** spec §7 pwacheckadddocumentcontent: may the caller add a document there now? */
export async function checkAdd(deps: Deps, user: User, record: string) {
  const t = await ownTransaction(deps, user, record);
  const tr = await translate(user.locale);
  const refusal = addRefusal(t);
  if (refusal) return { result: 0 as const, message: tr(refusal) };
  const n = (await deps.store.documents.byTransaction(user.oid, t.authorizationId)).length;
  if (n >= MAX_DOCUMENTS) {
    return { result: 0 as const, message: tr("doc.tooMany", { max: MAX_DOCUMENTS }) };
  }
  return { result: 1 as const, message: null };
}

/**
 * One sweep of both blob stores (documents and the document service): pending blobs older
 * than BLOB_PENDING_TTL_MS and interrupted deletions. boot.ts runs it every BLOB_SWEEP_MS.
 */
export async function sweepBlobs(deps: Deps): Promise<{ pending: number; doomed: number }> {
  const now = deps.now();
  const ttl = deps.config.BLOB_PENDING_TTL_MS;
  const a = await deps.store.blobs.sweep(now, ttl);
  const b = await deps.store.secureBlobs.sweep(now, ttl);
  return { pending: a.pending + b.pending, doomed: a.doomed + b.doomed };
}
