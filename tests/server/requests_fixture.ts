/**
 * What the expense request suites share (requests_*_test.ts): the calls, the spec's messages, a
 * valid TRAVEL body and the helpers that create, submit, accept, comment and edit requests.
 */
import assert from "node:assert/strict";
import type {
  ApprovalTeam,
  Comment,
  ExpenseRequest,
} from "../../client/shared/contract/requests.ts";
import { recordDecision } from "../../server/domain/requests.ts";
import { transactionRecord } from "./transaction_records.ts";
import { type TestApi } from "../helpers.ts";
import { assertOk, type Headers } from "./api.ts";

export const E = "/scmapi/expense";
export const DIRECTOR = "director@demo.example";

export const MSG = {
  typeRequired: "Please choose a type",
  typeUnknown: "This type does not exist",
  amountRequired: "Please enter an amount",
  amountInvalid: "Please enter a positive amount with at most two decimals",
  travelRange: "Amount must be between €20.00 and €5,000.00",
  purposeRequired: "Please enter a purpose",
  purposeTooLong: "The purpose can have at most 500 characters",
  budgetRequired: "This type is recurring: please create a budget",
  budgetNotAllowed: "This type does not allow a budget",
  codesRequired: "Project, GL code and cost center must be set",
  codesMismatch: "This GL code or project code does not belong to the cost center",
  costCenterNotAllowed: "This cost center cannot be used with this type",
  currencyUnknown: "This currency is not available",
  accountUnknown: "This account does not exist",
  typeAccountMismatch: "This type does not belong to the chosen account",
  vendorUrlInvalid: "Please enter a valid web address for the vendor",
  missingReceipts: "You have transactions that still have no receipts, please provide those first",
  cannotRequest: "You are not allowed to create requests",
  notAllowed: "This action is not allowed for this request",
  reissueRequired: "This change needs a new approval",
  commentNotAllowed: "Comments cannot be added to this request",
  commentNotDeletable: "This comment cannot be deleted",
  badStart: "Please choose a valid start date",
  badAmount: "Please enter a positive amount per occurrence",
};

export const get = (api: TestApi, h: Headers, path: string) =>
  api.call("GET", `${E}/${path}`, { headers: h });
export const post = (api: TestApi, h: Headers, path: string, body: unknown) =>
  api.call("POST", `${E}/${path}`, { body, headers: h });

/**
 * The spec's fields of lookup items, without the organisation's words of every language
 * (`labels`, `descriptions`: tests/server/org_words_test.ts).
 */
export const specFields = (items: unknown) =>
  (items as Record<string, unknown>[]).map(({ labels: _l, descriptions: _d, ...spec }) => spec);

/** A valid TRAVEL request body (Finance only: amount ≤ 250). */
export const TRAVEL = {
  typeOid: "type-travel",
  amount: 120,
  purpose: "Train to Lyon",
  costCenterOid: "cc-sales",
  GLOid: "gl-travel",
  projectOid: "prj-crm",
};

export const createRaw = (api: TestApi, h: Headers, body: Record<string, unknown>) =>
  post(api, h, "pwaexpenserequestcreate", { expenseRequest: body });

export async function create(
  api: TestApi,
  h: Headers,
  body: Record<string, unknown> = {},
): Promise<ExpenseRequest> {
  const r = await createRaw(api, h, { ...TRAVEL, ...body });
  assertOk(r);
  return r.json.expenseRequest as ExpenseRequest;
}

export async function entity(api: TestApi, h: Headers, oid: string): Promise<ExpenseRequest> {
  const r = await get(api, h, `pwaexpenseentity?record=${oid}`);
  assertOk(r);
  return r.json.expenseRequest as ExpenseRequest;
}

export async function submit(api: TestApi, h: Headers, oid: string): Promise<ExpenseRequest> {
  const r = await post(api, h, "pwasubmit", { record: oid });
  assertOk(r);
  return r.json.expenseRequest as ExpenseRequest;
}

/** Submits and accepts through the workflow's entry point; the accepted request. */
export async function accepted(api: TestApi, h: Headers, body: Record<string, unknown> = {}) {
  const r = await create(api, h, body);
  await submit(api, h, r.oid);
  const [a] = await api.deps.store.approvals.byRequest(r.oid);
  const rec = await recordDecision(api.deps, a.oid, "accepted");
  assert.equal(rec?.status, "accepted");
  return await entity(api, h, r.oid);
}

export async function comments(api: TestApi, h: Headers, oid: string): Promise<Comment[]> {
  const r = await get(api, h, `pwaexpensecomments?oid=${oid}`);
  assertOk(r);
  return r.json.comments as Comment[];
}

export async function addComment(api: TestApi, h: Headers, oid: string, text: string) {
  const r = await post(api, h, "pwaaddcomment", { oid, comment: text });
  assertOk(r);
  return r.json.comment as Comment;
}

/** An edit body: the request's codes, overridden by `over`. */
export function edit(r: ExpenseRequest, over: Record<string, unknown> = {}) {
  return {
    oid: r.oid,
    purpose: r.purpose,
    costCenterOid: r.costCenterOid,
    GLOid: r.GLOid,
    projectOid: r.projectOid,
    ...over,
  };
}

export const byName = (a: { fname: string; lname: string }, b: { fname: string; lname: string }) =>
  `${a.fname} ${a.lname}`.localeCompare(`${b.fname} ${b.lname}`);
export const sortUsers = (teams: ApprovalTeam[]) =>
  teams.map((t) => ({ ...t, teamUsers: [...t.teamUsers].sort(byName) }));

/** Before submission: who each level will ask (no level state, no decisions yet). */
export const FINANCE: ApprovalTeam = {
  teamOid: "team-finance",
  teamName: "Finance",
  level: 1,
  teamUsers: [{ fname: "Adam", lname: "Fischer" }],
  levelStatus: null,
  decisions: [],
};
export const MANAGEMENT: ApprovalTeam = {
  teamOid: "team-management",
  teamName: "Management",
  level: 2,
  teamUsers: [{ fname: "David", lname: "Moreau" }, { fname: "Maria", lname: "Jansen" }],
  levelStatus: null,
  decisions: [],
};
/** A team on a submitted request, its level in state `levelStatus`. */
export const at = (t: ApprovalTeam, levelStatus: ApprovalTeam["levelStatus"]) => ({
  ...t,
  levelStatus,
});

export async function putTransaction(
  api: TestApi,
  userOid: string,
  transactionStatus: string,
  nbReceipts: number,
) {
  // Captured eight days ago: past the demo organisation's 7-day receipt delay.
  const t = transactionRecord(userOid, { transactionStatus, nbReceipts });
  const res = await api.deps.store.transactions.put(api.kv.atomic(), t).commit();
  assert.ok(res.ok);
}
