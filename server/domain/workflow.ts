import type { OrgType } from "../store/org.ts";
import type { ApprovalRecord, PollLevelRecord } from "../store/approvals.ts";
import type { RequestRecord } from "../store/requests.ts";

/**
 * The approval policy of a request type (organisation file): the first tier whose
 * maxAmount covers the amount, else the last tier (which has none). Pure.
 */
export function policyLevels(type: Pick<OrgType, "approvalPolicy">, amount: number) {
  const tiers = type.approvalPolicy;
  const tier = tiers.find((t) => t.maxAmount === undefined || amount <= t.maxAmount) ??
    tiers[tiers.length - 1];
  return [...tier.levels].sort((a, b) => a.level - b.level);
}

/**
 * A new approval request for a submitted request: its poll levels from the policy, the
 * first one open (spec §3 approval request, poll level). Voting is the workflow issue's.
 */
export function newApproval(
  r: RequestRecord,
  type: Pick<OrgType, "approvalPolicy">,
  now: number,
  /** 1 for the first approval of the request, 2 after a reissue, … */
  seq: number,
): ApprovalRecord {
  const levels: PollLevelRecord[] = policyLevels(type, r.amount).map((l, i) => ({
    level: l.level,
    actionDescription: l.actionDescription,
    teamOids: [...l.teamOids],
    quota: l.quota,
    statusCode: i === 0 ? "open" : "pending",
    openedAt: i === 0 ? now : null,
  }));
  return {
    oid: crypto.randomUUID(),
    id: `AP${r.id.slice(1)}.${seq}`,
    requestOid: r.oid,
    authorOid: r.authorOid,
    statusCode: "new",
    createdAt: now,
    amount: r.amount,
    currency: r.currency,
    typeOid: r.typeOid,
    costCenterOid: r.costCenterOid,
    levels,
    votes: [],
    archive: false,
  };
}

/**
 * spec §4 submit flow: which edited attributes need a new approval. The approvers decided
 * on a type, an amount and a cost center; a new purpose or GL/project code does not change
 * who must approve nor what they approved.
 */
export function needsNewApproval(
  r: Pick<RequestRecord, "status" | "costCenterOid" | "typeOid" | "amount">,
  edit: { costCenterOid: string | null; typeOid?: string; amount?: number },
): boolean {
  if (r.status === "new") return false;
  return edit.costCenterOid !== r.costCenterOid ||
    (edit.typeOid !== undefined && edit.typeOid !== r.typeOid) ||
    (edit.amount !== undefined && edit.amount !== r.amount);
}
