import { computed, signal } from "@preact/signals-react";
import type {
  ApprovalRequest,
  ApprovalRow,
  ApprovalStatus,
  Team,
} from "../shared/contract/approvals.ts";
import type { Comment } from "../shared/contract/requests.ts";
import type { Mode } from "../lib/mode.ts";
import { anyFilter, type Filters, matches, NO_FILTERS } from "./requests.ts";

/** spec §2 main screen mode; approval mode is offered only when approvals exist (§6). */
export const mode = signal<Mode>("request");

/** spec §2 Approvals sub-filters: new-pending (default), approved, rejected, cancelled. */
export type ApprovalSubFilter = "pending" | "approved" | "rejected" | "cancelled";
export const APPROVAL_SUB_FILTERS: readonly ApprovalSubFilter[] = [
  "pending",
  "approved",
  "rejected",
  "cancelled",
];
export const approvalSubFilterOf = (s: ApprovalStatus): ApprovalSubFilter =>
  s === "new" ? "pending" : s;
/**
 * Where a row is listed: by its status, except that an approval still open on a later level
 * goes with the decided items once this person has voted on it — new-pending holds only
 * what still waits for someone here (spec §2 sub-filters).
 */
export const rowSubFilter = (r: Pick<ApprovalRow, "statusCode" | "myVote">): ApprovalSubFilter =>
  r.statusCode === "new" && r.myVote ? r.myVote : approvalSubFilterOf(r.statusCode);

/** The approval requests of the person's teams, as pwalistrequests last gave them. */
export const approvalRows = signal<ApprovalRow[]>([]);
/** True once approvals were read (cache or network) in this session. */
export const approvalsLoaded = signal(false);
export const approvalSubFilter = signal<ApprovalSubFilter>("pending");
export const approvalFilters = signal<Filters>(NO_FILTERS);
export const approvalFiltersActive = computed(() => anyFilter(approvalFilters.value));

/** spec §2: a row is dimmed when it is new and the user can neither approve, reject nor review. */
export const isDimmed = (r: ApprovalRow) =>
  r.statusCode === "new" && !r.canApprove && !r.canReject && !r.canReview;
/** Waiting for this person's decision. */
export const toDecide = (r: ApprovalRow) => r.statusCode === "new" && (r.canApprove || r.canReject);

export const visibleApprovals = computed(() => {
  const sf = approvalSubFilter.value;
  const f = approvalFilters.value;
  return approvalRows.value.filter((r) => rowSubFilter(r) === sf && matches(r, f));
});
export const approvalCounts = computed(() => {
  const out: Record<ApprovalSubFilter, number> = {
    pending: 0,
    approved: 0,
    rejected: 0,
    cancelled: 0,
  };
  for (const r of approvalRows.value) out[rowSubFilter(r)]++;
  return out;
});
/** The Approvals tab's badge: approvals waiting for this person's decision. */
export const toDecideCount = computed(() => approvalRows.value.filter(toDecide).length);

/** The approval shown in the detail panel: its row at once, the whole entity when it arrives. */
export const approvalDetail = signal<
  {
    oid: string;
    row: ApprovalRow | null;
    entity: ApprovalRequest | null;
    comments: Comment[];
  } | null
>(null);

/**
 * The decision this phone just made on the approval shown (its oid): the detail then offers
 * the next approval waiting for this person instead of sending them back to the list.
 */
export const lastDecision = signal<{ oid: string; decision: "approve" | "reject" } | null>(null);

/**
 * The approval waiting for this person's decision after `oid` in the list's order (newest
 * first), wrapping round to the top; null when no other one waits.
 */
export function nextToDecide(oid: string): ApprovalRow | null {
  const rows = approvalRows.value;
  const at = rows.findIndex((r) => r.oid === oid);
  const order = at < 0 ? rows : [...rows.slice(at + 1), ...rows.slice(0, at)];
  return order.find((r) => r.oid !== oid && toDecide(r)) ?? null;
}

/** spec §2 teams of the approval detail (pwaoverviewteams): null until read. */
export const teams = signal<Team[] | null>(null);
/** The teams could be read neither from the server nor from the cache. */
export const teamsFailed = signal(false);
