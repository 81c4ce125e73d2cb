/**
 * What the API tests share: answer assertions and demo logins, on the in-process app of
 * tests/helpers.ts.
 */
import assert from "node:assert/strict";
import type { TestApi } from "../helpers.ts";

export type Res = Awaited<ReturnType<TestApi["call"]>>;
export type Headers = Record<string, string>;

/** Asserts an error answer: the status, the `{error, message}` body and never a 5xx. */
export function assertError(r: Res, status: number, error?: string, message?: string | RegExp) {
  assert.ok(r.status < 500, `server error ${r.status}: ${r.text}`);
  assert.equal(r.status, status, `expected ${status}, got ${r.status}: ${r.text}`);
  assert.ok(r.json && typeof r.json === "object", `error body is not JSON: ${r.text}`);
  assert.equal(typeof r.json.error, "string", `no error code: ${r.text}`);
  assert.equal(typeof r.json.message, "string", `no message: ${r.text}`);
  assert.ok((r.json.message as string).length > 0);
  if (error !== undefined) assert.equal(r.json.error, error, r.text);
  if (typeof message === "string") assert.equal(r.json.message, message);
  else if (message) assert.match(r.json.message as string, message);
}

export function assertOk(r: Res) {
  assert.equal(r.status, 200, `expected 200, got ${r.status}: ${r.text}`);
}

export const bearer = (token: string): Headers => ({ authorization: `Bearer ${token}` });

const E = "/scmapi/expense";
/** GET / POST of an expense call (`/scmapi/expense/<path>`) with the caller's headers. */
export const getE = (api: TestApi, h: Headers, path: string) =>
  api.call("GET", `${E}/${path}`, { headers: h });
export const postE = (api: TestApi, h: Headers, path: string, body: unknown) =>
  api.call("POST", `${E}/${path}`, { body, headers: h });

/** Luhn's check (card numbers): what the card-data tests look for. */
export function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

async function demoUser(api: TestApi, email: string) {
  const user = await api.deps.store.users.byEmail(email);
  assert.ok(user, `no demo user ${email}`);
  return user;
}

/** Activates a demo user's device; its bearer headers, user oid and user. */
export async function login(api: TestApi, email: string) {
  const { token } = await api.activate(email);
  const user = await demoUser(api, email);
  return { h: bearer(token), oid: user.oid, user };
}

/** Activates a user whose activation mail is in French (helpers' latestCode reads English). */
export async function loginFrench(api: TestApi, email: string) {
  const [m] = await api.deps.outbox!.list({ to: email, limit: 1 });
  const code = /\b(\d{5})\b/.exec(m?.text ?? "")?.[1];
  assert.ok(code, `no activation code mailed to ${email}`);
  const deviceId = api.newDeviceId();
  const E = "/scmapi/expense";
  const v = await api.call("POST", `${E}/pwacheckvalidation`, {
    body: { verificationcode: code },
    headers: { "device-id": deviceId },
  });
  assertOk(v);
  const p = await api.call("POST", `${E}/pwaconfirmpin`, {
    body: { verificationcode: code, pin: "135790" },
    headers: { "device-id": deviceId },
  });
  assertOk(p);
  const user = await demoUser(api, email);
  return { h: bearer(String(p.json.token)), oid: user.oid, user };
}
