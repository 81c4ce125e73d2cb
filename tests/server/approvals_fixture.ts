/**
 * What the approval suites share (approvals_*_test.ts): the calls, the demo users, valid TRAVEL
 * and EQUIPMENT bodies and the helpers that submit requests, read approvals and decide.
 */
import assert from "node:assert/strict";
import type { ApprovalRequest, ApprovalRow, Vote } from "../../client/shared/contract/approvals.ts";
import type { Comment } from "../../client/shared/contract/requests.ts";
import { DEMO, type TestApi } from "../helpers.ts";
import { assertOk, type Headers, login, loginFrench, type Res } from "./api.ts";
import { byName, create as createRequest, DIRECTOR, post as postE } from "./requests_fixture.ts";

// The request side is the request suites' (requests_fixture.ts): calls, entity, names.
export { byName, DIRECTOR, E, entity, get as getE, post as postE } from "./requests_fixture.ts";
export const A = "/scmapi/approval";

export const MSG = {
  decided: "This approval request has already been decided",
  notAllowed: "You cannot decide on this approval request",
  rejectNote: "This type needs a comment before a rejection: please add one first",
};

/** Every demo user, logged in. */
export async function everyone(api: TestApi) {
  return {
    emp: await login(api, DEMO.employee),
    fin: await login(api, DEMO.approver),
    mgr: await login(api, DEMO.manager),
    del: await login(api, DEMO.delegate),
    dir: await loginFrench(api, DIRECTOR),
  };
}

export const getA = (api: TestApi, h: Headers, path: string) =>
  api.call("GET", `${A}/${path}`, { headers: h });
export const postA = (api: TestApi, h: Headers, path: string, body: unknown) =>
  api.call("POST", `${A}/${path}`, { body, headers: h });

/** A valid TRAVEL request body; the amount decides the policy (≤ 250: Finance only). */
export const TRAVEL = {
  typeOid: "type-travel",
  amount: 300,
  purpose: "Train to Lyon",
  costCenterOid: "cc-sales",
  GLOid: "gl-travel",
  projectOid: "prj-crm",
};
/** EQUIPMENT (50–15000, cc-it/cc-admin): two levels, a reject note required. */
export const EQUIPMENT = {
  typeOid: "type-equipment",
  amount: 900,
  purpose: "Laptop",
  costCenterOid: "cc-it",
  GLOid: "gl-hardware",
  projectOid: "prj-cloud",
};

/** A TRAVEL request of this fixture (300: two levels), created by `h`. */
export const create = (api: TestApi, h: Headers, body: Record<string, unknown> = {}) =>
  createRequest(api, h, { ...TRAVEL, ...body });

/** Creates and submits a request; the request and the oid of its approval. */
export async function submitted(api: TestApi, h: Headers, body: Record<string, unknown> = {}) {
  const r = await create(api, h, body);
  assertOk(await postE(api, h, "pwasubmit", { record: r.oid }));
  const aps = await api.deps.store.approvals.byRequest(r.oid);
  assert.equal(aps.length, 1);
  return { request: r, oid: aps[0].oid };
}

export async function list(api: TestApi, h: Headers): Promise<ApprovalRow[]> {
  const r = await getA(api, h, "pwalistrequests");
  assertOk(r);
  return r.json.approvallist as ApprovalRow[];
}

export async function rowOf(
  api: TestApi,
  h: Headers,
  oid: string,
): Promise<ApprovalRow | undefined> {
  return (await list(api, h)).find((a) => a.oid === oid);
}

export async function details(api: TestApi, h: Headers, oid: string): Promise<ApprovalRequest> {
  const r = await getA(api, h, `pwagetapprovaldetails?record=${oid}`);
  assertOk(r);
  const list = r.json.approvalentity as ApprovalRequest[];
  assert.equal(list.length, 1);
  return list[0];
}

export async function votes(api: TestApi, h: Headers, oid: string): Promise<Vote[]> {
  const r = await getA(api, h, `pwagetvotes?oid=${oid}`);
  assertOk(r);
  return r.json.voteslist as Vote[];
}

export async function approvalComments(api: TestApi, h: Headers, oid: string): Promise<Comment[]> {
  const r = await getA(api, h, `pwagetComments?foreignentityoid=${oid}`);
  assertOk(r);
  return r.json.comments as Comment[];
}

export const approve = (
  api: TestApi,
  h: Headers,
  oid: string,
  extra: Record<string, unknown> = {},
) => postA(api, h, "pwaapprove", { oid, archive: false, ...extra });
export const reject = (
  api: TestApi,
  h: Headers,
  oid: string,
  extra: Record<string, unknown> = {},
) => postA(api, h, "pwareject", { oid, archive: false, ...extra });

/** A decision that must succeed; the approval it returns. */
export async function decided(call: Promise<Res>): Promise<ApprovalRequest> {
  const r = await call;
  assertOk(r);
  const list = r.json.approvalentity as ApprovalRequest[];
  assert.equal(list.length, 1);
  return list[0];
}

export const levelStatuses = (a: ApprovalRequest) =>
  a.pollLevels.map((l) => [l.level, l.statusCode]);
export const flags = (a: ApprovalRow) => ({
  canApprove: a.canApprove,
  canReject: a.canReject,
  canReview: a.canReview,
  isDelegated: a.isDelegated,
});
export const NO_FLAGS = {
  canApprove: false,
  canReject: false,
  canReview: false,
  isDelegated: false,
};
export const people = (xs: { fname: string; lname: string }[]) => [...xs].sort(byName);

export const ADAM = { fname: "Adam", lname: "Fischer" };
export const DANIEL = { fname: "Daniel", lname: "Peeters" };
export const DAVID = { fname: "David", lname: "Moreau" };
export const MARIA = { fname: "Maria", lname: "Jansen" };

export const iso = (t: number) => new Date(t).toISOString();
