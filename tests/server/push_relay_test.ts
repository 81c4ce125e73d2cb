/**
 * Push in relay mode (docs/relay.md): an edge (UPSTREAM_URL, PUSH_RELAY_SECRET, the VAPID keys) and
 * an upstream (PUSH_RELAY_URL = the edge, the same secret, no VAPID keys), each a whole app on its
 * own in-memory KV and its own port on 127.0.0.1, and the local push service of push_receiver.ts
 * that checks the edge's VAPID JWTs and decrypts every payload.
 */
import assert from "node:assert/strict";
import webpush from "web-push";
import { enqueue, pushService } from "../../server/push/mod.ts";
import { recordEdgeRegistration } from "../../server/push/edge.ts";
import { NONCE_HEADER, RELAY_WINDOW_MS, signRelay } from "../../server/push/relay.ts";
import { DEMO, type TestApi, testApp } from "../helpers.ts";
import { assertOk, bearer } from "./api.ts";
import { submitted } from "./purchase_helpers.ts";
import { type Receiver, startReceiver } from "./push_receiver.ts";

const E = "/scmapi/expense";
const A = "/scmapi/approval";
const SUBJECT = "mailto:push-ops@qcard.eu";
const SECRET = "edge-and-upstream-share-this-secret-0123456789";
const te = new TextEncoder();

interface Env {
  rx: Receiver;
  edge: TestApi;
  upstream: TestApi;
  edgeUrl: string;
  /** The edge's VAPID public key. */
  edgeKey: string;
  logs: string[];
  close: () => Promise<void>;
}

/** Edge and upstream on their own ports (each knows the other's URL), and the push service. */
async function setup(opts: { upstreamSecret?: string } = {}): Promise<Env> {
  const rx = await startReceiver({ subject: SUBJECT });
  const apps: { edge?: TestApi; upstream?: TestApi } = {};
  const listen = (which: "edge" | "upstream") =>
    Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen: () => {} },
      (req, info) => apps[which]!.app.fetch(req, { remoteAddr: info.remoteAddr }),
    );
  const [edgeServer, upServer] = [listen("edge"), listen("upstream")];
  const edgeUrl = `http://127.0.0.1:${edgeServer.addr.port}`;
  const upstreamUrl = `http://127.0.0.1:${upServer.addr.port}`;
  const pair = webpush.generateVAPIDKeys();
  apps.edge = await testApp({
    UPSTREAM_URL: upstreamUrl,
    PUSH_HOSTS: rx.origin,
    PUSH_RELAY_SECRET: SECRET,
    VAPID_PUBLIC_KEY: pair.publicKey,
    VAPID_PRIVATE_KEY: pair.privateKey,
    VAPID_SUBJECT: SUBJECT,
  });
  const logs: string[] = [];
  apps.upstream = await testApp({
    PUSH_RELAY_URL: edgeUrl,
    PUSH_HOSTS: rx.origin,
    PUSH_RELAY_SECRET: opts.upstreamSecret ?? SECRET,
    MESSAGE_MAX_ATTEMPTS: "3",
    MESSAGE_BACKOFF_MS: "20",
    MESSAGE_BACKOFF_MAX_MS: "100",
  }, { deliver: true, log: (l) => logs.push(l) });
  rx.expectKey(pair.publicKey);
  const { edge, upstream } = apps;
  return {
    rx,
    edge,
    upstream,
    edgeUrl,
    edgeKey: pair.publicKey,
    logs,
    close: async () => {
      await upstream.close();
      await upServer.shutdown();
      await edgeServer.shutdown();
      await edge.close();
      await rx.close();
    },
  };
}

/** A relay request body for a subscriber (what the upstream sends). */
function pushBody(token: string, body = "secret body 4711") {
  return {
    subscription: JSON.parse(token),
    payload: JSON.stringify({ title: "Test", body, url: "/?open=request:r1", tag: "request:r1" }),
    ttlSeconds: 120,
    urgency: "high",
  };
}

/** POST /edge/push with these bytes and headers; the status and JSON answer. */
async function post(t: Env, bytes: Uint8Array, headers: Record<string, string>) {
  const res = await fetch(`${t.edgeUrl}/edge/push`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: new Uint8Array(bytes),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text);
  } catch { /* asserted below */ }
  return { status: res.status, json, text };
}

/** A correctly signed request (or one signed with `secret`, at `now`, with `nonce`). */
async function signed(
  body: unknown,
  o: { secret?: string; now?: number; nonce?: string } = {},
) {
  const bytes = te.encode(JSON.stringify(body));
  return { bytes, headers: await signRelay(o.secret ?? SECRET, bytes, o.now, o.nonce) };
}

/** A subscriber whose subscription was registered through the edge. */
async function registered(t: Env, name: string) {
  const s = await t.rx.subscribe(name);
  await recordEdgeRegistration(t.edge.deps, {
    pushToken: s.token,
    deviceId: `device-${name}`,
    isIOS: false,
  });
  return s;
}

function refused(r: Awaited<ReturnType<typeof post>>, status: number, error: string) {
  assert.equal(r.status, status, r.text);
  assert.equal(r.json.error, error, r.text);
  assert.equal(typeof r.json.message, "string", r.text);
}

Deno.test("[push relay] a request not signed with the shared secret is refused 401 and nothing is sent", async () => {
  const t = await setup();
  try {
    const s = await registered(t, "alice");
    const body = pushBody(s.token);
    const good = await signed(body);
    refused(await post(t, good.bytes, {}), 401, "unsigned");
    const other = await signed(body, { secret: "another-secret-of-the-same-length-0123456" });
    refused(await post(t, other.bytes, other.headers), 401, "bad_signature");
    // The body changed after signing (another payload, another subscription).
    const tampered = te.encode(JSON.stringify({ ...body, payload: '{"title":"Pay now"}' }));
    refused(await post(t, tampered, good.headers), 401, "bad_signature");
    const sig = good.headers["x-qcard-push-signature"];
    const flipped = `${sig[0] === "A" ? "B" : "A"}${sig.slice(1)}`;
    const h = { ...good.headers, "x-qcard-push-signature": flipped };
    refused(await post(t, good.bytes, h), 401, "bad_signature");
    assert.equal(t.rx.attempts.size, 0, "nothing reached the push service");
    // Refusals burn no nonce: the genuine request with the same nonce still goes through.
    const r = await post(t, good.bytes, good.headers);
    assert.equal(r.status, 201, r.text);
    assert.equal(t.rx.to("alice").length, 1);
  } finally {
    await t.close();
  }
});

Deno.test("[push relay] a replayed request is refused, also when both copies arrive at once", async () => {
  const t = await setup();
  try {
    const s = await registered(t, "alice");
    const req = await signed(pushBody(s.token));
    assert.equal((await post(t, req.bytes, req.headers)).status, 201);
    refused(await post(t, req.bytes, req.headers), 401, "replayed_request");
    // Same nonce, new signature over another body: still a replay.
    const again = await signed(pushBody(s.token, "other"), { nonce: req.headers[NONCE_HEADER] });
    refused(await post(t, again.bytes, again.headers), 401, "replayed_request");
    // Two copies at the same time: the checked write in KV lets exactly one through.
    const twin = await signed(pushBody(s.token, "twin"));
    const both = await Promise.all([0, 1].map(() => post(t, twin.bytes, twin.headers)));
    assert.deepEqual(both.map((r) => r.status).sort(), [201, 401]);
    assert.deepEqual(t.rx.to("alice").map((d) => d.payload.body), ["secret body 4711", "twin"]);
  } finally {
    await t.close();
  }
});

Deno.test("[push relay] a timestamp more than 5 minutes off the edge's clock is refused", async () => {
  const t = await setup();
  try {
    const s = await registered(t, "alice");
    const body = pushBody(s.token);
    for (const off of [-RELAY_WINDOW_MS - 1000, RELAY_WINDOW_MS + 60_000, -86_400_000]) {
      const req = await signed(body, { now: Date.now() + off });
      refused(await post(t, req.bytes, req.headers), 401, "stale_request");
    }
    assert.equal(t.rx.attempts.size, 0);
    const late = await signed(body, { now: Date.now() - RELAY_WINDOW_MS + 30_000 });
    assert.equal((await post(t, late.bytes, late.headers)).status, 201);
  } finally {
    await t.close();
  }
});

Deno.test("[push relay] a good request reaches a subscription registered through the edge; others answer 410", async () => {
  const t = await setup();
  try {
    const alice = await registered(t, "alice");
    const req = await signed(pushBody(alice.token, "Lunch with the Lyon team"));
    const r = await post(t, req.bytes, req.headers);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.result, "delivered");
    const [d] = t.rx.to("alice");
    assert.equal(d.payload.body, "Lunch with the Lyon team");
    assert.equal(d.payload.url, "/?open=request:r1");
    assert.equal(d.ttl, 120);
    assert.equal(d.urgency, "high");
    assert.equal(d.claims.sub, SUBJECT);
    assert.deepEqual(t.rx.errors, []);

    // Known to the push service but never registered through this edge: not sent.
    const bob = await t.rx.subscribe("bob");
    const b = await signed(pushBody(bob.token));
    refused(await post(t, b.bytes, b.headers), 410, "unknown_subscription");
    assert.equal(t.rx.attempts.get("bob"), undefined);

    // The push service says gone: 410, and the edge forgets it too.
    t.rx.answer("alice", 410);
    const g = await signed(pushBody(alice.token));
    refused(await post(t, g.bytes, g.headers), 410, "gone");
    const g2 = await signed(pushBody(alice.token));
    refused(await post(t, g2.bytes, g2.headers), 410, "unknown_subscription");
    assert.equal(t.rx.attempts.get("alice"), 2);

    // A device that deregisters (empty token) retires its endpoint at the edge.
    const carol = await registered(t, "carol");
    const deviceId = "device-carol";
    await recordEdgeRegistration(t.edge.deps, { pushToken: "", deviceId, isIOS: false });
    const c = await signed(pushBody(carol.token));
    refused(await post(t, c.bytes, c.headers), 410, "unknown_subscription");

    // Push service asks to wait: 503 with its Retry-After; a refused message: 400.
    const dave = await registered(t, "dave");
    t.rx.answer("dave", 500, 413);
    const d1 = await signed(pushBody(dave.token));
    refused(await post(t, d1.bytes, d1.headers), 503, "push_unavailable");
    const d2 = await signed(pushBody(dave.token));
    const r2 = await post(t, d2.bytes, d2.headers);
    refused(r2, 400, "push_refused");
    assert.ok(!r2.text.includes("/push/dave"), "no endpoint in the answer");

    // Signed but not a valid request: 400; too large: 413 before anything is checked.
    const bad = await signed({ ...pushBody(dave.token), urgency: "now" });
    refused(await post(t, bad.bytes, bad.headers), 400, "invalid_request");
    const big = await signed({ ...pushBody(dave.token), pad: "x".repeat(17 * 1024) });
    refused(await post(t, big.bytes, big.headers), 413, "payload_too_large");
    // Only the edge serves it: the upstream (no UPSTREAM_URL) has no /edge/push.
    const up = await t.upstream.app.request("/edge/push", { method: "POST", body: "{}" });
    assert.equal(up.status, 404);
  } finally {
    await t.close();
  }
});

/** Activates `email` on the upstream and registers a push subscription there (push_test). */
async function subscribeOnUpstream(t: Env, email: string, name: string) {
  const { token, deviceId } = await t.upstream.activate(email);
  const s = await t.rx.subscribe(name);
  const h = bearer(token);
  const body = { pushToken: s.token, deviceId, isIOS: false };
  assertOk(await t.upstream.call("POST", `${E}/pwaregisterpushtoken`, { body, headers: h }));
  return { h, deviceId, s, body };
}

Deno.test("[push relay] end to end: a request decided on the upstream reaches the employee through the edge", async () => {
  const t = await setup();
  try {
    const emp = await subscribeOnUpstream(t, DEMO.employee, "employee");
    // What the edge's relay does after the upstream accepted pwaregisterpushtoken.
    await recordEdgeRegistration(t.edge.deps, emp.body);
    const { token } = await t.upstream.activate(DEMO.approver);
    const req = await submitted(t.upstream, emp.h, { amount: 80, purpose: "Taxi to the airport" });
    assertOk(
      await t.upstream.call("POST", `${A}/pwaapprove`, {
        headers: bearer(token),
        body: { oid: req.approvalOid, archive: false },
      }),
    );
    await pushService(t.upstream.deps)!.idle();
    const got = t.rx.to("employee");
    assert.equal(got.length, 1, t.logs.join("\n"));
    assert.equal(got[0].payload.title, "Request approved");
    assert.equal(got[0].payload.body, "Taxi to the airport (€80.00) was approved");
    assert.equal(got[0].payload.url, `/?open=request:${req.oid}`);
    assert.equal(got[0].claims.sub, SUBJECT, "signed with the edge's VAPID keys");
    assert.deepEqual(t.rx.errors, []);
    assert.equal(pushService(t.upstream.deps)!.worker.counts.delivered, 1);
    // The upstream needed no VAPID keys of its own (development would have made a pair).
    assert.equal((await t.upstream.kv.get(["push_vapid"])).value, null);
  } finally {
    await t.close();
  }
});

Deno.test("[push relay] through the edge's relay: initialize names the edge's key, a registration is recorded at the edge and pushes arrive", async () => {
  const t = await setup();
  const viaEdge = async (
    method: string,
    path: string,
    h: Record<string, string>,
    body?: unknown,
  ) => {
    const res = await fetch(`${t.edgeUrl}/bonita${path}`, {
      method,
      headers: { ...h, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, json: await res.json() };
  };
  try {
    // The browser subscribes with the key of whoever sends the pushes: the edge.
    const init = await viaEdge("GET", "/qtservlet/initialize", {});
    assert.equal(init.status, 200);
    assert.equal(init.json.vapidPublicKey, t.edgeKey);
    const { token, deviceId } = await t.upstream.activate(DEMO.employee);
    const s = await t.rx.subscribe("employee");
    const h = { ...bearer(token), "device-id": deviceId };
    const reg = { pushToken: s.token, deviceId, isIOS: false };
    const r = await viaEdge("POST", `${E}/pwaregisterpushtoken`, h, reg);
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const { counts } = await poke(t, DEMO.employee);
    assert.equal(counts.delivered, 1, t.logs.join("\n"));
    assert.equal(t.rx.to("employee")[0].payload.body, "secret body 4711");
    assert.deepEqual(t.rx.errors, []);
    // Deregistered through the edge: the edge forgets the endpoint as well.
    const off = await viaEdge("POST", `${E}/pwaregisterpushtoken`, h, { ...reg, pushToken: "" });
    assert.equal(off.status, 200);
    const req = await signed(pushBody(s.token));
    refused(await post(t, req.bytes, req.headers), 410, "unknown_subscription");
  } finally {
    await t.close();
  }
});

/** A notice queued on the upstream directly (the transport behaviours), sent until idle. */
async function poke(t: Env, email: string) {
  const oid = (await t.upstream.deps.store.users.byEmail(email))!.oid;
  await enqueue(t.upstream.deps, [{
    userOid: oid,
    payload: { title: "Test", body: "secret body 4711", url: "/?open=request:r1", tag: "r1" },
    urgency: "normal",
    ttlSeconds: 60,
  }]);
  const push = pushService(t.upstream.deps)!;
  push.worker.kick();
  await push.idle();
  return { oid, counts: push.worker.counts };
}

Deno.test("[push relay] upstream: a wrong secret is retried and logged, and never drops the subscription", async () => {
  const t = await setup({ upstreamSecret: "not-the-edge-secret-but-long-enough-0123456" });
  try {
    const emp = await subscribeOnUpstream(t, DEMO.employee, "employee");
    await recordEdgeRegistration(t.edge.deps, emp.body);
    const { oid, counts } = await poke(t, DEMO.employee);
    assert.equal(t.rx.attempts.size, 0);
    assert.equal(counts.retried, 2);
    assert.equal(counts.refused, 1, "given up after MESSAGE_MAX_ATTEMPTS");
    const failed = t.logs.filter((l) => /HTTP 401 bad_signature.*PUSH_RELAY_SECRET/.test(l));
    assert.equal(failed.length, 3, t.logs.join("\n"));
    assert.ok(t.logs.every((l) => !l.includes("secret body")), "no payload in the log");
    assert.equal((await t.upstream.deps.store.pushSubs.forUser(oid)).length, 1, "still subscribed");
  } finally {
    await t.close();
  }
});

Deno.test("[push relay] upstream: a subscription the edge never recorded is answered 410 and dropped", async () => {
  const t = await setup();
  try {
    await subscribeOnUpstream(t, DEMO.employee, "employee");
    const { oid, counts } = await poke(t, DEMO.employee);
    assert.equal(counts.gone, 1);
    assert.equal(counts.delivered, 0);
    assert.deepEqual(await t.upstream.deps.store.pushSubs.forUser(oid), []);
    assert.equal(t.rx.attempts.size, 0);
  } finally {
    await t.close();
  }
});
