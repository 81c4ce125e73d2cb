/** Helpers shared by the push tests (push_test.ts, push_delivery_test.ts). */
import assert from "node:assert/strict";
import { pushService } from "../../server/push/mod.ts";
import { DEMO, type TestApi, testApp } from "../helpers.ts";
import { assertOk, bearer, type Headers } from "./api.ts";
import { type Receiver, startReceiver } from "./push_receiver.ts";

export const E = "/scmapi/expense";

export const A = "/scmapi/approval";

export const SUBJECT = "mailto:push-ops@qcard.eu";

export const DIRECTOR = "director@demo.example";

export const PEOPLE = {
  employee: DEMO.employee,
  approver: DEMO.approver,
  manager: DEMO.manager,
  delegate: DEMO.delegate,
  director: DIRECTOR,
};

export type Who = keyof typeof PEOPLE;

export interface Env {
  api: TestApi;
  rx: Receiver;
  h: Record<Who, Headers>;
  devices: Record<Who, string>;
  logs: string[];
  idle: () => Promise<void>;
  close: () => Promise<void>;
}

/** An app delivering pushes, the local push service, and everyone activated and subscribed. */
export async function setup(
  env: Record<string, string> = {},
  who: Who[] = ["employee"],
): Promise<Env> {
  const rx = await startReceiver({ subject: SUBJECT });
  const logs: string[] = [];
  const api = await testApp({
    VAPID_SUBJECT: SUBJECT,
    // The local push service, allowed by name (no development exception).
    PUSH_HOSTS: rx.origin,
    MESSAGE_BACKOFF_MS: "20",
    MESSAGE_BACKOFF_MAX_MS: "100",
    ...env,
  }, { deliver: true, log: (l) => logs.push(l) });
  const init = await api.call("GET", "/qtservlet/initialize");
  assertOk(init);
  rx.expectKey(String(init.json.vapidPublicKey));
  const h = {} as Record<Who, Headers>;
  const devices = {} as Record<Who, string>;
  for (const w of who) {
    const { token, deviceId } = await activate(api, PEOPLE[w]);
    h[w] = bearer(token);
    devices[w] = deviceId;
    await register(api, h[w], deviceId, (await rx.subscribe(w)).token);
  }
  const idle = () => pushService(api.deps)!.idle();
  return {
    api,
    rx,
    h,
    devices,
    logs,
    idle,
    close: async () => {
      await api.close();
      await rx.close();
    },
  };
}

/** api.activate, for French mails too (the director's code is in French). */
export async function activate(api: TestApi, email: string) {
  const [m] = await api.deps.outbox!.list({ to: email, limit: 1 });
  const code = /\b(\d{5})\b/.exec(m?.text ?? "")?.[1];
  assert.ok(code, `no activation code mailed to ${email}`);
  const deviceId = api.newDeviceId();
  const h = { "device-id": deviceId };
  const body = { verificationcode: code };
  assertOk(await api.call("POST", `${E}/pwacheckvalidation`, { body, headers: h }));
  const p = await api.call("POST", `${E}/pwaconfirmpin`, {
    body: { ...body, pin: "135790" },
    headers: h,
  });
  assertOk(p);
  return { token: String(p.json.token), deviceId };
}

export async function register(api: TestApi, h: Headers, deviceId: string, pushToken: string) {
  const r = await api.call("POST", `${E}/pwaregisterpushtoken`, {
    body: { pushToken, deviceId, isIOS: false },
    headers: h,
  });
  assertOk(r);
}

export async function userOid(api: TestApi, who: Who) {
  return (await api.deps.store.users.byEmail(PEOPLE[who]))!.oid;
}
