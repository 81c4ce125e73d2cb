import type { Comment } from "../../client/shared/contract/requests.ts";
import { commitOnce } from "../store/idempotency.ts";
import { conflict, forbidden, notFound } from "../errors.ts";
import type { Deps } from "./env.ts";
import { translate } from "../i18n.ts";
import type { CommentRecord } from "../store/comments.ts";
import type { User } from "../store/users.ts";
import { requestFlags } from "./request_flags.ts";
import { ownRequest } from "./request_views.ts";

/** spec §3 comment, with canBeDeleted for the caller: own comments on a writable request. */
export function toComment(c: CommentRecord, deletable: boolean): Comment {
  return {
    oid: c.oid,
    sourceEntityOid: c.sourceOid,
    archive: c.archive,
    comment: { author: c.authorOid, fName: c.fName, lName: c.lName, text: c.text },
    createdate: new Date(c.createdAt).toISOString(),
    canBeDeleted: deletable,
  };
}

/** A new comment by `user` on any entity (requests, approvals). */
export function newComment(deps: Deps, user: User, sourceOid: string, text: string): CommentRecord {
  return {
    oid: crypto.randomUUID(),
    sourceOid,
    authorOid: user.oid,
    fName: user.fname,
    lName: user.lname,
    text,
    createdAt: deps.now(),
    archive: false,
  };
}

export async function publishAdded(deps: Deps, c: CommentRecord): Promise<void> {
  await deps.events.publish({
    type: "comment.added",
    userOid: c.authorOid,
    sourceOid: c.sourceOid,
    commentOid: c.oid,
  });
}

/** A request's comments, oldest first (spec §2 request detail). */
export async function listComments(deps: Deps, user: User, requestOid: string): Promise<Comment[]> {
  const r = await ownRequest(deps, user, requestOid);
  const writable = requestFlags(r, user.oid).canComment;
  return (await deps.store.comments.bySource(r.oid))
    .map((c) => toComment(c, writable && c.authorOid === user.oid));
}

/** spec §7 pwaaddcomment; written only if the request did not change meanwhile. */
export async function addComment(
  deps: Deps,
  user: User,
  requestOid: string,
  text: string,
): Promise<Comment> {
  const tr = await translate(user.locale);
  const { requests, comments, kv } = deps.store;
  for (let i = 0; i < 5; i++) {
    const entry = await requests.get(user.oid, requestOid);
    if (!entry.value) throw notFound();
    if (!requestFlags(entry.value, user.oid).canComment) {
      throw forbidden("not_allowed", tr("comment.notAllowed"));
    }
    const c = newComment(deps, user, requestOid, text);
    if ((await commitOnce(comments.put(kv.atomic().check(entry), c))).ok) {
      await publishAdded(deps, c);
      return toComment(c, true);
    }
  }
  throw conflict(tr("request.busy"));
}

/** The caller's own transaction, or 404 (no existence leak for other users' oids). */
async function ownTransaction(deps: Deps, user: User, oid: string) {
  const entry = await deps.store.transactions.get(user.oid, oid);
  if (!entry.value) throw notFound();
  return entry;
}

/** A transaction's comments, oldest first (spec §2 transaction detail); the author's own deletable. */
export async function listTransactionComments(
  deps: Deps,
  user: User,
  oid: string,
): Promise<Comment[]> {
  const t = (await ownTransaction(deps, user, oid)).value!;
  return (await deps.store.comments.bySource(t.oid))
    .map((c) => toComment(c, c.authorOid === user.oid));
}

/** A comment on the caller's transaction, written only if the transaction did not change. */
export async function addTransactionComment(
  deps: Deps,
  user: User,
  oid: string,
  text: string,
): Promise<Comment> {
  const tr = await translate(user.locale);
  for (let i = 0; i < 5; i++) {
    const entry = await ownTransaction(deps, user, oid);
    const c = newComment(deps, user, oid, text);
    if ((await commitOnce(deps.store.comments.put(deps.store.kv.atomic().check(entry), c))).ok) {
      await publishAdded(deps, c);
      return toComment(c, true);
    }
  }
  throw conflict(tr("request.busy"));
}

/** spec §7 pwadeletecomment: only where canBeDeleted would be true. */
export async function deleteComment(deps: Deps, user: User, commentOid: string): Promise<void> {
  const tr = await translate(user.locale);
  const { requests, comments, kv } = deps.store;
  const entry = await comments.get(commentOid);
  if (!entry?.value) throw notFound();
  const c = entry.value;
  // The caller's request or transaction, else 404 as if the comment did not exist.
  const req = await requests.get(user.oid, c.sourceOid);
  const tx = req.value ? null : await deps.store.transactions.get(user.oid, c.sourceOid);
  if (!req.value && !tx?.value) throw notFound();
  const writable = req.value ? requestFlags(req.value, user.oid).canComment : true;
  if (c.authorOid !== user.oid || !writable) {
    throw forbidden("not_allowed", tr("comment.notDeletable"));
  }
  const ok = (await comments.delete(kv.atomic().check(entry).check(req.value ? req : tx!), c)
    .commit()).ok;
  if (!ok) throw conflict(tr("request.busy"));
  await deps.events.publish({
    type: "comment.deleted",
    userOid: user.oid,
    sourceOid: c.sourceOid,
    commentOid,
  });
}
