import { HttpError } from "../errors.ts";
import type { Deps } from "./env.ts";
import { translate } from "../i18n.ts";
import { issueToken } from "./document_tokens.ts";
import type { User } from "../store/users.ts";
import {
  backoff,
  blobsOf,
  deletable,
  docError,
  ownDocument,
  recount,
  RETRIES,
  type Tr,
} from "./documents.ts";

// spec §7 pwadeletedocument (a change by GET) and the document service's remote delete:
// the record goes, its blobs are marked for sweeping and the transaction's counts change in
// one atomic write checked against both the document and the transaction; the chunks are
// deleted right after (a crash in between is finished by the sweep).

/** Where the document service deletes an advanced-security document (spec §7). */
export const remoteUrlOf = (oid: string) => `/docservice/documents/${encodeURIComponent(oid)}`;

/**
 * spec §7 pwadeletedocument: a local document is deleted now; an advanced-security one is
 * left to the document service (canDeleteLocal false, its URL and a 2-minute token).
 */
export async function removeDocument(deps: Deps, user: User, oid: string) {
  const tr = await translate(user.locale);
  const { doc, tx } = await ownDocument(deps, user.oid, oid);
  if (!deletable(tx.value)) throw docError(409, tr, "doc.notDeletable");
  if (doc.value.advancedSecurity) {
    return {
      canDeleteLocal: false,
      remoteUrl: remoteUrlOf(oid),
      remoteToken: await issueToken(deps.store.kv, oid, "delete", deps.now()),
      nbReceipts: tx.value.nbReceipts,
      nbDocuments: tx.value.nbDocuments,
    };
  }
  const counts = await deleteDocument(deps, user.oid, oid, tr);
  return { canDeleteLocal: true, remoteUrl: null, remoteToken: null, ...counts };
}

/** Deletes a document of `userOid` (local or advanced); the transaction's new counts. */
export async function deleteDocument(deps: Deps, userOid: string, oid: string, tr: Tr) {
  const { store } = deps;
  for (let i = 0; i < RETRIES; i++) {
    if (i > 0) await backoff(i);
    const { doc, tx } = await ownDocument(deps, userOid, oid);
    if (!deletable(tx.value)) throw docError(409, tr, "doc.notDeletable");
    const d = doc.value;
    const now = deps.now();
    const counts = recount(tx.value, d, -1);
    const blobs = blobsOf(deps, d);
    const op = store.kv.atomic().check(doc, tx);
    store.documents.remove(op, d);
    blobs.doom(op, d.blob, now);
    if (d.preview) blobs.doom(op, d.preview, now);
    store.transactions.put(op, { ...tx.value, ...counts, updatedAt: now });
    if (!(await op.commit()).ok) continue;
    await blobs.purge(d.blob);
    if (d.preview) await blobs.purge(d.preview);
    return counts;
  }
  throw new HttpError(409, "conflict", tr("request.busy"));
}
