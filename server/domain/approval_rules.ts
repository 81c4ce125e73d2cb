import type { ApprovalRecord, VoteRecord } from "../store/approvals.ts";
import type { Team } from "../store/org.ts";
import type { User } from "../store/users.ts";

/**
 * The approval rules of spec §3, §4 and §6, pure: who may act on an approval and how (member
 * or delegate of a level's team), who sees it, and what one vote does to its levels. The
 * workflow that reads and writes approvals is approvals.ts.
 */

/** How a user may act for a team: as a member, or through its delegating team (spec §6). */
export type Role = "member" | "delegate" | null;

export function roleIn(
  user: Pick<User, "teams">,
  teamOids: string[],
  teams: ReadonlyMap<string, Team>,
): Role {
  if (teamOids.some((t) => user.teams.includes(t))) return "member";
  const viaDelegation = teamOids.some((t) => {
    const d = teams.get(t)?.delegatingTeamOid;
    return !!d && user.teams.includes(d);
  });
  return viaDelegation ? "delegate" : null;
}

export interface ApprovalFlags {
  canApprove: boolean;
  canReject: boolean;
  canReview: boolean;
  isDelegated: boolean;
  /** Edit (and pwareissueapproval) is for those who may decide the open level. */
  canEdit: boolean;
}

/**
 * spec §3/§6 flags for one caller: a member (or delegate) of a team of the open level who
 * has not voted on it, nor caused an earlier decision of it to be reissued, may approve,
 * reject or edit; one of another level may only review. Only status new allows anything,
 * and never the request's own author. Pure.
 */
export function approvalFlags(
  a: Pick<ApprovalRecord, "statusCode" | "authorOid" | "levels" | "votes" | "barred">,
  user: Pick<User, "oid" | "teams">,
  teams: ReadonlyMap<string, Team>,
): ApprovalFlags {
  const none = {
    canApprove: false,
    canReject: false,
    canReview: false,
    isDelegated: false,
    canEdit: false,
  };
  if (a.statusCode !== "new" || a.authorOid === user.oid) return none;
  const open = a.levels.find((l) => l.statusCode === "open");
  const role = open ? roleIn(user, open.teamOids, teams) : null;
  const voted = !!open && a.votes.some((v) => v.userOid === user.oid && v.level === open.level);
  const barred = !!open &&
    (a.barred ?? []).some((b) => b.userOid === user.oid && b.level === open.level);
  const canDecide = !!role && !voted && !barred;
  return {
    canApprove: canDecide,
    canReject: canDecide,
    canReview: !canDecide && a.levels.some((l) => roleIn(user, l.teamOids, teams) !== null),
    isDelegated: canDecide && role === "delegate",
    canEdit: canDecide,
  };
}

/** Whether the user sees an approval at all: a member or delegate of one of its levels. */
export function canSee(
  a: Pick<ApprovalRecord, "levels">,
  user: User,
  teams: ReadonlyMap<string, Team>,
) {
  return a.levels.some((l) => roleIn(user, l.teamOids, teams) !== null);
}

/**
 * One vote applied (pure): a level that reaches its quota closes and opens the next one;
 * the last level approves the approval; any rejection rejects it.
 */
export function applyVote(a: ApprovalRecord, vote: VoteRecord, now: number): ApprovalRecord {
  const votes = [...a.votes, vote];
  const levels = a.levels.map((l) => ({ ...l }));
  const i = levels.findIndex((l) => l.level === vote.level);
  let statusCode: ApprovalRecord["statusCode"] = a.statusCode;
  if (vote.statusCode === "rejected") {
    levels[i].statusCode = "rejected";
    for (const l of levels) if (l.statusCode === "pending") l.statusCode = "cancelled";
    statusCode = "rejected";
  } else {
    const yes = votes.filter((v) => v.level === vote.level && v.statusCode === "approved").length;
    if (yes >= levels[i].quota) {
      levels[i].statusCode = "approved";
      const next = levels[i + 1];
      if (next) {
        next.statusCode = "open";
        next.openedAt = now;
      } else statusCode = "approved";
    }
  }
  return { ...a, votes, levels, statusCode };
}

/** The teams whose approvals a user may see: their own, and those delegating to them. */
export function reachableTeams(user: User, teams: ReadonlyMap<string, Team>): string[] {
  const out = new Set(user.teams);
  for (const t of teams.values()) {
    if (t.delegatingTeamOid && user.teams.includes(t.delegatingTeamOid)) out.add(t.oid);
  }
  return [...out];
}

/** Why a caller cannot decide an approval (the contract's ReadOnly, times still in ms). */
export interface ReadOnlyWhy {
  code:
    | "own"
    | "approved"
    | "rejected"
    | "cancelled"
    | "voted"
    | "barred"
    | "waiting"
    | "passed"
    | "reviewer";
  level?: number;
  levelName?: string;
  mine?: number;
  byOid?: string;
  delegated?: boolean;
  at?: number;
}

const decisive = (v: VoteRecord) => v.statusCode === "approved" || v.statusCode === "rejected";

/**
 * spec §2 approval detail, §4, §6: why someone who sees an approval cannot decide it — their
 * own request; decided or cancelled (and by whose vote); they voted already; barred after
 * their edit; their level comes later; their level was decided by someone else; or they only
 * follow it. Null when they may approve or reject. Pure.
 */
export function readOnlyReason(
  a: Pick<ApprovalRecord, "statusCode" | "authorOid" | "levels" | "votes" | "barred">,
  user: Pick<User, "oid" | "teams">,
  teams: ReadonlyMap<string, Team>,
): ReadOnlyWhy | null {
  if (a.authorOid === user.oid) return { code: "own" };
  const by = (v: VoteRecord | undefined) =>
    v ? { byOid: v.userOid, delegated: v.isDelegated, at: v.createdAt } : {};
  if (a.statusCode === "approved" || a.statusCode === "rejected") {
    return { code: a.statusCode, ...by(a.votes.findLast(decisive)) };
  }
  const open = a.levels.find((l) => l.statusCode === "open");
  if (a.statusCode === "cancelled" || !open) return { code: "cancelled" };
  const f = approvalFlags(a, user, teams);
  if (f.canApprove || f.canReject) return null;
  const now = { level: open.level, levelName: open.actionDescription };
  const mineVote = a.votes.findLast((v) => v.userOid === user.oid && decisive(v));
  if (mineVote) return { code: "voted", mine: mineVote.level, ...now, at: mineVote.createdAt };
  if (roleIn(user, open.teamOids, teams)) return { code: "barred", ...now };
  const mine = a.levels.filter((l) => roleIn(user, l.teamOids, teams) !== null);
  const later = mine.find((l) => l.level > open.level);
  if (later) return { code: "waiting", mine: later.level, ...now };
  const earlier = mine.findLast((l) => l.level < open.level);
  if (earlier) {
    const v = a.votes.findLast((x) => x.level === earlier.level && x.statusCode === "approved");
    return { code: "passed", mine: earlier.level, ...now, ...by(v) };
  }
  return { code: "reviewer", ...now };
}
