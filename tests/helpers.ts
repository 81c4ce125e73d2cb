import { createApp } from "../server/app/app.ts";
import { parseConfig } from "../server/config.ts";
import { makeDeps, seedIfEmpty, startDelivery } from "../server/app/boot.ts";
import type { Deps } from "../server/domain/env.ts";
import { newIssuerKeyText } from "../server/issuer/mod.ts";

export const DEMO = {
  employee: "employee@demo.example",
  approver: "approver@demo.example",
  manager: "manager@demo.example",
  delegate: "delegate@demo.example",
};

export interface CallOptions {
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
}

/**
 * One API call through `send` (the app in-process, or a server over HTTP): /bonita + path with
 * a JSON body and headers; its status, parsed JSON (null when not JSON), Response and text.
 */
export async function callWith(
  send: (path: string, init: RequestInit) => Promise<Response>,
  method: string,
  path: string,
  opts: CallOptions = {},
) {
  const headers: Record<string, string> = { ...opts.headers };
  let body: string | undefined = opts.raw;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] = "application/json";
  }
  const res = await send(`/bonita${path}`, { method, headers, body });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch { /* not JSON: asserted by the caller */ }
  return { status: res.status, json: json as Record<string, unknown>, res, text };
}

/**
 * The store a test app runs on: in-memory Deno KV, or with QCARD_TEST_STORE=postgres a fresh
 * schema on the test PostgreSQL (tests/pg.ts) — the same suites on the second store.
 */
export async function openTestKv(): Promise<Deno.Kv> {
  if (Deno.env.get("QCARD_TEST_STORE") !== "postgres") return await Deno.openKv(":memory:");
  const { openTestPgKv } = await import("./pg.ts");
  return await openTestPgKv();
}

/**
 * A fresh app on in-memory KV (or PostgreSQL, see openTestKv; or the store `opts.kv` given) with
 * the demo organisation seeded (cheap PIN hashing). Messages
 * are queued but not delivered unless `deliver` starts the worker (as main.ts does); then
 * close() stops it before closing KV and must be awaited.
 */
export async function testApp(
  env: Record<string, string> = {},
  opts: { deliver?: boolean; log?: (line: string) => void; kv?: Deno.Kv } = {},
) {
  const config = parseConfig({
    KV_PATH: ":memory:",
    PIN_HASH_ITERATIONS: "1000",
    STATIC_DIR: "./dist/preact",
    // Production requires one (server/issuer/key.ts); a fresh key per app, like :memory: KV.
    ISSUER_KEY: newIssuerKeyText(),
    // Tests start from the bare demo organisation unless they ask for its history.
    DEMO_HISTORY: "false",
    ...env,
  });
  const kv = opts.kv ?? await openTestKv();
  const deps: Deps = await makeDeps(config, kv, { log: () => {} });
  await seedIfEmpty(deps);
  const worker = opts.deliver ? startDelivery(deps, { log: opts.log ?? (() => {}) }) : undefined;
  const app = createApp(deps);
  let seq = 0;
  const api = {
    app,
    deps,
    kv,
    /** The delivery worker, when started. */
    worker,
    close: (): void | Promise<void> => {
      // Deno KV closes at once; the PostgreSQL store's close() is a promise (its pool).
      const closeKv = () => kv.close() as void | Promise<void>;
      if (!worker) return closeKv();
      return worker.stop().then(closeKv);
    },
    newDeviceId: () => `test-device-${++seq}-${crypto.randomUUID().slice(0, 8)}`,
    /** Calls /bonita + path with JSON body and headers; returns status and parsed JSON. */
    call: (method: string, path: string, opts: CallOptions = {}) =>
      callWith(async (p, init) => await app.request(p, init), method, path, opts),
    /** The newest activation code mailed to an address, read from the outbox. */
    async latestCode(email: string): Promise<string> {
      const [m] = await deps.outbox!.list({ to: email, limit: 1 });
      const code = /activation code is (\d{5})/.exec(m?.text ?? "")?.[1];
      if (!code) throw new Error(`no activation code mailed to ${email}`);
      return code;
    },
    /** Full activation: check code, confirm PIN. Returns the bearer token and device id. */
    async activate(email: string, pin = "135790") {
      const deviceId = api.newDeviceId();
      const code = await api.latestCode(email);
      const h = { "device-id": deviceId };
      const v = await api.call("POST", "/scmapi/expense/pwacheckvalidation", {
        body: { verificationcode: code },
        headers: h,
      });
      if (v.status !== 200) throw new Error(`checkvalidation ${v.status} ${v.text}`);
      const p = await api.call("POST", "/scmapi/expense/pwaconfirmpin", {
        body: { verificationcode: code, pin },
        headers: h,
      });
      if (p.status !== 200) throw new Error(`confirmpin ${p.status} ${p.text}`);
      return { token: String(p.json.token), deviceId, code };
    },
  };
  return api;
}

export type TestApi = Awaited<ReturnType<typeof testApp>>;

/** Runs a test body with a fresh app, closing KV afterwards. */
export function withApp(fn: (api: TestApi) => Promise<void>, env?: Record<string, string>) {
  return async () => {
    const api = await testApp(env);
    try {
      await fn(api);
    } finally {
      await api.close();
    }
  };
}

/**
 * The demo organisation plus `n` requestors `lostN@demo.example` (secret answer `paris`),
 * written to a temporary ORG_FILE: tests that need many users each under its own per-address
 * limits. Remove the file afterwards.
 */
export async function orgFileWithUsers(n: number): Promise<{ file: string; emails: string[] }> {
  const url = new URL("../server/org/demo_org.json", import.meta.url);
  const org = JSON.parse(await Deno.readTextFile(url));
  const template = org.users[0];
  const emails = Array.from({ length: n }, (_, i) => `lost${i}@demo.example`);
  org.users.push(...emails.map((email, i) => ({ ...template, email, fname: `Lost${i}` })));
  const file = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(file, JSON.stringify(org));
  return { file, emails };
}

/** Every activation code in the outbox (all users). */
export async function allCodes(api: TestApi): Promise<string[]> {
  const mails = await api.deps.outbox!.list({ limit: 10_000 });
  return mails.map((m) => /activation code is (\d{5})/.exec(m.text)?.[1] ?? "").filter(Boolean);
}

/** Distinct 5-digit codes that no user was sent: guaranteed wrong. */
export async function wrongCodes(api: TestApi, n: number): Promise<string[]> {
  const live = new Set(await allCodes(api));
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) {
    const c = String((i * 7919 + 4242) % 100_000).padStart(5, "0");
    if (!live.has(c) && !out.includes(c)) out.push(c);
  }
  return out;
}
