/** Helpers shared by the documents tests (documents_test.ts, documents_access_test.ts, documents_readings_test.ts). */
import assert from "node:assert/strict";
import { DEMO, type TestApi } from "../helpers.ts";
import { assertOk, type Headers, login } from "./api.ts";
import { UPLOAD_PATH, UploadResponse } from "../../client/shared/contract/documents.ts";
import { buy, defineSecure, newCard } from "./purchase_helpers.ts";

export async function setUp(api: TestApi, email = DEMO.employee) {
  const emp = await login(api, email);
  await defineSecure(api, emp.h, email === DEMO.employee ? "612345678" : "698765432");
  const card = await newCard(api, emp.h);
  const p = await buy(api, card, { amount: "42.00" });
  return { emp, card, tx: p.transactionOid };
}

export interface Upload {
  record: string;
  file?: Uint8Array;
  name?: string;
  preview?: Uint8Array;
  fields?: Record<string, string>;
}

export function form(u: Upload): FormData {
  const f = new FormData();
  f.append("record", u.record);
  for (const [k, v] of Object.entries(u.fields ?? {})) f.append(k, v);
  if (u.file) f.append("file", new Blob([u.file as Uint8Array<ArrayBuffer>]), u.name ?? "r.png");
  if (u.preview) f.append("preview", new Blob([u.preview as Uint8Array<ArrayBuffer>]), "p.jpg");
  return f;
}

export async function upload(api: TestApi, h: Headers, u: Upload) {
  const res = await api.app.request(`/bonita${UPLOAD_PATH}`, {
    method: "POST",
    headers: h,
    body: form(u),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text);
  } catch { /* asserted below */ }
  return { status: res.status, json, text, res };
}

export async function uploaded(api: TestApi, h: Headers, u: Upload): Promise<UploadResponse> {
  const r = await upload(api, h, u);
  assertOk(r);
  const parsed = UploadResponse.safeParse(r.json);
  assert.ok(parsed.success, r.text);
  return parsed.data;
}

export const file = (api: TestApi, h: Headers, path: string, query: string, more: Headers = {}) =>
  api.app.request(`/bonita${path}?${query}`, { headers: { ...h, ...more } });

export async function chunkKeys(api: TestApi): Promise<number> {
  let n = 0;
  for (const store of [api.deps.store.blobs, api.deps.store.secureBlobs]) {
    for await (const _ of api.kv.list({ prefix: store.chunkPrefix })) n++;
  }
  return n;
}

export async function markReviewed(api: TestApi, userOid: string, oid: string) {
  const { transactions, kv } = api.deps.store;
  const e = await transactions.get(userOid, oid);
  assert.ok(
    (await transactions.put(kv.atomic().check(e), { ...e.value!, reviewed: true })
      .commit()).ok,
  );
}
