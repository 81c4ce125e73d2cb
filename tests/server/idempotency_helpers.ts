/** Helpers shared by the idempotency tests (idempotency_test.ts, idempotency_lost_test.ts). */
import { DEMO, type TestApi } from "../helpers.ts";
import { assertOk, type Headers, login } from "./api.ts";
import { UPLOAD_PATH } from "../../client/shared/contract/documents.ts";
import { buy, defineSecure, E, get, newCard } from "./purchase_helpers.ts";

export async function setUp(api: TestApi, email = DEMO.employee) {
  const emp = await login(api, email);
  await defineSecure(api, emp.h, email === DEMO.employee ? "612345678" : "698765432");
  const card = await newCard(api, emp.h);
  const p = await buy(api, card, { amount: "42.00" });
  return { emp, tx: p.transactionOid };
}

export const keyed = (h: Headers, key: string): Headers => ({ ...h, "idempotency-key": key });

export const comment = (api: TestApi, h: Headers, oid: string, text: string) =>
  api.call("POST", `${E}/pwaaddtransactioncomment`, { body: { oid, comment: text }, headers: h });

export async function commentCount(api: TestApi, h: Headers, oid: string): Promise<number> {
  const r = await get(api, h, `pwatransactioncomments?oid=${oid}`);
  assertOk(r);
  return (r.json.comments as unknown[]).length;
}

export function upload(api: TestApi, h: Headers, record: string, png: Uint8Array) {
  // A new FormData each time: a new boundary, as a browser sends it on every attempt.
  const f = new FormData();
  f.append("record", record);
  f.append("documenttype", "receipt");
  f.append("file", new Blob([png as Uint8Array<ArrayBuffer>], { type: "image/png" }), "r.png");
  return api.app.request(`/bonita${UPLOAD_PATH}`, { method: "POST", headers: h, body: f });
}

/** How many idempotency records the store holds. */
export async function idemRecords(api: TestApi): Promise<number> {
  return (await Array.fromAsync(api.kv.list({ prefix: ["idem"] }))).length;
}

export async function receiptCount(api: TestApi, h: Headers, oid: string): Promise<number> {
  const r = await get(api, h, `pwaexpensereceipts?oid=${oid}`);
  assertOk(r);
  return (r.json.receipts as unknown[]).length;
}
