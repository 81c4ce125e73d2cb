/**
 * This file: gone subscriptions, retries, refusals, deregistering, allowed endpoints (the same
 * subject goes on in push_test.ts).
 *
 * Web push (spec §1 push notifications) against a local push service (push_receiver.ts) that
 * verifies every VAPID JWT and decrypts every payload with the subscription's own keys.
 */
import assert from "node:assert/strict";
import webpush from "web-push";
import { parseConfig } from "../../server/config.ts";
import { enqueue, pushService } from "../../server/push/mod.ts";
import { sendPush } from "../../server/push/send.ts";
import { KNOWN_PUSH_HOSTS } from "../../server/push_subscription.ts";
import { DEMO, testApp } from "../helpers.ts";
import { assertError, assertOk, bearer } from "./api.ts";
import { startReceiver } from "./push_receiver.ts";
import { E, Env, register, setup, SUBJECT, userOid, Who } from "./push_helpers.ts";

/** A notice through the outbox directly (the transport behaviours). */
async function poke(t: Env, who: Who = "employee", body = "secret body 4711") {
  await enqueue(t.api.deps, [{
    userOid: await userOid(t.api, who),
    payload: { title: "Test", body, url: "/?open=request:r1", tag: "request:r1" },
    urgency: "normal",
    ttlSeconds: 60,
  }]);
  pushService(t.api.deps)!.worker.kick();
  await t.idle();
}

Deno.test("[push] a subscription answered 410 or 404 is dropped", async () => {
  const t = await setup();
  try {
    const oid = await userOid(t.api, "employee");
    t.rx.answer("employee", 410);
    await poke(t);
    assert.equal(t.rx.attempts.get("employee"), 1);
    assert.deepEqual(await t.api.deps.store.pushSubs.forUser(oid), []);
    await poke(t);
    assert.equal(t.rx.attempts.get("employee"), 1, "nothing sent to a dropped subscription");
    assert.ok(t.logs.some((l) => /answered 410, subscription dropped/.test(l)), t.logs.join("\n"));
    // A new subscription of the same device works again.
    await register(t.api, t.h.employee, t.devices.employee, (await t.rx.subscribe("again")).token);
    await poke(t);
    assert.equal(t.rx.to("again").length, 1);
    // 404 (an unknown subscription) is the same.
    t.rx.answer("again", 404);
    await poke(t);
    assert.deepEqual(await t.api.deps.store.pushSubs.forUser(oid), []);
  } finally {
    await t.close();
  }
});

Deno.test("[push] 500 and 429 are retried with backoff until delivered, once", async () => {
  const t = await setup();
  try {
    t.rx.answer("employee", 500, 429, 503);
    await poke(t);
    assert.equal(t.rx.attempts.get("employee"), 4);
    assert.equal(t.rx.to("employee").length, 1);
    assert.equal(t.rx.to("employee")[0].payload.body, "secret body 4711");
    assert.equal(t.logs.filter((l) => /attempt \d failed/.test(l)).length, 3);
    assert.deepEqual(t.rx.errors, []);
  } finally {
    await t.close();
  }
});

Deno.test("[push] 413 and 400 are given up at once and logged without the payload", async () => {
  const t = await setup();
  try {
    t.rx.answer("employee", 413);
    await poke(t);
    t.rx.answer("employee", 400);
    await poke(t);
    assert.equal(t.rx.attempts.get("employee"), 2);
    assert.equal(t.rx.to("employee").length, 0);
    const given = t.logs.filter((l) => /given up/.test(l));
    assert.equal(given.length, 2, t.logs.join("\n"));
    assert.ok(t.logs.every((l) => !l.includes("secret body") && !l.includes("/push/")));
    // Still subscribed: only this message failed.
    assert.equal(
      (await t.api.deps.store.pushSubs.forUser(await userOid(t.api, "employee"))).length,
      1,
    );
  } finally {
    await t.close();
  }
});

Deno.test("[push] deregistering (empty token, or unregistering the device) stops delivery", async () => {
  const t = await setup({}, ["employee", "approver"]);
  try {
    await poke(t);
    assert.equal(t.rx.to("employee").length, 1);
    await register(t.api, t.h.employee, t.devices.employee, "");
    assert.equal((await t.api.deps.store.devices.get(t.devices.employee)).value!.push, undefined);
    await poke(t);
    assert.equal(t.rx.attempts.get("employee"), 1);
    // The approver's device unregisters: its subscription goes with it.
    await poke(t, "approver");
    assert.equal(t.rx.to("approver").length, 1);
    const token = t.h.approver.authorization.slice(7);
    assertOk(
      await t.api.call("POST", `${E}/pwaunregister`, {
        body: { token },
        headers: { "device-id": t.devices.approver },
      }),
    );
    assert.deepEqual(await t.api.deps.store.pushSubs.forUser(await userOid(t.api, "approver")), []);
    await poke(t, "approver");
    assert.equal(t.rx.attempts.get("approver"), 1);
  } finally {
    await t.close();
  }
});

Deno.test("[push] endpoints: only https URLs of the push services allowed (PUSH_HOSTS), in development too", async () => {
  const rx = await startReceiver({ subject: SUBJECT });
  // Development, default settings: no exception for a local receiver.
  const api = await testApp({ VAPID_SUBJECT: SUBJECT });
  try {
    const { token, deviceId } = await api.activate(DEMO.employee);
    const good = JSON.parse((await rx.subscribe("x")).token);
    const register = (endpoint: string) =>
      api.call("POST", `${E}/pwaregisterpushtoken`, {
        body: { pushToken: JSON.stringify({ ...good, endpoint }), deviceId, isIOS: false },
        headers: bearer(token),
      });
    const refused = [
      good.endpoint, // http://127.0.0.1:<port>/push/x, the local receiver
      "http://localhost:8125/push/x",
      "https://127.0.0.1/x",
      "https://[::1]/x",
      "https://10.0.0.7/x",
      "https://0x7f000001/x", // parsed as 127.0.0.1
      "https://localhost/x",
      "https://fcm.googleapis.com./fcm/send/abc", // trailing dot
      "https://fcm.googleapis.com:8443/fcm/send/abc",
      "http://fcm.googleapis.com/fcm/send/abc",
      "https://fcm.googleapis.com.evil.example/x",
      "https://evil.com/fcm.googleapis.com",
      "https://notify.windows.com/w/?token=1", // the wildcard names subdomains only
      "https://evilnotify.windows.com/w/?token=1",
      "https://push.qcard.internal/x",
      "https://metadata/x",
      "https://user@fcm.googleapis.com/x",
    ];
    for (const endpoint of refused) {
      const r = await register(endpoint);
      assertError(r, 400, "invalid_push_token");
    }
    assert.equal((await api.deps.store.devices.get(deviceId)).value!.push, undefined);
    for (
      const endpoint of [
        "https://fcm.googleapis.com/fcm/send/abc",
        "https://fcm.googleapis.com:443/fcm/send/abc",
        "https://FCM.googleapis.com/fcm/send/abc",
        "https://updates.push.services.mozilla.com/wpush/v2/abc",
        "https://web.push.apple.com/QGx",
        "https://wns2-par02p.notify.windows.com/w/?token=abc",
      ]
    ) {
      assertOk(await register(endpoint));
    }
  } finally {
    await api.close();
  }
  // A subscription stored before the list was narrowed is not posted to: dropped as gone.
  const pair = webpush.generateVAPIDKeys();
  const stale = JSON.parse((await rx.subscribe("stale")).token);
  const opts = { ttlSeconds: 60, urgency: "normal" as const, timeoutMs: 5_000 };
  const vapid = { ...pair, subject: SUBJECT };
  const out = await sendPush(stale, "{}", vapid, { ...opts, hosts: [...KNOWN_PUSH_HOSTS] });
  assert.deepEqual(out, { kind: "gone", status: 0 });
  assert.equal(rx.deliveries.length + rx.errors.length, 0, "nothing reached the receiver");
  // Configured explicitly, the local receiver is allowed; nothing else is added.
  const hosts = parseConfig({ PUSH_HOSTS: `${rx.origin}, fcm.googleapis.com` }).PUSH_HOSTS;
  assert.deepEqual(hosts, [rx.origin, "fcm.googleapis.com"]);
  await rx.close();
  // The default list: the known push services.
  assert.deepEqual(parseConfig({}).PUSH_HOSTS, [...KNOWN_PUSH_HOSTS]);
  // Entries that are not a push service's public name, or an http origin in production.
  for (
    const bad of [
      "127.0.0.1",
      "fcm.googleapis.com.",
      "fcm.googleapis.com:8443",
      "push.local",
      "localhost",
      "*.internal",
      "intranet",
      "http://127.0.0.1:8125/path",
    ]
  ) {
    assert.throws(() => parseConfig({ PUSH_HOSTS: bad }), /PUSH_HOSTS/, bad);
  }
  assert.throws(
    () =>
      parseConfig({
        APP_ENV: "production",
        MAIL_TRANSPORT: "smtp",
        SMTP_HOST: "mail.qcard.eu",
        ISSUER_KEY: "k",
        PUSH_HOSTS: "http://127.0.0.1:8125",
      }),
    /PUSH_HOSTS: http:\/\/127\.0\.0\.1:8125: production takes https origins only/,
  );
});
