import type { EditBody } from "../../client/shared/contract/request_bodies.ts";
import { conflict, forbidden, HttpError, notFound } from "../errors.ts";
import type { Deps } from "./env.ts";
import { notifyAfter } from "./events.ts";
import { translate } from "../i18n.ts";
import type { ApprovalRecord } from "../store/approvals.ts";
import type { CommentRecord } from "../store/comments.ts";
import type { RequestRecord } from "../store/requests.ts";
import type { User } from "../store/users.ts";
import { isClosed, type RequestFlags, requestFlags } from "./request_flags.ts";
import { broken, notAllowed, RETRIES, type Tr } from "./request_checks.ts";
import { typeOf } from "./request_views.ts";
import { barredAfter, checkedEdit, reissueNote } from "./request_edit.ts";
import { closeCardOf } from "./cards.ts";
import { endsMoved, transactionsOfRequest } from "./flip.ts";
import { newComment, publishAdded } from "./comments.ts";
import { needsNewApproval, newApproval } from "./workflow.ts";

// Changes to an existing request (spec §4): submit, edit, cancel, close, decisions.

/**
 * Reads the caller's request, lets `change` compute its next state (checking flags and
 * adding related writes to the same atomic operation) and commits only if nothing changed
 * meanwhile. On a lost race it reads again and re-decides: a cancel racing a close sees the
 * other's result and is refused by the flags, so exactly one of them wins.
 */
async function mutate(
  deps: Deps,
  user: User,
  oid: string,
  change: (r: RequestRecord, flags: RequestFlags, op: Deno.AtomicOperation) =>
    | Promise<RequestRecord>
    | RequestRecord,
  /** Whose request it is: the caller's own, unless an approver edits it (spec §4). */
  ownerOid: string = user.oid,
): Promise<RequestRecord> {
  const { requests, kv } = deps.store;
  for (let i = 0; i < RETRIES; i++) {
    const entry = await requests.get(ownerOid, oid);
    if (!entry.value) throw notFound();
    const op = kv.atomic().check(entry);
    const next = await change(entry.value, requestFlags(entry.value, ownerOid), op);
    next.updatedAt = deps.now();
    if ((await requests.put(op, next).commit()).ok) return next;
  }
  throw conflict((await translate(user.locale))("request.busy"));
}

/**
 * Closes the request's card at the issuer when the caller may end the request: closing is
 * final, so it is done before the request is written. Answers whether this call closed a card
 * (or found it closed): then the request is as good as ended by this call, and the write that
 * follows completes it even when a card read got in first and recorded the card Closed.
 */
async function closeCardFirst(
  deps: Deps,
  user: User,
  oid: string,
  allowed: (f: RequestFlags) => boolean,
  tr: Tr,
): Promise<boolean> {
  const r = (await deps.store.requests.get(user.oid, oid)).value;
  if (!r) throw notFound();
  if (!allowed(requestFlags(r, user.oid))) throw notAllowed(tr);
  return (await closeCardOf(deps, r))?.status === "closed";
}

/**
 * spec §4 (a closed card is read-only): a request whose only reason to refuse close or cancel
 * is its card being Closed, when this very call closed that card. A card read syncing the
 * issuer's state (or the other of close/cancel) between the issuer's close and the request's
 * write must not turn the caller's own close or cancel into a 403 with the card already closed.
 */
function endedByOwnClose(r: RequestRecord, userOid: string, closedCard: boolean): boolean {
  return closedCard && r.authorOid === userOid && isClosed(r) &&
    (r.status === "new" || r.status === "requested" || r.status === "accepted");
}

/** Adds the writes that cancel a request's open approval (checked against concurrent votes). */
export async function cancelApproval(
  deps: Deps,
  r: RequestRecord,
  op: Deno.AtomicOperation,
): Promise<string | null> {
  if (!r.approvalOid) return null;
  const a = await deps.store.approvals.get(r.approvalOid);
  if (!a.value || a.value.statusCode !== "new") return null;
  op.check(a);
  deps.store.approvals.put(op, {
    ...a.value,
    statusCode: "cancelled",
    levels: a.value.levels.map((l) =>
      l.statusCode === "open" || l.statusCode === "pending" ? { ...l, statusCode: "cancelled" } : l
    ),
  });
  return a.value.oid;
}

async function openApproval(
  deps: Deps,
  tr: Tr,
  r: RequestRecord,
  op: Deno.AtomicOperation,
  barred?: ApprovalRecord["barred"],
): Promise<ApprovalRecord> {
  const type = await typeOf(deps, r.typeOid);
  if (!type) throw broken(tr, "request.typeUnknown");
  const seq = (await deps.store.approvals.byRequest(r.oid)).length + 1;
  const a = { ...newApproval(r, type, deps.now(), seq), ...(barred?.length ? { barred } : {}) };
  op.check({ key: ["approval", a.oid], versionstamp: null });
  deps.store.approvals.put(op, a);
  // spec §1 push notifications: the first level's approvers hear of it, durably with the write.
  const first = a.levels[0];
  notifyAfter(op, deps.now(), {
    type: "approval.opened",
    approvalOid: a.oid,
    requestOid: r.oid,
    level: first.level,
    teamOids: first.teamOids,
  });
  return a;
}

/** spec §4 submit flow: new → requested, with its approval request opened at level 1. */
export async function submitRequest(deps: Deps, user: User, oid: string): Promise<RequestRecord> {
  const tr = await translate(user.locale);
  let approval: ApprovalRecord | null = null;
  const rec = await mutate(deps, user, oid, async (r, f, op) => {
    if (!f.canSubmit) throw notAllowed(tr);
    approval = await openApproval(deps, tr, r, op);
    return { ...r, status: "requested", approvalOid: approval.oid };
  });
  await deps.faults?.afterCommit?.("request.submit");
  await publishOpened(deps, rec, approval!);
  return rec;
}

async function publishOpened(deps: Deps, r: RequestRecord, a: ApprovalRecord) {
  await deps.events.publish({
    type: "request.submitted",
    userOid: r.authorOid,
    requestOid: r.oid,
    approvalOid: a.oid,
  });
  const first = a.levels[0];
  await deps.events.publish({
    type: "approval.opened",
    approvalOid: a.oid,
    requestOid: r.oid,
    level: first.level,
    teamOids: first.teamOids,
  });
}

/** spec §7 pwacheckneedrecreate: sameAP is false when the edit needs a new approval. */
export async function checkNeedRecreate(deps: Deps, user: User, e: EditBody): Promise<boolean> {
  const tr = await translate(user.locale);
  const entry = await deps.store.requests.get(user.oid, e.oid);
  if (!entry.value) throw notFound();
  if (!requestFlags(entry.value, user.oid).canEdit) throw notAllowed(tr);
  const edit = await checkedEdit(deps, tr, entry.value, e);
  return !needsNewApproval(entry.value, { ...entry.value, ...edit });
}

/**
 * spec §7 pwamodify and pwareissueapproval. A modify that would need a new approval is
 * refused (409 reissue_required) so approvals are never silently kept for changed facts;
 * a reissue cancels the open approval and opens a new one (status back to requested).
 */
export async function modifyRequest(
  deps: Deps,
  user: User,
  e: EditBody,
  mode: "modify" | "reissue",
  /**
   * An approver's edit of someone else's request (spec §4 'cancel and recreate the
   * approval?'): allowed only while that approval is the request's open one, which the same
   * atomic operation cancels and recreates. The caller has checked the approver's flags.
   */
  asApprover?: { authorOid: string; approvalOid: string },
): Promise<RequestRecord> {
  const tr = await translate(user.locale);
  let opened: ApprovalRecord | null = null;
  let cancelled: string | null = null;
  let note: CommentRecord | null = null;
  const rec = await mutate(deps, user, e.oid, async (r, f, op) => {
    if (!f.canEdit) throw notAllowed(tr);
    const edit = await checkedEdit(deps, tr, r, e, !!asApprover);
    const next: RequestRecord = { ...r, ...edit };
    if (asApprover) {
      if (r.status !== "requested" || r.approvalOid !== asApprover.approvalOid) {
        throw forbidden("decided", tr("approval.decided"));
      }
      const current = await deps.store.approvals.get(asApprover.approvalOid);
      if (!current.value || current.value.statusCode !== "new") {
        throw forbidden("decided", tr("approval.decided"));
      }
      // spec §4: a change the approvers' decisions do not depend on keeps the approval.
      op.check(current);
      if (!needsNewApproval(r, next)) {
        opened = null;
        note = null;
        return next;
      }
      cancelled = await cancelApproval(deps, r, op);
      if (!cancelled) throw forbidden("decided", tr("approval.decided"));
      opened = await openApproval(deps, tr, next, op, barredAfter(current.value, user.oid));
      note = newComment(deps, user, r.oid, await reissueNote(deps, r, next, current.value, user));
      deps.store.comments.put(op, note);
      return { ...next, approvalOid: opened.oid, approverNote: null };
    }
    if (mode === "modify" || r.status === "new") {
      if (needsNewApproval(r, next)) {
        throw new HttpError(409, "reissue_required", tr("request.reissueRequired"));
      }
      opened = null;
      return next;
    }
    cancelled = await cancelApproval(deps, r, op);
    opened = await openApproval(deps, tr, next, op);
    return { ...next, status: "requested", approvalOid: opened.oid, approverNote: null };
  }, asApprover?.authorOid);
  if (cancelled) {
    await deps.events.publish({
      type: "approval.cancelled",
      approvalOid: cancelled,
      requestOid: rec.oid,
    });
  }
  await deps.events.publish({
    type: "request.modified",
    userOid: rec.authorOid,
    requestOid: rec.oid,
    reissued: opened !== null,
  });
  if (opened) await publishOpened(deps, rec, opened);
  if (note) await publishAdded(deps, note);
  return rec;
}

/** spec §4 cancel: allowed by canCancel; an open approval is cancelled with it. */
export async function cancelRequest(deps: Deps, user: User, oid: string): Promise<RequestRecord> {
  const tr = await translate(user.locale);
  let cancelled: string | null = null;
  // A card is closed at the issuer first (final), then the request says so.
  const card = await closeCardFirst(deps, user, oid, (f) => f.canCancel, tr);
  const rec = await mutate(deps, user, oid, async (r, f, op) => {
    if (!f.canCancel && !endedByOwnClose(r, user.oid, card)) throw notAllowed(tr);
    cancelled = await cancelApproval(deps, r, op);
    return {
      ...r,
      status: "cancelled",
      openCard: false,
      cardStatusCode: card || r.hasCard ? "Closed" : r.cardStatusCode,
    };
  });
  if (cancelled) {
    await deps.events.publish({
      type: "approval.cancelled",
      approvalOid: cancelled,
      requestOid: oid,
    });
  }
  await deps.events.publish({ type: "request.cancelled", userOid: user.oid, requestOid: oid });
  return rec;
}

/** spec §4 close: allowed by canClose; the request's card is closed (wallet filter Closed). */
export async function closeRequest(deps: Deps, user: User, oid: string): Promise<RequestRecord> {
  const tr = await translate(user.locale);
  const card = await closeCardFirst(deps, user, oid, (f) => f.canClose, tr);
  let closed = true;
  const rec = await mutate(deps, user, oid, async (r, f, op) => {
    if (f.canClose || endedByOwnClose(r, user.oid, card)) {
      closed = true;
      const next: RequestRecord = { ...r, cardStatusCode: "Closed", openCard: false };
      // spec §4 `moved`: a card closed after all it spent was flipped elsewhere (flip.ts).
      const txs = r.flips ? await transactionsOfRequest(deps, op, r.authorOid, r.oid) : [];
      return endsMoved(next, txs) ? { ...next, status: "moved" } : next;
    }
    // A cancel of the same request that closed the card too got its write in first: the
    // card this close asked to close is closed and the request ended; nothing is left to do.
    if (card && r.authorOid === user.oid && r.status === "cancelled" && isClosed(r)) {
      closed = false;
      return r;
    }
    throw notAllowed(tr);
  });
  if (closed) {
    await deps.events.publish({ type: "request.closed", userOid: user.oid, requestOid: oid });
  }
  return rec;
}

/**
 * Applies an approval's outcome to its request outside a vote (tests and operator tools;
 * the voting workflow uses {@link decidedRequest} inside its own atomic write).
 */
export async function recordDecision(
  deps: Deps,
  approvalOid: string,
  outcome: "accepted" | "rejected",
  approverNote: string | null = null,
): Promise<RequestRecord | null> {
  const a = (await deps.store.approvals.get(approvalOid)).value;
  if (!a) return null;
  const author = await deps.store.users.get(a.authorOid);
  if (!author) return null;
  let changed = false;
  const rec = await mutate(deps, author, a.requestOid, (r, _f, op) => {
    const next = decidedRequest(r, approvalOid, outcome, approverNote);
    changed = next !== null;
    if (next) notifyDecided(op, deps.now(), r, outcome);
    return next ?? r;
  });
  if (changed) await publishDecided(deps, rec, outcome);
  return rec;
}

/**
 * The request once its approval has an outcome, or null when that approval no longer
 * decides it (the request was cancelled, or its approval reissued). Pure; the voting
 * workflow writes it in the same atomic operation as the deciding vote.
 */
export function decidedRequest(
  r: RequestRecord,
  approvalOid: string,
  outcome: "accepted" | "rejected",
  approverNote: string | null,
): RequestRecord | null {
  if (r.status !== "requested" || r.approvalOid !== approvalOid) return null;
  return { ...r, status: outcome, approverNote };
}

/** The author hears of the outcome (spec §1 push notifications), durably with the write. */
export function notifyDecided(
  op: Deno.AtomicOperation,
  now: number,
  r: Pick<RequestRecord, "authorOid" | "oid">,
  outcome: "accepted" | "rejected",
): void {
  notifyAfter(op, now, {
    type: "request.decided",
    userOid: r.authorOid,
    requestOid: r.oid,
    statusCode: outcome,
  });
}

export async function publishDecided(
  deps: Deps,
  r: Pick<RequestRecord, "authorOid" | "oid">,
  outcome: "accepted" | "rejected",
): Promise<void> {
  await deps.events.publish({
    type: "request.decided",
    userOid: r.authorOid,
    requestOid: r.oid,
    statusCode: outcome,
  });
}
