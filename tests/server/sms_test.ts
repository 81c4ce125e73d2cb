/**
 * SMS through the http transport (docs/messages.md) to a receiver started by the test: the
 * documented body {to, text, id}, the credential header, a retry after a 503, a 4xx that
 * fails at once, a 429 honoured with Retry-After.
 */
import assert from "node:assert/strict";
import { type TestApi, testApp } from "../helpers.ts";

interface Received {
  body: { to: string; text: string; id: string };
  auth: string | null;
  idempotencyKey: string | null;
  at: number;
}

/** A provider stand-in: answers each request with the next status of `script` (then 200). */
function receiver(script: number[]) {
  const got: Received[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    got.push({
      body: await req.json(),
      auth: req.headers.get("x-api-key"),
      idempotencyKey: req.headers.get("idempotency-key"),
      at: Date.now(),
    });
    const status = script.shift() ?? 200;
    const headers = status === 429 ? { "retry-after": "1" } : undefined;
    return new Response(status < 300 ? '{"ok":true}' : "busy", { status, headers });
  });
  return { got, server, url: `http://127.0.0.1:${server.addr.port}/sms` };
}

const env = (url: string) => ({
  SMS_TRANSPORT: "http",
  SMS_HTTP_URL: url,
  SMS_HTTP_AUTH_HEADER: "x-api-key",
  SMS_HTTP_TOKEN: "key-123",
  MESSAGE_BACKOFF_MS: "30",
  MESSAGE_BACKOFF_MAX_MS: "2000",
  MESSAGE_MAX_ATTEMPTS: "5",
});

const pin = (api: TestApi, to: string) =>
  api.deps.messages.send({
    channel: "sms",
    to,
    text: "Your QCard 3-D Secure PIN is 4821",
    purpose: "3ds-pin",
    expiresAt: api.deps.now() + 5 * 60_000,
  });

Deno.test("[sms] http transport: a 503 is retried, then the SMS is delivered once", async () => {
  const r = receiver([503]);
  const api = await testApp(env(r.url), { deliver: true });
  try {
    const id = await pin(api, "+33612345678");
    await api.worker!.idle();
    assert.equal(r.got.length, 2, "the 503, then the retry");
    for (const g of r.got) {
      assert.deepEqual(g.body, {
        to: "+33612345678",
        text: "Your QCard 3-D Secure PIN is 4821",
        id,
      });
      assert.equal(g.auth, "key-123");
      assert.equal(g.idempotencyKey, id);
    }
    const m = (await api.deps.messages.get(id))!;
    assert.equal(m.state, "delivered");
    assert.equal(m.attempts, 2);
    assert.equal(m.text, "", "the PIN is not kept once delivered");
    assert.equal(api.deps.outbox?.channels.includes("sms"), false, "/_outbox lists no http SMS");
  } finally {
    await api.close();
    await r.server.shutdown();
  }
});

Deno.test("[sms] http transport: a 400 fails at once and stays listed; a 429 waits for Retry-After", async () => {
  const r = receiver([400, 429]);
  const api = await testApp(env(r.url), { deliver: true });
  try {
    const bad = await pin(api, "+330000");
    await api.worker!.idle();
    const m = (await api.deps.messages.get(bad))!;
    assert.equal(m.state, "failed");
    assert.equal(m.attempts, 1);
    assert.match(m.lastError!, /400/);
    assert.deepEqual((await api.deps.messages.open()).map((x) => x.id), [bad]);

    const later = await pin(api, "+33698765432");
    await api.worker!.idle();
    assert.equal((await api.deps.messages.get(later))!.state, "delivered");
    const [t429, tOk] = r.got.slice(1).map((g) => g.at);
    assert.ok(tOk - t429 >= 900, `Retry-After: 1 s honoured (${tOk - t429} ms)`);
  } finally {
    await api.close();
    await r.server.shutdown();
  }
});

Deno.test("[sms] an SMS with no SMS transport configured fails visibly instead of waiting", async () => {
  const api = await testApp(
    { MAIL_TRANSPORT: "smtp", SMTP_HOST: "127.0.0.1", SMTP_PORT: "9", DEMO_ORG: "false" },
    { deliver: true },
  );
  try {
    const id = await pin(api, "+33612345678");
    await api.worker!.idle();
    const m = (await api.deps.messages.get(id))!;
    assert.equal(m.state, "failed");
    assert.match(m.lastError!, /no SMS transport/);
  } finally {
    await api.close();
  }
});
