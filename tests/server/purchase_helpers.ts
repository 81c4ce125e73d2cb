/**
 * What the transaction tests share: an employee with 3-D Secure defined and a card
 * on an accepted request, purchases through the issuer's test mode (`/_issuer`, loopback),
 * and the lists the app answers.
 */
import assert from "node:assert/strict";
import type { TestApi } from "../helpers.ts";
import { recordDecision } from "../../server/domain/requests.ts";
import type { Card } from "../../client/shared/contract/cards.ts";
import type { ExpenseRequest } from "../../client/shared/contract/requests.ts";
import type { Transaction, TransactionRow } from "../../client/shared/contract/transactions.ts";
import { assertOk, type Headers } from "./api.ts";

export const E = "/scmapi/expense";
export const LOOPBACK = { remoteAddr: { hostname: "127.0.0.1" } };
export const PASSWORD = "Tr4in-2027!";

export const get = (api: TestApi, h: Headers, path: string) =>
  api.call("GET", `${E}/${path}`, { headers: h });
export const post = (api: TestApi, h: Headers, path: string, body: unknown) =>
  api.call("POST", `${E}/${path}`, { body, headers: h });

export const TRAVEL = {
  typeOid: "type-travel",
  amount: 120.5,
  purpose: "Train to Lyon",
  costCenterOid: "cc-sales",
  GLOid: "gl-travel",
  projectOid: "prj-crm",
};

/** A TRAVEL request (with `body`'s changes) created and submitted: its oid and first approval's. */
export async function submitted(api: TestApi, h: Headers, body: Record<string, unknown> = {}) {
  const c = await post(api, h, "pwaexpenserequestcreate", {
    expenseRequest: { ...TRAVEL, ...body },
  });
  assertOk(c);
  const oid = (c.json.expenseRequest as ExpenseRequest).oid;
  assertOk(await post(api, h, "pwasubmit", { record: oid }));
  const [a] = await api.deps.store.approvals.byRequest(oid);
  return { oid, approvalOid: a.oid };
}

/** Created, submitted and accepted through the workflow's entry point. */
export async function accepted(api: TestApi, h: Headers, body: Record<string, unknown> = {}) {
  const { oid, approvalOid } = await submitted(api, h, body);
  assert.equal((await recordDecision(api.deps, approvalOid, "accepted"))?.status, "accepted");
  return oid;
}

/** Defines 3-D Secure through the whole flow (save → PIN by SMS → validate). */
export async function defineSecure(api: TestApi, h: Headers, phone = "612345678") {
  const s = await post(api, h, "pwasetexpensedosecure", {
    record: { password: PASSWORD, countryPrefix: "+33", phoneNumber: phone },
  });
  assertOk(s);
  const [m] = await api.deps.outbox!.list({ to: `+33${phone}`, limit: 1 });
  const pin = /PIN is (\d{4})/.exec(m?.text ?? "")?.[1];
  assert.ok(pin, "no 3-D Secure PIN sent");
  const v = await post(api, h, "pwaexpensedosecurevalidatepin", { pin });
  assertOk(v);
  assert.equal(v.json.pinOk, true);
}

/** A card on a new accepted request (3-D Secure must be defined). */
export async function newCard(api: TestApi, h: Headers, body: Record<string, unknown> = {}) {
  const oid = await accepted(api, h, body);
  const g = await post(api, h, "pwanewqcard", { oid });
  assertOk(g);
  return g.json.card as Card;
}

/** POST /_issuer/<what> as JSON from loopback. */
export async function issuer(api: TestApi, what: string, body: Record<string, unknown>) {
  const res = await api.app.request(`/_issuer/${what}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(body),
  }, LOOPBACK);
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text) as Record<string, unknown>, text };
}

/** A purchase that must be answered (approved or declined); its answer. */
export async function buy(api: TestApi, card: Card, body: Record<string, unknown> = {}) {
  const r = await issuer(api, "purchase", {
    card: card.oid,
    amount: "10.00",
    merchantName: "Café de la Gare",
    merchantCity: "Lyon",
    merchantCountry: "FR",
    mcc: "5812",
    capture: true,
    ...body,
  });
  assert.equal(r.status, 200, r.text);
  return r.json as {
    transactionOid: string;
    authorizationId: string;
    approved: boolean;
    status: string;
    refusedReason: string | null;
    refusedReasonDecoded: string;
    amount: number;
    currency: string;
    originalAmount: number;
    available: number;
  };
}

export async function rows(api: TestApi, h: Headers): Promise<TransactionRow[]> {
  const r = await get(api, h, "pwalists");
  assertOk(r);
  return (r.json.transactions as { receiptslist: TransactionRow[] }).receiptslist;
}

export async function detail(api: TestApi, h: Headers, oid: string): Promise<Transaction> {
  const r = await get(api, h, `pwatransaction?oid=${oid}`);
  assertOk(r);
  return r.json.transaction as Transaction;
}
