import type {
  ApprovalTeam,
  ExpenseRequest,
  ExpenseRow,
} from "../../client/shared/contract/requests.ts";
import { splitAmount } from "../../client/shared/money.ts";
import { notFound } from "../errors.ts";
import type { Deps } from "./env.ts";
import { membersOf } from "../store/org_cache.ts";
import type { OrgType } from "../store/org.ts";
import type { RequestRecord } from "../store/requests.ts";
import type { PollLevelRecord } from "../store/approvals.ts";
import type { User } from "../store/users.ts";
import { requestFlags } from "./request_flags.ts";
import { policyLevels } from "./workflow.ts";
import { codesIn, labelIn } from "../org/labels.ts";
import { immutableJson } from "../json.ts";
import { pickLocale } from "../i18n.ts";

// How requests are shown: list rows, the detail entity and its approvers (spec §2, §3).

export async function typeOf(deps: Deps, oid: string): Promise<OrgType | null> {
  return await deps.store.org.get<OrgType>("rtype", oid);
}

/**
 * A row of the Requests list (spec §2) for its author, the organisation's words (cost center,
 * GL, project) in `lang` (labels.ts codesIn).
 */
export function toRow(r: RequestRecord, callerOid: string, lang = "en"): ExpenseRow {
  const f = requestFlags(r, callerOid);
  const words = codesIn(r, lang);
  return {
    oid: r.oid,
    id: r.id,
    archive: r.archive,
    purpose: r.purpose,
    statusCode: r.status,
    issueDate: new Date(r.issueDate).toISOString(),
    costCenter: words.costCenter,
    costCenterOid: r.costCenterOid,
    GLCode: words.GLCode,
    GLOid: r.GLOid,
    projectCode: words.projectCode,
    projectOid: r.projectOid,
    typeOid: r.typeOid,
    amount: r.amount,
    pricingCurrency: r.currency,
    canClose: f.canClose,
    canCancel: f.canCancel,
    hasCard: r.hasCard,
    openCard: r.openCard,
    cardStatusCode: r.cardStatusCode,
    needsAttention: f.needsAttention,
    budgetCount: r.budget.length,
  };
}

/**
 * Rows made from one list of records (the store answers the same list until one changes), in
 * each language asked for.
 */
const built = new WeakMap<readonly RequestRecord[], Map<string, ExpenseRow[]>>();

/** The caller's requests, newest first (pwalists), the organisation's words in `lang`. */
export async function listRows(
  deps: Deps,
  user: User,
  /** The caller's records when already read (pwalists reads them once). */
  known?: readonly RequestRecord[],
  /** The reader's language: the app's (Accept-Language) when known, else the user's. */
  lang: string = pickLocale(user.locale),
): Promise<ExpenseRow[]> {
  const recs = known ?? await deps.store.requests.byUser(user.oid);
  let byLang = built.get(recs);
  if (!byLang) built.set(recs, byLang = new Map());
  let rows = byLang.get(lang);
  if (!rows) {
    rows = [...recs]
      .sort((a, b) => b.issueDate - a.issueDate || b.id.localeCompare(a.id))
      .map((r) => toRow(r, user.oid, lang));
    // Made once per list version and language, never changed after: its JSON text is kept too.
    byLang.set(lang, rows = immutableJson(rows));
  }
  return rows;
}

/**
 * Who approves a request: its current approval's teams and their members (spec §3), with
 * each level's state and the decisions taken on it (who, what, when) — the request's
 * approval timeline. A vote counts for the teams its voter belongs to; one cast through
 * delegation (the voter in none of the level's teams) shows on the level's first team.
 */
export async function approvalTeams(deps: Deps, r: RequestRecord): Promise<ApprovalTeam[]> {
  let levels: { level: number; teamOids: string[]; statusCode?: PollLevelRecord["statusCode"] }[] =
    [];
  const a = r.approvalOid ? (await deps.store.approvals.get(r.approvalOid)).value : null;
  if (a) levels = a.levels;
  else {
    const type = await typeOf(deps, r.typeOid);
    if (type) levels = policyLevels(type, r.amount);
  }
  // The organisation's kept snapshot: members by team, people by oid (no scan of everyone).
  const snap = await deps.store.orgCache.snapshot();
  const byOid = snap.users;
  const out: ApprovalTeam[] = [];
  for (const l of levels) {
    const votes = a ? a.votes.filter((v) => v.level === l.level) : [];
    l.teamOids.forEach((teamOid, i) => {
      out.push({
        teamOid,
        teamName: "",
        level: l.level,
        teamUsers: membersOf(snap, teamOid)
          .filter((u) => u.isApprover)
          .map((u) => ({ fname: u.fname, lname: u.lname })),
        levelStatus: a ? l.statusCode ?? null : null,
        decisions: votes.filter((v) => {
          const teams = byOid.get(v.userOid)?.teams ?? [];
          return teams.includes(teamOid) ||
            (i === 0 && !l.teamOids.some((t) => teams.includes(t)));
        }).map((v) => {
          const u = byOid.get(v.userOid);
          return {
            name: u ? `${u.fname} ${u.lname}`.trim() : "",
            statusCode: v.statusCode,
            at: new Date(v.createdAt).toISOString(),
            delegated: v.isDelegated,
          };
        }),
      });
    });
  }
  // Team names read after (one lookup a team); teams removed since are left out.
  const named: ApprovalTeam[] = [];
  for (const x of out) {
    const team = await deps.store.org.team(x.teamOid);
    if (team) named.push({ ...x, teamName: team.teamName });
  }
  return named;
}

/**
 * spec §3 subType of a request or approval (empty values if the type was removed), its
 * description in `lang` (English when the organisation gave none in it).
 */
export function subTypeOf(type: OrgType | null, lang = "en") {
  return {
    rowId: type?.rowId ?? 0,
    id: type?.id ?? "",
    description: labelIn(type?.description, lang),
    minAmount: type?.minAmount ?? 0,
    maxAmount: type?.maxAmount ?? 0,
    isRecurring: type?.isRecurring ?? false,
    requireRejectNote: type?.requireRejectNote ?? false,
  };
}

/** The whole request for its detail screen (spec §2 request detail). */
export async function toEntity(
  deps: Deps,
  r: RequestRecord,
  callerOid: string,
  lang = "en",
): Promise<ExpenseRequest> {
  const type = await typeOf(deps, r.typeOid);
  const f = requestFlags(r, callerOid);
  return {
    ...toRow(r, callerOid, lang),
    vendor: r.vendor,
    url: r.url,
    accountOid: r.accountOid,
    monetaryAmount: `${r.amount.toFixed(2)} ${r.currency}`,
    ...splitAmount(r.amount),
    subType: subTypeOf(type, lang),
    budget: r.budget,
    approvals: await approvalTeams(deps, r),
    canGenerate: f.canGenerate,
    canEdit: f.canEdit,
    canSubmit: f.canSubmit,
    canComment: f.canComment,
    is3DSecureDefined: !!(await deps.store.secure.get(callerOid)).value?.defined,
    author: r.authorOid,
    approverNote: r.approverNote,
  };
}

/** The caller's own request, or 404 (no existence leak for other users' oids). */
export async function ownRequest(deps: Deps, user: User, oid: string): Promise<RequestRecord> {
  const r = (await deps.store.requests.get(user.oid, oid)).value;
  if (!r) throw notFound();
  return r;
}
