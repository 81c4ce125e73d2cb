import type { Deps } from "./env.ts";
import { pickLocale } from "../i18n.ts";
import { backoffMs } from "../jobs/policy.ts";
import type { ApprovalRecord } from "../store/approvals.ts";
import type { Team } from "../store/org.ts";
import type { RequestRecord } from "../store/requests.ts";
import type { User } from "../store/users.ts";
import { roleIn } from "./approval_rules.ts";
import { newComment } from "./comments.ts";
import { cancelApproval } from "./requests.ts";

// The leaver path: a person who left the organisation (gone from the organisation file,
// or deactivated over SCIM) loses every way in at once, their cards stop at the issuer through a
// durable job, their requests not yet approved are cancelled with a history line, and what they
// could have decided is left to the rest of their teams. Nothing historical is deleted: the user
// record stays (marked `leftAt`, with no teams and no roles) for names in history and exports.

/** One leaver's cards still to stop at the issuer: ["card_stop", userOid]. */
export interface CardStopJob {
  userOid: string;
  createdAt: number;
  /** When the next attempt is due (a claimed attempt moves it to its lease's end first). */
  nextAt: number;
  attempts: number;
  lastError?: string;
}

const JOB = "card_stop";
/** How long a claimed attempt holds the job: a process that dies mid-attempt leaves it due again. */
const LEASE_MS = 60_000;
const RETRY_BASE_MS = 15_000;
const RETRY_MAX_MS = 15 * 60_000;
const RETRIES = 8;

/** A level of an open approval that nobody left can decide (reported to the operator). */
export interface StrandedLevel {
  approvalOid: string;
  requestOid: string;
  level: number;
  /** Approving votes the level still needs. */
  needed: number;
  /** People left who may still vote on it. */
  remaining: number;
}

export interface LeaveReport {
  userOid: string;
  email: string;
  /** Devices unregistered (their tokens and passkeys with them). */
  devices: number;
  /** Requests whose card is being stopped at the issuer. */
  cards: string[];
  /** Requests not yet approved, cancelled. */
  cancelled: string[];
  /** Open approvals the leaver could vote on: carried on by the rest of their teams. */
  rerouted: string[];
  stranded: StrandedLevel[];
}

/** Whether a user record is one of someone who left (kept for history only). */
export const hasLeft = (u: Pick<User, "leftAt"> | null | undefined): boolean => !!u?.leftAt;

/** A live card: issued and not recorded closed. */
const liveCard = (r: RequestRecord) => !!r.card && r.cardStatusCode !== "Closed";
/** spec §4: a request nobody has approved yet (draft or waiting for its approval). */
const notYetApproved = (r: RequestRecord) => r.status === "new" || r.status === "requested";

/**
 * What leaving would do to `user`, read only (the dry run): cards to stop, requests to cancel,
 * approvals to re-route and levels nobody would be left to decide. `leaving`: everyone who
 * leaves in the same change (a level loses all of them at once).
 */
export async function planLeave(
  deps: Deps,
  user: User,
  leaving: ReadonlySet<string> = new Set([user.oid]),
): Promise<LeaveReport> {
  const devices = await deps.store.devices.forUser(user.oid);
  const requests = await deps.store.requests.byUser(user.oid);
  const { rerouted, stranded } = await votesOf(deps, user, leaving);
  return {
    userOid: user.oid,
    email: user.email,
    devices: devices.length,
    cards: requests.filter(liveCard).map((r) => r.oid),
    cancelled: requests.filter(notYetApproved).map((r) => r.oid),
    rerouted,
    stranded,
  };
}

/** Open approvals whose open level `user` could decide, and those nobody else could. */
async function votesOf(deps: Deps, user: User, leaving: ReadonlySet<string>) {
  const snap = await deps.store.orgCache.snapshot();
  const teams = snap.teams as ReadonlyMap<string, Team>;
  const reach = new Set(user.teams);
  for (const t of teams.values()) {
    if (t.delegatingTeamOid && user.teams.includes(t.delegatingTeamOid)) reach.add(t.oid);
  }
  const rerouted: string[] = [];
  const stranded: StrandedLevel[] = [];
  for (const a of await deps.store.approvals.openByTeams(reach)) {
    const open = a.statusCode === "new" ? a.levels.find((l) => l.statusCode === "open") : null;
    if (!open || a.authorOid === user.oid || !roleIn(user, open.teamOids, teams)) continue;
    if (votedOrBarred(a, user.oid, open.level)) continue;
    rerouted.push(a.oid);
    const yes = a.votes.filter((v) => v.level === open.level && v.statusCode === "approved").length;
    const needed = open.quota - yes;
    const remaining = [...snap.users.values()].filter((u) =>
      !leaving.has(u.oid) && !hasLeft(u) && u.oid !== a.authorOid &&
      !votedOrBarred(a, u.oid, open.level) && roleIn(u, open.teamOids, teams) !== null
    ).length;
    if (remaining < needed) {
      stranded.push({
        approvalOid: a.oid,
        requestOid: a.requestOid,
        level: open.level,
        needed,
        remaining,
      });
    }
  }
  return { rerouted, stranded };
}

function votedOrBarred(a: ApprovalRecord, userOid: string, level: number): boolean {
  return a.votes.some((v) => v.userOid === userOid && v.level === level) ||
    (a.barred ?? []).some((b) => b.userOid === userOid && b.level === level);
}

/**
 * The leaver path, in checked writes. One atomic write marks the user left (no teams, no roles:
 * from the next call on they count for no approval), removes every device with its tokens and
 * passkey, and records the card-stop job when a card is live; then each request not yet approved
 * is cancelled with a history line; then the cards are stopped at once (the job retries what
 * fails). Idempotent: a later call finds the user left, finishes what a run stopped half-way left
 * undone (devices, cancellations, the card-stop job) and answers null.
 */
export async function leaveUser(
  deps: Deps,
  userOid: string,
  leaving?: ReadonlySet<string>,
  /**
   * Where a level nobody is left to decide is reported (the operator's log by default; the
   * import prints it in its summary instead).
   */
  warn: (line: string) => void = warnOperator,
): Promise<LeaveReport | null> {
  const { store } = deps;
  let report: LeaveReport | null = null;
  let removed: string[] = [];
  for (let i = 0; i < RETRIES && !report; i++) {
    const entry = await store.kv.get<User>(["user", userOid]);
    const user = entry.value;
    if (!user) return null;
    if (hasLeft(user)) break;
    const plan = await planLeave(deps, user, leaving);
    const now = deps.now();
    const op = store.kv.atomic().check(entry);
    store.users.put(op, { ...user, leftAt: now, teams: [], isApprover: false, canRequest: false });
    const devices = await store.devices.forUser(userOid);
    for (const d of devices) {
      op.check(await store.devices.get(d.deviceId));
      store.devices.remove(op, d);
    }
    removed = devices.map((d) => d.deviceId);
    // Their phones get no more notifications (also those of devices already gone).
    for (const sub of await store.pushSubs.forUser(userOid)) {
      store.pushSubs.remove(op, userOid, sub.deviceId);
    }
    if (plan.cards.length) {
      const job: CardStopJob = { userOid, createdAt: now, nextAt: now, attempts: 0 };
      op.set([JOB, userOid], job);
    }
    if ((await op.commit()).ok) report = plan;
  }
  if (!report) {
    const left = (await store.users.get(userOid))!;
    if (!hasLeft(left)) throw new Error(`leaver ${userOid}: the store kept changing`);
    // Already left: finish what a run that stopped half-way left undone (each step is checked
    // and does nothing twice).
    for (const d of await store.devices.forUser(userOid)) {
      const entry = await store.devices.get(d.deviceId);
      if ((await store.devices.remove(store.kv.atomic().check(entry), d).commit()).ok) {
        removed.push(d.deviceId);
      }
    }
  }
  const cancelled = await cancelOpen(deps, userOid);
  if (report) {
    report.cancelled = cancelled;
    report.devices = removed.length;
  }
  for (const deviceId of removed) {
    await deps.events.publish({ type: "device.unregistered", userOid, deviceId, reason: "left" });
  }
  for (const s of report?.stranded ?? []) {
    warn(
      `leaver ${userOid}: approval ${s.approvalOid} (request ${s.requestOid}), level ${s.level}, ` +
        `has nobody left to decide it (needs ${s.needed}, ${s.remaining} left)`,
    );
  }
  await runCardStop(deps, userOid);
  return report;
}

/** A warning line in the server's log format (server/log.ts): ids only, no personal data. */
function warnOperator(msg: string): void {
  console.warn(JSON.stringify({ t: new Date().toISOString(), level: "warn", msg }));
}

/** The history line of a request cancelled because its author left (in the author's language). */
const LEFT_LINE: Record<string, string> = {
  en: "Cancelled automatically: {name} has left the organisation.",
  fr: "Annulée automatiquement : {name} a quitté l'organisation.",
  de: "Automatisch storniert: {name} hat die Organisation verlassen.",
  es: "Cancelada automáticamente: {name} ha dejado la organización.",
};

/** Cancels the leaver's requests not yet approved, each with its history line (checked writes). */
async function cancelOpen(deps: Deps, userOid: string): Promise<string[]> {
  const { store } = deps;
  const out: string[] = [];
  const user = (await store.users.get(userOid))!;
  const line = LEFT_LINE[pickLocale(user.locale)]
    .replace("{name}", `${user.fname} ${user.lname}`);
  for (const r of await store.requests.byUser(userOid)) {
    if (!notYetApproved(r)) continue;
    for (let i = 0; i < RETRIES; i++) {
      const entry = await store.requests.get(userOid, r.oid);
      const cur = entry.value;
      if (!cur || !notYetApproved(cur)) break;
      const op = store.kv.atomic().check(entry);
      const approvalOid = await cancelApproval(deps, cur, op);
      store.comments.put(op, newComment(deps, user, cur.oid, line));
      store.requests.put(op, { ...cur, status: "cancelled", updatedAt: deps.now() });
      if (!(await op.commit()).ok) continue;
      out.push(cur.oid);
      if (approvalOid) {
        await deps.events.publish({ type: "approval.cancelled", approvalOid, requestOid: cur.oid });
      }
      await deps.events.publish({ type: "request.cancelled", userOid, requestOid: cur.oid });
      break;
    }
  }
  return out;
}

/**
 * One attempt of a leaver's card-stop job, if it is due (or `force`): claimed by a checked move of
 * its due time to the lease's end, so one process works it at a time and a crash leaves it due
 * again. Each live card is closed at the issuer; a card whose close fails is frozen meanwhile
 * (best effort) and the job is retried with backoff until every card is closed.
 */
export async function runCardStop(deps: Deps, userOid: string): Promise<"done" | "retry" | "none"> {
  const { store } = deps;
  const entry = await store.kv.get<CardStopJob>([JOB, userOid]);
  const job = entry.value;
  if (!job) return "none";
  const now = deps.now();
  if (job.nextAt > now) return "retry";
  const claimed: CardStopJob = { ...job, nextAt: now + LEASE_MS, attempts: job.attempts + 1 };
  const claim = await store.kv.atomic().check(entry).set([JOB, userOid], claimed).commit();
  if (!claim.ok) return "retry";
  let failed: string | undefined;
  for (const r of await store.requests.byUser(userOid)) {
    if (!liveCard(r)) continue;
    try {
      const card = await deps.issuer.close(r.card!.token);
      if (card.status !== "closed") throw new Error(`card ${r.oid} is ${card.status}`);
      await recordClosed(deps, r);
    } catch (err) {
      failed = err instanceof Error ? err.message : String(err);
      await deps.issuer.freeze(r.card!.token).catch(() => {});
    }
  }
  const mine = await store.kv.get<CardStopJob>([JOB, userOid]);
  if (mine.value?.nextAt !== claimed.nextAt) return "retry";
  const op = store.kv.atomic().check(mine);
  if (!failed) {
    await op.delete([JOB, userOid]).commit();
    return "done";
  }
  const delay = backoffMs(claimed.attempts, RETRY_BASE_MS, RETRY_MAX_MS);
  await op.set([JOB, userOid], { ...claimed, nextAt: deps.now() + delay, lastError: failed })
    .commit();
  return "retry";
}

/** The request records its card closed (read-only from now on). */
async function recordClosed(deps: Deps, r: RequestRecord): Promise<void> {
  const { store } = deps;
  for (let i = 0; i < RETRIES; i++) {
    const entry = await store.requests.get(r.authorOid, r.oid);
    const cur = entry.value;
    if (!cur || cur.cardStatusCode === "Closed") return;
    const next = { ...cur, cardStatusCode: "Closed", openCard: false, updatedAt: deps.now() };
    if ((await store.requests.put(store.kv.atomic().check(entry), next).commit()).ok) return;
  }
}

/** Every card-stop job that is due, once (the periodic duty; the worker's tick). */
export async function runCardStops(deps: Deps): Promise<number> {
  let done = 0;
  for await (const e of deps.store.kv.list<CardStopJob>({ prefix: [JOB] })) {
    if (e.value.nextAt > deps.now()) continue;
    if ((await runCardStop(deps, e.value.userOid)) === "done") done++;
  }
  return done;
}

/** Card-stop jobs still open (the operator's view: a leaver whose card is not stopped yet). */
export async function pendingCardStops(deps: Deps): Promise<CardStopJob[]> {
  const out: CardStopJob[] = [];
  for await (const e of deps.store.kv.list<CardStopJob>({ prefix: [JOB] })) out.push(e.value);
  return out;
}
