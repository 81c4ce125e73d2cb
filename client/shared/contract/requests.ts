import * as z from "zod/mini";
import { endpoint } from "./endpoint.ts";
import { CommentBody, CreateBody, EditBody } from "./request_bodies.ts";

// spec §7 reads and writes of expense requests, their lookups and comments. Field names
// are spec §3's; response shapes are ours (the spec does not show them). The bodies the
// client writes with (create, edit, comment) are in request_bodies.ts.

const E = "/scmapi/expense";
const Oid = z.string().check(z.minLength(1), z.maxLength(64));
/** spec §3 'archive': records moved to the archive are read with archive=1. */
export const ArchiveParam = z.optional(z.enum(["0", "1", "true", "false"]));

export const StatusCode = z.enum([
  "new",
  "requested",
  "accepted",
  "rejected",
  "cancelled",
  "moved",
]);
export type StatusCode = z.infer<typeof StatusCode>;

/** spec §3 subType. */
export const SubType = z.object({
  rowId: z.number(),
  id: z.string(),
  description: z.string(),
  minAmount: z.number(),
  maxAmount: z.number(),
  isRecurring: z.boolean(),
  requireRejectNote: z.boolean(),
});

/** spec §3 budget line; budgetdate is a calendar day 'YYYY-MM-DD'. */
export const BudgetLine = z.object({
  budgetdate: z.string(),
  budgetamount: z.number(),
  budgetfunded: z.boolean(),
});

/** One person's decision on a level: who, what, when (ISO 8601), through delegation or not. */
export const ApprovalDecision = z.object({
  name: z.string(),
  statusCode: z.enum(["approved", "rejected", "reviewed"]),
  at: z.string(),
  delegated: z.boolean(),
});
export type ApprovalDecision = z.infer<typeof ApprovalDecision>;

/**
 * spec §3 approvals: teams with teamName and teamUsers (fname, lname); for the request's
 * approval timeline also the level's state (null before submission) and the decisions of
 * the team's members on it (optional: the approval detail's list does not carry them).
 */
export const ApprovalTeam = z.object({
  teamOid: z.string(),
  teamName: z.string(),
  level: z.number(),
  teamUsers: z.array(z.object({ fname: z.string(), lname: z.string() })),
  levelStatus: z.optional(
    z.nullable(z.enum(["pending", "open", "approved", "rejected", "cancelled"])),
  ),
  decisions: z.optional(z.array(ApprovalDecision)),
});
export type ApprovalTeam = z.infer<typeof ApprovalTeam>;

/**
 * A request as the Requests list needs it (spec §2 rows, filters, badge): what
 * `pwalists` sends for every request, so 2,000 of them stay small.
 */
export const ExpenseRow = z.object({
  oid: z.string(),
  id: z.string(),
  archive: z.boolean(),
  purpose: z.string(),
  statusCode: StatusCode,
  /** ISO 8601, UTC. */
  issueDate: z.string(),
  costCenter: z.string(),
  costCenterOid: z.nullable(z.string()),
  GLCode: z.string(),
  GLOid: z.nullable(z.string()),
  projectCode: z.string(),
  projectOid: z.nullable(z.string()),
  typeOid: z.string(),
  amount: z.number(),
  pricingCurrency: z.string(),
  canClose: z.boolean(),
  canCancel: z.boolean(),
  hasCard: z.boolean(),
  openCard: z.boolean(),
  cardStatusCode: z.nullable(z.string()),
  /**
   * spec §2 Wallet: what is left on the card (the issuer's available amount, in the request's
   * currency), on list rows of a card that is not closed; null or absent otherwise.
   */
  cardAvailable: z.optional(z.nullable(z.number())),
  /** Counted in the main badge (spec §2): for now, a request created but not submitted. */
  needsAttention: z.boolean(),
  budgetCount: z.number(),
});
export type ExpenseRow = z.infer<typeof ExpenseRow>;

/** spec §3 expense request, with every permission flag computed for the caller. */
export const ExpenseRequest = z.extend(ExpenseRow, {
  vendor: z.string(),
  url: z.string(),
  accountOid: z.string(),
  monetaryAmount: z.string(),
  fullamount: z.string(),
  fractionamount: z.string(),
  subType: SubType,
  budget: z.array(BudgetLine),
  approvals: z.array(ApprovalTeam),
  canGenerate: z.boolean(),
  /** Our additions: may the caller edit, submit, comment on it. */
  canEdit: z.boolean(),
  canSubmit: z.boolean(),
  canComment: z.boolean(),
  is3DSecureDefined: z.boolean(),
  /** Author's user oid; pwauserfullname gives the name. */
  author: z.string(),
  approverNote: z.nullable(z.string()),
});
export type ExpenseRequest = z.infer<typeof ExpenseRequest>;

/** spec §3 comment. */
export const Comment = z.object({
  oid: z.string(),
  sourceEntityOid: z.string(),
  archive: z.boolean(),
  comment: z.object({
    author: z.string(),
    fName: z.string(),
    lName: z.string(),
    text: z.string(),
  }),
  createdate: z.string(),
  canBeDeleted: z.boolean(),
});
export type Comment = z.infer<typeof Comment>;

/** spec §3 account (plus its currency, which the create form proposes). */
/**
 * The organisation's words of every language it gave (en, fr, de, es; English always), next
 * to the spec's plain field that holds them in the caller's language (client/shared/org_words.ts).
 */
export const Words = z.optional(z.record(z.string(), z.string()));
export const Account = z.object({
  oid: z.string(),
  value: z.string(),
  label: z.string(),
  labels: Words,
  currency: z.string(),
});
export type Account = z.infer<typeof Account>;
/** A request type as the create form needs it. */
export const RequestType = z.extend(SubType, {
  oid: z.string(),
  accountOid: z.string(),
  allowBudget: z.boolean(),
  descriptions: Words,
});
export type RequestType = z.infer<typeof RequestType>;
/** Cost center, GL code, project code: spec §3 combo items, with the oid that identifies them. */
export const Code = z.object({
  oid: z.string(),
  value: z.string(),
  label: z.string(),
  labels: Words,
});
export type Code = z.infer<typeof Code>;
export const Currency = z.object({ value: z.string(), label: z.string(), symbol: z.string() });
export type Currency = z.infer<typeof Currency>;

const RecordQuery = z.object({ record: Oid, archive: ArchiveParam });
const OidQuery = z.object({ oid: Oid, archive: ArchiveParam });
const OidBody = z.object({ oid: Oid, archive: z.optional(z.boolean()) });
const One = z.object({ expenseRequest: ExpenseRequest });

export const requests = {
  entity: endpoint({
    method: "GET",
    path: `${E}/pwaexpenseentity`,
    auth: "bearer",
    query: RecordQuery,
    response: One,
  }),
  accounts: endpoint({
    method: "GET",
    path: `${E}/pwaaccounts`,
    auth: "bearer",
    response: z.object({ accounts: z.array(Account) }),
  }),
  types: endpoint({
    method: "GET",
    path: `${E}/pwatypes`,
    auth: "bearer",
    query: z.object({ accountoid: z.optional(Oid) }),
    response: z.object({ types: z.array(RequestType) }),
  }),
  costCenters: endpoint({
    method: "GET",
    path: `${E}/pwaccodes`,
    auth: "bearer",
    /** oid: the request type; its cost-center restriction applies. */
    query: z.object({ oid: z.optional(Oid) }),
    response: z.object({ costcenters: z.array(Code) }),
  }),
  ledgers: endpoint({
    method: "GET",
    path: `${E}/pwaledgers`,
    auth: "bearer",
    query: z.object({ oid: z.optional(Oid), ccoid: Oid }),
    response: z.object({ ledgers: z.array(Code) }),
  }),
  projectCodes: endpoint({
    method: "GET",
    path: `${E}/pwaprojectcodes`,
    auth: "bearer",
    query: z.object({ oid: z.optional(Oid), ccoid: Oid }),
    response: z.object({ projectcodes: z.array(Code) }),
  }),
  currencies: endpoint({
    method: "GET",
    path: `${E}/pwacurrencylist`,
    auth: "bearer",
    response: z.object({ currencylist: z.array(Currency) }),
  }),
  countries: endpoint({
    method: "GET",
    path: `${E}/pwacountrylist`,
    auth: "bearer",
    response: z.object({
      countrylist: z.array(z.object({
        name: z.string(),
        label: z.string(),
        value: z.string(),
        selected: z.boolean(),
      })),
    }),
  }),
  canCreate: endpoint({
    method: "GET",
    path: `${E}/pwacheckcancreaterequest`,
    auth: "bearer",
    /** spec §5: 1 when allowed; otherwise the reason, in the user's language. */
    response: z.object({
      result: z.union([z.literal(0), z.literal(1)]),
      message: z.nullable(z.string()),
    }),
  }),
  create: endpoint({
    method: "POST",
    path: `${E}/pwaexpenserequestcreate`,
    auth: "bearer",
    body: z.object({ expenseRequest: CreateBody }),
    response: One,
  }),
  submit: endpoint({
    method: "POST",
    path: `${E}/pwasubmit`,
    auth: "bearer",
    body: z.object({ record: Oid, archive: z.optional(z.boolean()) }),
    response: One,
  }),
  checkNeedRecreate: endpoint({
    method: "POST",
    path: `${E}/pwacheckneedrecreate`,
    auth: "bearer",
    body: z.object({ expenseRequest: EditBody }),
    response: z.object({ sameAP: z.boolean() }),
  }),
  reissueApproval: endpoint({
    method: "POST",
    path: `${E}/pwareissueapproval`,
    auth: "bearer",
    body: z.object({ expenseRequest: EditBody }),
    response: One,
  }),
  modify: endpoint({
    method: "POST",
    path: `${E}/pwamodify`,
    auth: "bearer",
    body: z.object({ record: EditBody }),
    response: One,
  }),
  cancel: endpoint({
    method: "POST",
    path: `${E}/pwacancel`,
    auth: "bearer",
    body: OidBody,
    response: One,
  }),
  close: endpoint({
    method: "POST",
    path: `${E}/pwaclose`,
    auth: "bearer",
    body: OidBody,
    response: One,
  }),
  approvals: endpoint({
    method: "GET",
    path: `${E}/pwaapprovals`,
    auth: "bearer",
    query: OidQuery,
    response: z.object({ approvals: z.array(ApprovalTeam) }),
  }),
  comments: endpoint({
    method: "GET",
    path: `${E}/pwaexpensecomments`,
    auth: "bearer",
    query: OidQuery,
    response: z.object({
      comments: z.array(Comment),
      /** spec §7 comment upload: where comments go instead of pwaaddcomment (request_bodies.ts). */
      commentUploadUrl: z.optional(z.nullable(z.string())),
    }),
  }),
  addComment: endpoint({
    method: "POST",
    path: `${E}/pwaaddcomment`,
    auth: "bearer",
    body: CommentBody,
    response: z.object({ comment: Comment }),
  }),
  /** spec §7: a change made by GET. */
  deleteComment: endpoint({
    method: "GET",
    path: `${E}/pwadeletecomment`,
    auth: "bearer",
    query: RecordQuery,
    response: z.object({ status: z.literal("OK") }),
  }),
  userFullName: endpoint({
    method: "GET",
    path: `${E}/pwauserfullname`,
    auth: "bearer",
    query: z.object({ author: Oid }),
    response: z.object({ fullname: z.string() }),
  }),
};
