import type { ApprovalRequest, ApprovalRow } from "../../client/shared/contract/approvals.ts";
import { commitOnce } from "../store/idempotency.ts";
import type { Comment } from "../../client/shared/contract/requests.ts";
import type { EditBody } from "../../client/shared/contract/request_bodies.ts";
import { splitAmount } from "../../client/shared/money.ts";
import { conflict, forbidden, notFound, unprocessable } from "../errors.ts";
import type { Deps } from "./env.ts";
import { translate } from "../i18n.ts";
import type { ApprovalRecord } from "../store/approvals.ts";
import type { OrgAccount, OrgType } from "../store/org.ts";
import { membersOf, type OrgSnapshot } from "../store/org_cache.ts";
import type { RequestRecord } from "../store/requests.ts";
import type { User } from "../store/users.ts";
import { teamChannel } from "../store/changes.ts";
import { newComment, publishAdded, toComment } from "./comments.ts";
import { subTypeOf } from "./request_views.ts";
import { decidedRequest, modifyRequest, notifyDecided, publishDecided } from "./requests.ts";
import { notifyAfter } from "./events.ts";
import { codesIn, labelIn } from "../org/labels.ts";
import {
  applyVote,
  approvalFlags,
  canSee,
  reachableTeams,
  readOnlyReason,
} from "./approval_rules.ts";
import { inAccountCurrency, readOnlyOf } from "./approval_view.ts";

const RETRIES = 8;

/** The organisation as decisions see it: kept behind its version (store/org_cache.ts). */
type Context = OrgSnapshot;

async function context(deps: Deps, version?: Deno.KvEntryMaybe<unknown>): Promise<Context> {
  return await deps.store.orgCache.snapshot(version);
}

const fullName = (u: User | undefined) => (u ? `${u.fname} ${u.lname}` : "");

/** The caller's last approve or reject vote on the approval (a review is no decision). */
function myVote(a: ApprovalRecord, user: User): "approved" | "rejected" | null {
  const v = a.votes.findLast((x) =>
    x.userOid === user.oid && (x.statusCode === "approved" || x.statusCode === "rejected")
  );
  return v ? v.statusCode as "approved" | "rejected" : null;
}

function toRow(
  a: ApprovalRecord,
  r: RequestRecord | null,
  type: OrgType | null,
  user: User,
  ctx: Context,
): ApprovalRow {
  const f = approvalFlags(a, user, ctx.teams);
  const purpose = r?.purpose ?? "";
  // The organisation's words in the approver's language, resolved now (not as written).
  const codes = r ? codesIn(r, user.locale) : { costCenter: "", GLCode: "", projectCode: "" };
  return {
    oid: a.oid,
    id: a.id,
    archive: a.archive,
    statusCode: a.statusCode,
    issueDate: new Date(a.createdAt).toISOString(),
    costCenter: codes.costCenter,
    description: `${labelIn(type?.description, user.locale)}: ${purpose} [${
      a.amount.toFixed(2)
    } ${a.currency}]`,
    amount: a.amount,
    pricingCurrency: a.currency,
    purpose,
    author: fullName(ctx.users.get(a.authorOid)),
    authorOid: a.authorOid,
    sourceEntityId: r?.id ?? "",
    sourceEntityOid: a.requestOid,
    typeOid: a.typeOid,
    type: labelIn(type?.description, user.locale),
    costCenterOid: r?.costCenterOid ?? null,
    GLOid: r?.GLOid ?? null,
    GLCode: codes.GLCode,
    projectOid: r?.projectOid ?? null,
    projectCode: codes.projectCode,
    ...f,
    myVote: myVote(a, user),
  };
}

/** What an approval's entity shows beside the approval: read at once (entityParts). */
interface EntityParts {
  r: RequestRecord | null;
  type: OrgType | null;
  account: OrgAccount | null;
  /** The caller has commented on the approval (a reject note). */
  commented: boolean;
}

/** The request, its type and account (kept with the organisation), the caller's comments. */
async function entityParts(
  deps: Deps,
  a: ApprovalRecord,
  user: User,
  ctx: Context,
): Promise<EntityParts> {
  const [req, comments] = await Promise.all([
    deps.store.requests.get(a.authorOid, a.requestOid),
    deps.store.comments.bySource(a.oid),
  ]);
  const r = req.value;
  return {
    r,
    type: ctx.types.get(a.typeOid) ?? null,
    account: r ? ctx.accounts.get(r.accountOid) ?? null : null,
    commented: comments.some((c) => c.authorOid === user.oid),
  };
}

async function toEntity(
  deps: Deps,
  a: ApprovalRecord,
  user: User,
  ctx: Context,
  parts?: EntityParts,
) {
  const { r, type, account, commented } = parts ?? await entityParts(deps, a, user, ctx);
  const members = (teamOid: string) =>
    membersOf(ctx, teamOid)
      .filter((u) => u.isApprover)
      .map((u) => ({ fname: u.fname, lname: u.lname }));
  const teamUsers: Record<string, { fname: string; lname: string }[]> = {};
  for (const l of a.levels) for (const t of l.teamOids) teamUsers[t] = members(t);
  const entity: ApprovalRequest = {
    ...toRow(a, r, type, user, ctx),
    ...splitAmount(a.amount),
    approvalAccount: labelIn(account?.label, user.locale),
    subType: subTypeOf(type, user.locale),
    pollLevels: a.levels.map((l) => ({
      level: l.level,
      actionDescription: l.actionDescription,
      statusCode: l.statusCode,
      quota: l.quota,
      pollTeams: l.teamOids.map((t) => {
        const team = ctx.teams.get(t);
        const d = team?.delegatingTeamOid ? ctx.teams.get(team.delegatingTeamOid) : undefined;
        return {
          teamName: team?.teamName ?? t,
          teamOid: t,
          delegatingTeamName: d?.teamName ?? null,
          createdate: l.openedAt ? new Date(l.openedAt).toISOString() : null,
        };
      }),
    })),
    teamUsers,
    votes: votesOf(a, ctx),
    hasRejectNote: commented,
    budget: r?.budget ?? [],
    accountAmount: inAccountCurrency(deps.issuer.rates(), a.amount, a.currency, account?.currency),
    readOnly: readOnlyOf(
      readOnlyReason(a, user, ctx.teams),
      (oid) => fullName(ctx.users.get(oid)),
    ),
  };
  return entity;
}

function votesOf(a: ApprovalRecord, ctx: Context) {
  return a.votes.map((v) => ({
    userFullName: fullName(ctx.users.get(v.userOid)),
    statusCode: v.statusCode,
    createdate: new Date(v.createdAt).toISOString(),
    level: v.level,
    isDelegated: v.isDelegated,
  }));
}

/** An approval the user may see, or 404 (no existence leak). */
async function visible(deps: Deps, user: User, oid: string, ctx: Context) {
  const entry = await deps.store.approvals.get(oid);
  if (!entry.value || !canSee(entry.value, user, ctx.teams)) throw notFound();
  return entry;
}

/** Of a team's decided approvals, the approvers' list shows the newest this many (spec-differences). */
export const APPROVAL_HISTORY = 500;

/** spec §7 pwalistrequests: the approvals of the caller's teams, newest first. */
export async function listApprovals(deps: Deps, user: User): Promise<ApprovalRow[]> {
  const ctx = await context(deps);
  const list = (await deps.store.approvals.listRecent(
    reachableTeams(user, ctx.teams),
    APPROVAL_HISTORY,
  )).filter((a) => a.authorOid !== user.oid);
  list.sort((a, b) => b.createdAt - a.createdAt);
  const requests = await deps.store.requests.getAll(list.map((a) => [a.authorOid, a.requestOid]));
  return list.map((a, i) => toRow(a, requests[i], ctx.types.get(a.typeOid) ?? null, user, ctx));
}

export async function approvalDetails(deps: Deps, user: User, oid: string) {
  const ctx = await context(deps);
  return await toEntity(deps, (await visible(deps, user, oid, ctx)).value!, user, ctx);
}

export async function approvalVotes(deps: Deps, user: User, oid: string) {
  const ctx = await context(deps);
  return votesOf((await visible(deps, user, oid, ctx)).value!, ctx);
}

export async function approvalComments(deps: Deps, user: User, oid: string): Promise<Comment[]> {
  const ctx = await context(deps);
  await visible(deps, user, oid, ctx);
  return (await deps.store.comments.bySource(oid)).map((c) => toComment(c, false));
}

/**
 * spec §7 pwacomments: approvers comment while the approval is open (the reject note).
 * Written only if the approval is still the version the rule was checked on: a decision
 * landing meanwhile makes the write fail, and the re-read refuses it like any late comment.
 */
export async function addApprovalComment(deps: Deps, user: User, oid: string, text: string) {
  const tr = await translate(user.locale);
  const ctx = await context(deps);
  const { comments, kv } = deps.store;
  for (let i = 0; i < RETRIES; i++) {
    const entry = await visible(deps, user, oid, ctx);
    if (entry.value!.statusCode !== "new") throw forbidden("decided", tr("approval.decided"));
    const c = newComment(deps, user, oid, text);
    const readers = entry.value!.levels.flatMap((l) => l.teamOids).map(teamChannel);
    if ((await commitOnce(comments.put(kv.atomic().check(entry), c, readers))).ok) {
      await publishAdded(deps, c);
      return toComment(c, false);
    }
  }
  throw conflict(tr("request.busy"));
}

/**
 * spec §4 approval actions: approve or reject, in status new, with the caller's flags.
 * The vote, the level change and (when final) the request's new status are one KV atomic
 * operation checked against both records' versions; a lost race re-reads and re-decides,
 * so concurrent decisions never count a vote twice nor produce two outcomes.
 */
export async function decide(
  deps: Deps,
  user: User,
  oid: string,
  decision: "approved" | "rejected",
  reason?: string,
) {
  const given = decision === "rejected" ? reason?.trim() || null : null;
  const { approvals, requests, kv } = deps.store;
  // The organisation's teams and users, the approval, its request (when this process knows
  // which) and the approval's comments: one round trip, all at once. Nothing is written or
  // answered before the caller's right to the approval is checked (visible, flags).
  const [tr, first, firstComments] = await Promise.all([
    translate(user.locale),
    approvals.withRequest<RequestRecord>(oid, (author, request) => requests.key(author, request)),
    deps.store.comments.bySource(oid),
  ]);
  const ctx = await context(deps, first.version);
  for (let i = 0; i < RETRIES; i++) {
    const entry = i === 0 ? first.approval : await approvals.get(oid);
    if (!entry.value || !canSee(entry.value, user, ctx.teams)) throw notFound();
    const a = entry.value;
    if (a.statusCode !== "new") throw forbidden("decided", tr("approval.decided"));
    const f = approvalFlags(a, user, ctx.teams);
    if (!(decision === "approved" ? f.canApprove : f.canReject)) {
      throw forbidden("not_allowed", tr("approval.notAllowed"));
    }
    // What the answer shows and a decision needs, read at once: the request (its status
    // changes with the last level), its type (reject notes), the approval's comments.
    const [req, comments] = i === 0
      ? [first.request ?? await requests.get(a.authorOid, a.requestOid), firstComments]
      : await Promise.all([
        requests.get(a.authorOid, a.requestOid),
        deps.store.comments.bySource(a.oid),
      ]);
    const type = ctx.types.get(a.typeOid) ?? null;
    // The caller's comments matter only to a rejection: the comment added first is the
    // note (spec §4 flow), unless a reason comes with the rejection itself.
    const mine = comments.filter((c) => c.authorOid === user.oid);
    if (decision === "rejected") {
      // spec §4/§6: some types need a reject note: a comment first (or the reason given
      // with the rejection), then the rejection.
      if (type?.requireRejectNote && mine.length === 0 && !given) {
        throw unprocessable("reject_note_required", tr("approval.rejectNoteRequired"));
      }
    }
    const open = a.levels.find((l) => l.statusCode === "open")!;
    const next = applyVote(a, {
      userOid: user.oid,
      level: open.level,
      statusCode: decision,
      isDelegated: f.isDelegated,
      createdAt: deps.now(),
    }, deps.now());
    const op = kv.atomic().check(entry);
    approvals.put(op, next);
    // The reason given with the rejection is stored as the approver's comment in the same
    // operation as the vote: both land, or neither.
    const noteComment = given ? newComment(deps, user, a.oid, given) : null;
    if (noteComment) deps.store.comments.put(op, noteComment);
    let outcome: "accepted" | "rejected" | null = null;
    let r = req.value;
    if (next.statusCode !== "new") {
      const result = next.statusCode === "approved" ? "accepted" : "rejected";
      const note = decision === "rejected" ? (given ?? mine[mine.length - 1]?.text ?? null) : null;
      const decided = req.value && decidedRequest(req.value, a.oid, result, note);
      if (decided) {
        outcome = result;
        r = { ...decided, updatedAt: deps.now() };
        op.check(req);
        requests.put(op, r);
        notifyDecided(op, deps.now(), { authorOid: a.authorOid, oid: a.requestOid }, result);
      }
    }
    // The next level's approvers hear of it (spec §1 push notifications), durably with the vote.
    const nextLevel = next.levels.find((l) => l.statusCode === "open");
    if (nextLevel && nextLevel.level !== open.level) {
      notifyAfter(op, deps.now(), {
        type: "approval.opened",
        approvalOid: a.oid,
        requestOid: a.requestOid,
        level: nextLevel.level,
        teamOids: nextLevel.teamOids,
      });
    }
    if (!(await op.commit()).ok) continue;
    const account = r ? ctx.accounts.get(r.accountOid) ?? null : null;
    if (noteComment) await publishAdded(deps, noteComment);
    const opened = next.levels.find((l) => l.statusCode === "open");
    if (opened && opened.level !== open.level) {
      await deps.events.publish({
        type: "approval.opened",
        approvalOid: a.oid,
        requestOid: a.requestOid,
        level: opened.level,
        teamOids: opened.teamOids,
      });
    }
    if (outcome) await publishDecided(deps, { authorOid: a.authorOid, oid: a.requestOid }, outcome);
    return await toEntity(deps, next, user, ctx, {
      r,
      type,
      account,
      commented: mine.length > 0 || !!noteComment,
    });
  }
  throw conflict(tr("request.busy"));
}

/**
 * spec §2/§4: an approver who may decide the open level may edit its request (purpose and
 * codes); one who may only review may not (their edit would undo other people's votes).
 * An edit that needs a new approval cancels and recreates it (recorded in the request's
 * comments with who and why); one that does not keeps the approval and its votes.
 * Someone who cannot see the approval gets 404, like any record that is not theirs.
 */
export async function editAsApprover(deps: Deps, user: User, e: EditBody, authorOid: string) {
  const tr = await translate(user.locale);
  const ctx = await context(deps);
  const req = (await deps.store.requests.get(authorOid, e.oid)).value;
  const a = req?.approvalOid ? (await deps.store.approvals.get(req.approvalOid)).value : null;
  if (!a || !canSee(a, user, ctx.teams)) throw notFound();
  if (a.statusCode !== "new") throw forbidden("decided", tr("approval.decided"));
  if (!approvalFlags(a, user, ctx.teams).canEdit) {
    throw forbidden("not_allowed", tr("approval.notAllowed"));
  }
  return await modifyRequest(deps, user, e, "reissue", { authorOid, approvalOid: a.oid });
}

/** spec §7 pwaoverviewteams: visible teams with their members and delegating team. */
export async function overviewTeams(deps: Deps) {
  const ctx = await context(deps);
  return [...ctx.teams.values()].filter((t) => t.isVisible).map((t) => ({
    teamOid: t.oid,
    teamName: t.teamName,
    isVisible: t.isVisible,
    delegatingTeamName: t.delegatingTeamOid
      ? ctx.teams.get(t.delegatingTeamOid)?.teamName ?? null
      : null,
    teamUsers: teamMembers(ctx, t.oid),
  }));
}

function teamMembers(ctx: Context, teamOid: string) {
  return [...ctx.users.values()].filter((u) => u.teams.includes(teamOid))
    .map((u) => ({ fname: u.fname, lname: u.lname }));
}

export async function teamUsers(deps: Deps, teamOid: string) {
  const ctx = await context(deps);
  const team = ctx.teams.get(teamOid);
  if (!team || !team.isVisible) throw notFound();
  return teamMembers(ctx, teamOid);
}
