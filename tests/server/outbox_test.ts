/**
 * What operators and developers see of messages (docs/messages.md): /_outbox with email and SMS and
 * their delivery states, /healthz figures without content, and the settings' checks.
 */
import assert from "node:assert/strict";
import { parseConfig } from "../../server/config.ts";
import { DEMO, testApp, withApp } from "../helpers.ts";

/** /_outbox answers loopback peers only (as Deno.serve would pass it). */
const LOOPBACK = { remoteAddr: { hostname: "127.0.0.1" } };

Deno.test("[outbox] /_outbox lists email and SMS with their delivery state; ?to= filters", async () => {
  const api = await testApp({}, { deliver: false });
  try {
    await api.deps.outbox!.send({ channel: "sms", to: "+33612345678", text: "PIN 4321" });
    const get = async (q = "") => {
      const res = await api.app.request(`/_outbox${q}`, {
        headers: { accept: "application/json" },
      }, LOOPBACK);
      assert.equal(res.status, 200);
      return (await res.json()).messages as Record<string, unknown>[];
    };
    const all = await get();
    assert.equal(all.length, 6);
    assert.deepEqual(all[0].channel, "sms");
    assert.equal(all[0].state, "pending");
    for (const k of ["id", "to", "subject", "text", "sentAt", "state", "attempts"]) {
      assert.ok(k in all[1], `field ${k}`);
    }
    assert.deepEqual((await get("?to=%2B33612345678")).map((m) => m.text), ["PIN 4321"]);
    const page = await (await api.app.request("/_outbox", {}, LOOPBACK)).text();
    assert.match(page, /SMS to \+33612345678/);
    assert.match(page, /pending/);
  } finally {
    await api.close();
  }
  // With delivery running the outbox transport marks them delivered and keeps them readable.
  const live = await testApp({}, { deliver: true });
  try {
    await live.worker!.idle();
    const [m] = await live.deps.outbox!.list({ to: DEMO.manager, limit: 1 });
    assert.equal(m.state, "delivered");
    assert.match(m.text, /activation code is \d{5}/);
    assert.ok(await live.latestCode(DEMO.manager));
  } finally {
    await live.close();
  }
});

Deno.test(
  "[outbox] /healthz: counts and the oldest pending age, no content and no addresses",
  withApp(async (api) => {
    const res = await api.app.request("/healthz");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "no-store");
    const text = await res.text();
    const body = JSON.parse(text);
    assert.equal(body.status, "ok");
    assert.equal(body.messages.pending, 5, "the seeded mails, no worker running");
    assert.equal(body.messages.failed, 0);
    assert.equal(typeof body.messages.oldestPendingAgeSeconds, "number");
    assert.doesNotMatch(text, /@|code/);
    api.deps.now = () => Date.now() + 16 * 60_000;
    const late = await (await api.app.request("/healthz")).json();
    assert.equal(late.status, "degraded", "a message waiting over 15 minutes");
  }),
);

Deno.test("[outbox] config: SMS transports, CA and backoff settings are checked", () => {
  const base = { KV_PATH: ":memory:" };
  const prod = { ...base, APP_ENV: "production", MAIL_TRANSPORT: "smtp", SMTP_HOST: "mx" };
  assert.throws(() => parseConfig({ ...prod, SMS_TRANSPORT: "outbox" }), /SMS_TRANSPORT/);
  assert.throws(() => parseConfig({ ...base, SMS_TRANSPORT: "http" }), /SMS_HTTP_URL/);
  assert.throws(
    () => parseConfig({ ...prod, SMS_TRANSPORT: "http", SMS_HTTP_URL: "http://sms.example/" }),
    /https/,
  );
  assert.throws(() => parseConfig({ ...base, SMTP_CA: "not a pem" }), /SMTP_CA/);
  assert.throws(
    () => parseConfig({ ...base, MESSAGE_BACKOFF_MS: "1000", MESSAGE_BACKOFF_MAX_MS: "10" }),
    /MESSAGE_BACKOFF_MAX_MS/,
  );
  const ok = parseConfig({ ...prod, SMS_TRANSPORT: "http", SMS_HTTP_URL: "https://sms.example/" });
  assert.equal(ok.MESSAGE_MAX_ATTEMPTS, 12);
  assert.equal(ok.SMS_HTTP_AUTH_HEADER, "authorization");
});
