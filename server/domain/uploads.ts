import {
  PREVIEW_SIZE,
  type ReceiptRead,
  type UploadResponse,
} from "../../client/shared/contract/documents.ts";
import { commitOnce } from "../store/idempotency.ts";
import { badRequest, HttpError } from "../errors.ts";
import type { Deps } from "./env.ts";
import { translate } from "../i18n.ts";
import type { BlobStore, PendingBlob } from "../store/blobs.ts";
import type { DocumentRecord } from "../store/documents.ts";
import type { TransactionRecord } from "../store/transactions.ts";
import type { User } from "../store/users.ts";
import {
  addRefusal,
  backoff,
  blobsOf,
  docError,
  MAX_DOCUMENTS,
  PREVIEW_MAX_BYTES,
  recount,
  RETRIES,
  toInfo,
  toReceipt,
  type Tr,
} from "./documents.ts";
import { allowedExtensions, checkFile, extensionOf, imageSize, sniff } from "./file_types.ts";
import { ownTransaction } from "./transactions.ts";

// spec §7 pwaauploaddocument, pwacheckupload, pwacheckdocumentcontent: what a file
// must be to be attached, and the attach itself. The file (and its device-made preview) are
// written to the blob store first, pending; one atomic write then checks the transaction's
// version, adds the document, commits the blobs and updates the transaction's counts, so a
// failure at any point leaves no document and only pending chunks, which the sweep removes.

export { PREVIEW_MAX_BYTES } from "./documents.ts";

/** 10485760 → '10 MB'. */
export function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${Math.floor(bytes / 1024)} kB`;
}

/** The extensions the organisation accepts that we can check (spec §3 Lists settings). */
export async function allowedFor(deps: Deps): Promise<string[]> {
  return allowedExtensions((await deps.store.org.meta())?.settings.acceptedExtensions);
}

/** spec §7 pwacheckupload: 'OK', or the allowed extensions joined with ", ". */
export async function checkUpload(deps: Deps, extension: string) {
  const allowed = await allowedFor(deps);
  const ok = allowed.includes(extensionOf(extension.includes(".") ? extension : `.${extension}`));
  return { extension: ok ? "OK" : allowed.join(", "), allowed };
}

/** Why a file (name, first bytes, size) would be refused, as an HttpError; null if fine. */
export function fileRefusal(
  tr: Tr,
  deps: Deps,
  allowed: string[],
  name: string,
  head: Uint8Array,
  size: number | undefined,
): HttpError | null {
  const max = deps.config.UPLOAD_MAX_BYTES;
  if (size !== undefined && size > max) {
    return docError(413, tr, "doc.tooLarge", { max: formatSize(max) });
  }
  const c = checkFile(name, head, allowed);
  if (c.ok) return null;
  if (c.reason === "unsupported_type") {
    const e = docError(415, tr, "doc.unsupportedType", undefined, { allowed });
    return new HttpError(415, e.code, `${e.message} ${allowed.join(", ")}`, e.extra);
  }
  const list = allowed.map((x) => x.toUpperCase()).join(", ");
  return docError(415, tr, "doc.badContent", { allowed: list }, { allowed });
}

/** spec §7 pwacheckdocumentcontent: the upload's checks on a name and ≤ 64 first bytes. */
export async function checkContent(
  deps: Deps,
  user: User,
  body: { name: string; head: string; size?: number },
) {
  const tr = await translate(user.locale);
  let head: Uint8Array;
  try {
    head = Uint8Array.from(atob(body.head), (c) => c.charCodeAt(0)).subarray(0, 64);
  } catch {
    throw badRequest("invalid_body", "head: not base64");
  }
  const e = fileRefusal(tr, deps, await allowedFor(deps), body.name, head, body.size);
  if (e) return { result: 0 as const, mimeType: null, message: e.message };
  return { result: 1 as const, mimeType: sniff(head), message: null };
}

/** Where a document goes and what it is (spec §3 Upload form fields). */
export interface AttachTarget {
  record: string;
  record2?: string;
  record3?: string;
  documentType: "receipt" | "document";
  advanced: boolean;
  /** A receipt's fields read on the phone and sent with it. */
  read?: ReceiptRead | null;
}

export interface UploadInput extends AttachTarget {
  name: string;
  data: Uint8Array;
  preview: Uint8Array | null;
}

/** Checks a device-made preview: JPEG or PNG, ≤ 512 KB, long side ≤ 1024 px. */
function checkPreview(tr: Tr, p: Uint8Array): string {
  const type = sniff(p);
  const dims = imageSize(p);
  const bad = () => docError(415, tr, "doc.badPreview", { max: PREVIEW_SIZE });
  if (p.length > PREVIEW_MAX_BYTES) {
    throw docError(413, tr, "doc.badPreview", { max: PREVIEW_SIZE });
  }
  if ((type !== "image/jpeg" && type !== "image/png") || !dims) throw bad();
  if (Math.max(dims.width, dims.height) > PREVIEW_SIZE) throw bad();
  return type;
}

/** What the checks before a file is stored found (planAttach), for finishAttach. */
export interface AttachPlan {
  target: AttachTarget;
  name: string;
  mimeType: string;
  /** Where the file and its preview are stored (the document service's for advanced). */
  blobs: BlobStore;
}

/**
 * spec §5, §7 pwaauploaddocument: what can be checked before the file is stored — the
 * caller's transaction (and the expense and card named with it), the file's name and first
 * bytes (`size` when known), and that the transaction takes documents now. Throws the refusal.
 */
export async function planAttach(
  deps: Deps,
  user: User,
  target: AttachTarget,
  file: { name: string; head: Uint8Array; size?: number },
): Promise<AttachPlan> {
  const tr = await translate(user.locale);
  const t = await ownTransaction(deps, user, target.record);
  if (target.record2 && target.record2 !== t.expenseOid) {
    throw badRequest("invalid_body", "record2: not this transaction's expense");
  }
  if (target.record3 && target.record3 !== t.cardOid) {
    throw badRequest("invalid_body", "record3: not this transaction's card");
  }
  const allowed = await allowedFor(deps);
  const refused = fileRefusal(tr, deps, allowed, file.name, file.head, file.size);
  if (refused) throw refused;
  await addRules(deps, user, t, tr);
  return {
    target,
    name: file.name,
    mimeType: sniff(file.head)!,
    blobs: blobsOf(deps, { advancedSecurity: target.advanced }),
  };
}

/** spec §5: refused, moved and reviewed transactions take no document; at most 20 each. */
async function addRules(deps: Deps, user: User, t: TransactionRecord, tr: Tr) {
  const refusal = addRefusal(t);
  if (refusal) throw docError(409, tr, refusal);
  const n = (await deps.store.documents.byTransaction(user.oid, t.authorizationId)).length;
  if (n >= MAX_DOCUMENTS) throw docError(409, tr, "doc.tooMany", { max: MAX_DOCUMENTS });
}

/** spec §7 pwaauploaddocument: attaches a checked file to the caller's transaction. */
export async function attachDocument(
  deps: Deps,
  user: User,
  input: UploadInput,
): Promise<UploadResponse> {
  const plan = await planAttach(deps, user, input, {
    name: input.name,
    head: input.data,
    size: input.data.length,
  });
  // Checked before the file is stored, as a refusal should cost nothing.
  if (input.preview) checkPreview(await translate(user.locale), input.preview);
  const file = await plan.blobs.write(input.data, deps.now());
  return await finishAttach(deps, user, plan, file, input.preview);
}

/**
 * The rest of an attach once the file is stored (pending, `file`): the preview checked and
 * stored, then one atomic write checks the transaction's version, adds the document, commits
 * the blobs and updates the counts, again after a lost race. A refusal drops the stored blobs;
 * anything else (a crash, a commit whose outcome is unknown) leaves them to the sweep.
 */
export async function finishAttach(
  deps: Deps,
  user: User,
  plan: AttachPlan,
  file: PendingBlob,
  previewBytes: Uint8Array | null,
): Promise<UploadResponse> {
  const tr = await translate(user.locale);
  const { store } = deps;
  const { blobs, target } = plan;
  const written: PendingBlob[] = [file];
  try {
    const previewType = previewBytes ? checkPreview(tr, previewBytes) : null;
    const preview = previewBytes ? await blobs.write(previewBytes, deps.now()) : null;
    if (preview) written.push(preview);
    for (let i = 0; i < RETRIES; i++) {
      if (i > 0) await backoff(i);
      const entry = await store.transactions.get(user.oid, target.record);
      if (!entry.value) throw docError(409, tr, "doc.uploadFailed");
      const t = entry.value;
      await addRules(deps, user, t, tr);
      const now = deps.now();
      const d: DocumentRecord = {
        v: 1,
        oid: crypto.randomUUID(),
        userOid: user.oid,
        authorizationId: t.authorizationId,
        transactionOid: t.oid,
        documentType: target.documentType,
        name: plan.name.slice(0, 255),
        mimeType: plan.mimeType,
        size: file.size,
        blob: { id: file.id, size: file.size, chunks: file.chunks },
        preview: preview
          ? { id: preview.id, size: preview.size, chunks: preview.chunks, mimeType: previewType! }
          : null,
        advancedSecurity: target.advanced,
        note: "",
        read: target.documentType === "receipt" ? target.read ?? null : null,
        createdAt: now,
        updatedAt: now,
        archive: t.archive,
      };
      const counts = recount(t, d, 1);
      const op = store.kv.atomic().check(entry);
      store.documents.put(op, d);
      blobs.commit(op, file);
      if (preview) blobs.commit(op, preview);
      store.transactions.put(op, { ...t, ...counts, updatedAt: now });
      await deps.faults?.beforeCommit?.("document");
      if (!(await commitOnce(op)).ok) {
        // Lost a race on the transaction, or our pending blobs were swept: which one?
        if (await sweptMeanwhile(deps, target.advanced, written)) {
          throw docError(409, tr, "doc.uploadFailed");
        }
        continue;
      }
      return {
        document: toInfo(d, 1),
        receipt: d.documentType === "receipt" ? toReceipt(d, 1) : null,
        ...counts,
      };
    }
    throw new HttpError(409, "conflict", tr("request.busy"));
  } catch (err) {
    // A refusal: drop what was written now. Anything else (a crash) is left to the sweep.
    if (err instanceof HttpError) await Promise.all(written.map((b) => blobs.purge(b)));
    throw err;
  }
}

async function sweptMeanwhile(deps: Deps, advanced: boolean, blobs: PendingBlob[]) {
  const prefix = blobsOf(deps, { advancedSecurity: advanced }).prefix;
  for (const b of blobs) {
    const m = await deps.store.kv.get([...prefix, "pending", b.id]);
    if (m.versionstamp !== b.versionstamp) return true;
  }
  return false;
}

/** The largest upload body: the file, its preview and room for the multipart framing. */
export const uploadBodyLimit = (config: Deps["config"]) =>
  config.UPLOAD_MAX_BYTES + PREVIEW_MAX_BYTES + 64 * 1024;
