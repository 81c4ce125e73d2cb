/** Helpers shared by the cards tests (cards_test.ts, cards_secure_test.ts). */
import assert from "node:assert/strict";
import { type TestApi } from "../helpers.ts";
import { recordDecision } from "../../server/domain/requests.ts";
import type { ExpenseRequest } from "../../client/shared/contract/requests.ts";
import { assertOk, getE, type Headers, postE } from "./api.ts";

export const E = "/scmapi/expense";

export const get = getE;

export const post = postE;

export const TRAVEL = {
  typeOid: "type-travel",
  amount: 120.5,
  purpose: "Train to Lyon",
  costCenterOid: "cc-sales",
  GLOid: "gl-travel",
  projectOid: "prj-crm",
};

/** Created, submitted and accepted through the workflow's entry point. */
export async function accepted(api: TestApi, h: Headers, body: Record<string, unknown> = {}) {
  const c = await post(api, h, "pwaexpenserequestcreate", {
    expenseRequest: { ...TRAVEL, ...body },
  });
  assertOk(c);
  const oid = (c.json.expenseRequest as ExpenseRequest).oid;
  assertOk(await post(api, h, "pwasubmit", { record: oid }));
  const [a] = await api.deps.store.approvals.byRequest(oid);
  assert.equal((await recordDecision(api.deps, a.oid, "accepted"))?.status, "accepted");
  return oid;
}

/** The newest 3-D Secure PIN sent to a phone (SMS outbox) or an address. */
export async function latestPin(api: TestApi, to: string): Promise<string> {
  const [m] = await api.deps.outbox!.list({ to, limit: 1 });
  const pin = /PIN is (\d{4})/.exec(m?.text ?? "")?.[1];
  assert.ok(pin, `no 3-D Secure PIN sent to ${to}`);
  return pin;
}

export const SECURE = { password: "Tr4in-2027!", countryPrefix: "+33", phoneNumber: "612345678" };

/** Defines 3-D Secure through the whole flow: save → requirePin → PIN from the SMS → pinOk. */
export async function defineSecure(api: TestApi, h: Headers, record = SECURE) {
  const s = await post(api, h, "pwasetexpensedosecure", { record });
  assertOk(s);
  assert.equal(s.json.requirePin, true);
  const pin = await latestPin(api, `${record.countryPrefix}${record.phoneNumber}`);
  const v = await post(api, h, "pwaexpensedosecurevalidatepin", { pin });
  assertOk(v);
  assert.equal(v.json.pinOk, true);
}
