import * as z from "zod/mini";
import { endpoint } from "./endpoint.ts";
import { ArchiveParam, BudgetLine, Comment, SubType } from "./requests.ts";
import { CommentBody } from "./request_bodies.ts";

// spec §7 'Approvals (/scmapi/approval/)' and the team calls. Field names are spec §3's.

const A = "/scmapi/approval";
const Oid = z.string().check(z.minLength(1), z.maxLength(64));

export const ApprovalStatus = z.enum(["new", "approved", "rejected", "cancelled"]);
export type ApprovalStatus = z.infer<typeof ApprovalStatus>;

const Person = z.object({ fname: z.string(), lname: z.string() });

/** spec §3 poll level. */
export const PollLevel = z.object({
  level: z.number(),
  actionDescription: z.string(),
  statusCode: z.enum(["pending", "open", "approved", "rejected", "cancelled"]),
  quota: z.number(),
  pollTeams: z.array(z.object({
    teamName: z.string(),
    teamOid: z.string(),
    delegatingTeamName: z.nullable(z.string()),
    /** When the level opened (ISO), null while pending. */
    createdate: z.nullable(z.string()),
  })),
});

/** spec §3 vote. */
export const Vote = z.object({
  userFullName: z.string(),
  statusCode: z.enum(["approved", "rejected", "reviewed"]),
  createdate: z.string(),
  level: z.number(),
  isDelegated: z.boolean(),
});
export type Vote = z.infer<typeof Vote>;

/** An approval request as the Approvals list needs it, with the caller's flags. */
export const ApprovalRow = z.object({
  oid: z.string(),
  id: z.string(),
  archive: z.boolean(),
  statusCode: ApprovalStatus,
  issueDate: z.string(),
  costCenter: z.string(),
  /** spec §3: embeds the bracketed amount and currency, e.g. 'Travel: Lyon [320.50 EUR]'. */
  description: z.string(),
  amount: z.number(),
  pricingCurrency: z.string(),
  purpose: z.string(),
  /** The requestor's full name. */
  author: z.string(),
  authorOid: z.string(),
  /** The expense request's id and oid. */
  sourceEntityId: z.string(),
  sourceEntityOid: z.string(),
  /** The request type (its oid and description), for the filter panel and the edit form. */
  typeOid: z.string(),
  type: z.string(),
  costCenterOid: z.nullable(z.string()),
  GLOid: z.nullable(z.string()),
  GLCode: z.string(),
  projectOid: z.nullable(z.string()),
  projectCode: z.string(),
  canApprove: z.boolean(),
  canReject: z.boolean(),
  canReview: z.boolean(),
  /** True when the caller would act through a delegating team. */
  isDelegated: z.boolean(),
  /** May edit (pwareissueapproval): only who may decide the open level (spec §4/§6). */
  canEdit: z.optional(z.boolean()),
  /**
   * The caller's own vote on this approval, if any: an approver who has voted sees it among
   * the decided items (spec §2 sub-filters), not under new-pending.
   */
  myVote: z.optional(z.nullable(z.enum(["approved", "rejected"]))),
});
export type ApprovalRow = z.infer<typeof ApprovalRow>;

/**
 * Why the caller cannot decide an approval they see (spec §2 approval detail, §4, §6): its
 * code, the level deciding now and its action, the caller's own level, and who made the
 * decision that closed the approval or the caller's level (name, through delegation, when).
 */
export const ReadOnlyCode = z.enum([
  "own",
  "approved",
  "rejected",
  "cancelled",
  "voted",
  "barred",
  "waiting",
  "passed",
  "reviewer",
]);
export type ReadOnlyCode = z.infer<typeof ReadOnlyCode>;
export const ReadOnly = z.object({
  code: ReadOnlyCode,
  level: z.optional(z.number()),
  levelName: z.optional(z.string()),
  mine: z.optional(z.number()),
  by: z.optional(z.string()),
  delegated: z.optional(z.boolean()),
  /** ISO 8601. */
  at: z.optional(z.string()),
});
export type ReadOnly = z.infer<typeof ReadOnly>;

/**
 * The amount in the approval account's currency when the request is in another one: the
 * issuer's rate of `asOf` (a calendar day), 1 pricingCurrency = `rate` currency.
 */
export const AccountAmount = z.object({
  amount: z.number(),
  currency: z.string(),
  rate: z.string(),
  asOf: z.string(),
});
export type AccountAmount = z.infer<typeof AccountAmount>;

/** spec §3 approval request, whole. */
export const ApprovalRequest = z.extend(ApprovalRow, {
  fullamount: z.string(),
  fractionamount: z.string(),
  approvalAccount: z.string(),
  subType: SubType,
  pollLevels: z.array(PollLevel),
  /** Members of each team of the poll levels, keyed by team oid. */
  teamUsers: z.record(z.string(), z.array(Person)),
  votes: z.array(Vote),
  /** The caller has commented on it: a rejection of a reject-note type may proceed (spec §4). */
  hasRejectNote: z.boolean(),
  /** spec §3 budget: the request's lines, so the approver sees what is paid when. */
  budget: z.optional(z.array(BudgetLine)),
  /** In the approval account's currency, when the request is in another; else absent. */
  accountAmount: z.optional(z.nullable(AccountAmount)),
  /** Why the caller cannot decide it; absent or null when they can. */
  readOnly: z.optional(z.nullable(ReadOnly)),
});
export type ApprovalRequest = z.infer<typeof ApprovalRequest>;

const Decision = z.object({
  oid: Oid,
  archive: z.optional(z.boolean()),
  isDelegated: z.optional(z.boolean()),
  /** A rejection's optional reason (spec §4: required for reject-note types), shown to the requester. */
  note: z.optional(z.string().check(z.maxLength(1000))),
});
/** spec §7 team list: teamlist with teamUsers, isVisible, teamName. */
const Team = z.object({
  teamOid: z.string(),
  teamName: z.string(),
  isVisible: z.boolean(),
  delegatingTeamName: z.nullable(z.string()),
  teamUsers: z.array(Person),
});
export type Team = z.infer<typeof Team>;

/** Where pwaoverviewteams was served before it moved to spec §7's path; kept as an alias. */
export const OVERVIEW_TEAMS_OLD_PATH = `${A}/pwaoverviewteams`;

export const approvals = {
  list: endpoint({
    method: "GET",
    path: `${A}/pwalistrequests`,
    auth: "bearer",
    response: z.object({ approvallist: z.array(ApprovalRow) }),
  }),
  details: endpoint({
    method: "GET",
    path: `${A}/pwagetapprovaldetails`,
    auth: "bearer",
    query: z.object({ record: Oid, archive: ArchiveParam }),
    response: z.object({ approvalentity: z.array(ApprovalRequest) }),
  }),
  votes: endpoint({
    method: "GET",
    path: `${A}/pwagetvotes`,
    auth: "bearer",
    query: z.object({ oid: Oid, archive: ArchiveParam }),
    response: z.object({ voteslist: z.array(Vote) }),
  }),
  approve: endpoint({
    method: "POST",
    path: `${A}/pwaapprove`,
    auth: "bearer",
    body: Decision,
    response: z.object({ approvalentity: z.array(ApprovalRequest) }),
  }),
  reject: endpoint({
    method: "POST",
    path: `${A}/pwareject`,
    auth: "bearer",
    body: Decision,
    response: z.object({ approvalentity: z.array(ApprovalRequest) }),
  }),
  comments: endpoint({
    method: "GET",
    path: `${A}/pwagetComments`,
    auth: "bearer",
    query: z.object({ foreignentityoid: Oid, archive: ArchiveParam }),
    response: z.object({ comments: z.array(Comment) }),
  }),
  addComment: endpoint({
    method: "POST",
    path: `${A}/pwacomments`,
    auth: "bearer",
    body: CommentBody,
    response: z.object({ comment: Comment }),
  }),
  /** spec §7 lists pwaoverviewteams among the reads under /scmapi/expense/, not approvals. */
  overviewTeams: endpoint({
    method: "GET",
    path: "/scmapi/expense/pwaoverviewteams",
    auth: "bearer",
    response: z.object({ teamlist: z.array(Team) }),
  }),
  teamUsers: endpoint({
    method: "GET",
    path: `${A}/pwateamusers`,
    auth: "bearer",
    query: z.object({ teamOid: Oid }),
    response: z.object({ teamUsers: z.array(Person) }),
  }),
};
