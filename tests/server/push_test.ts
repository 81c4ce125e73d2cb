/**
 * Web push (spec §1 push notifications) against a local push service (push_receiver.ts) that
 * verifies every VAPID JWT and decrypts every payload with the subscription's own keys.
 */
import assert from "node:assert/strict";
import webpush from "web-push";
import { parseConfig } from "../../server/config.ts";
import { enqueue, pushService } from "../../server/push/mod.ts";
import { vapidKeys } from "../../server/push/keys.ts";
import { sendPush } from "../../server/push/send.ts";
import { KNOWN_PUSH_HOSTS, parsePushSubscription } from "../../server/push_subscription.ts";
import { DEMO, type TestApi, testApp } from "../helpers.ts";
import { assertError, assertOk, bearer, type Headers } from "./api.ts";
import { buy, defineSecure, newCard, submitted } from "./purchase_helpers.ts";
import { type Receiver, startReceiver } from "./push_receiver.ts";

const E = "/scmapi/expense";
const A = "/scmapi/approval";
const SUBJECT = "mailto:push-ops@qcard.eu";
const NBSP = "\u00a0";
const DIRECTOR = "director@demo.example";
const PEOPLE = {
  employee: DEMO.employee,
  approver: DEMO.approver,
  manager: DEMO.manager,
  delegate: DEMO.delegate,
  director: DIRECTOR,
};
type Who = keyof typeof PEOPLE;

interface Env {
  api: TestApi;
  rx: Receiver;
  h: Record<Who, Headers>;
  devices: Record<Who, string>;
  logs: string[];
  idle: () => Promise<void>;
  close: () => Promise<void>;
}

/** An app delivering pushes, the local push service, and everyone activated and subscribed. */
async function setup(env: Record<string, string> = {}, who: Who[] = ["employee"]): Promise<Env> {
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
async function activate(api: TestApi, email: string) {
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

async function register(api: TestApi, h: Headers, deviceId: string, pushToken: string) {
  const r = await api.call("POST", `${E}/pwaregisterpushtoken`, {
    body: { pushToken, deviceId, isIOS: false },
    headers: h,
  });
  assertOk(r);
}

/** Who received what since `from`: name → titles. */
function titles(rx: Receiver, from = 0): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const d of rx.deliveries.slice(from)) (out[d.name] ??= []).push(d.payload.title);
  return out;
}

Deno.test("[push] initialize serves the VAPID key; development makes one pair, kept in KV", async () => {
  const dir = await Deno.makeTempDir();
  const config = parseConfig({ KV_PATH: `${dir}/kv`, ISSUER_KEY: "x".repeat(43) });
  // Two handles on one KV file (two processes): the pair the first one generated.
  const [kv1, kv2] = [await Deno.openKv(`${dir}/kv`), await Deno.openKv(`${dir}/kv`)];
  try {
    const [a, b] = await Promise.all([vapidKeys(config, kv1), vapidKeys(config, kv2)]);
    assert.ok(a && b);
    assert.equal(a.publicKey, b.publicKey);
    assert.equal(a.privateKey, b.privateKey);
    assert.match(a.publicKey, /^B[A-Za-z0-9_-]{86}$/);
  } finally {
    kv1.close();
    kv2.close();
    await Deno.remove(dir, { recursive: true });
  }
  const api = await testApp();
  try {
    const r = await api.call("GET", "/qtservlet/initialize");
    assertOk(r);
    const stored = (await api.kv.get<{ publicKey: string }>(["push_vapid"])).value;
    assert.equal(r.json.vapidPublicKey, stored?.publicKey);
  } finally {
    await api.close();
  }
});

Deno.test("[push] VAPID settings: pairs, key shapes, a real subject in production", async () => {
  const pair = webpush.generateVAPIDKeys();
  const keys = { VAPID_PUBLIC_KEY: pair.publicKey, VAPID_PRIVATE_KEY: pair.privateKey };
  const prod = {
    APP_ENV: "production",
    MAIL_TRANSPORT: "smtp",
    SMTP_HOST: "smtp.qcard.eu",
    ISSUER_KEY: "x".repeat(43),
  };
  const bad = (env: Record<string, string>, re: RegExp) =>
    assert.throws(() => parseConfig(env), re, JSON.stringify(env));
  bad({ VAPID_PUBLIC_KEY: keys.VAPID_PUBLIC_KEY }, /VAPID_PRIVATE_KEY: set both/);
  bad({ ...keys, VAPID_PUBLIC_KEY: "short" }, /VAPID_PUBLIC_KEY/);
  bad({ VAPID_SUBJECT: "ops@qcard.eu" }, /VAPID_SUBJECT: must be a mailto/);
  bad({ VAPID_SUBJECT: "http://qcard.eu" }, /VAPID_SUBJECT/);
  bad({ ...prod, ...keys }, /production needs VAPID_SUBJECT/);
  for (const s of ["mailto:x@example.com", "mailto:admin@localhost", "https://qcard.test"]) {
    bad({ ...prod, ...keys, VAPID_SUBJECT: s }, /placeholder subject/);
  }
  parseConfig({ ...prod, ...keys, VAPID_SUBJECT: "mailto:ops@qcard.eu" });
  parseConfig({ ...prod, ...keys, VAPID_SUBJECT: "https://qcard.eu/contact" });
  parseConfig({ VAPID_SUBJECT: "mailto:x@example.com" }); // development: allowed
  // Production without keys: push is off, initialize says null. (Keys are cached per KV.)
  const [kv1, kv2, kv3] = [
    await Deno.openKv(":memory:"),
    await Deno.openKv(":memory:"),
    await Deno.openKv(":memory:"),
  ];
  try {
    assert.equal(await vapidKeys(parseConfig(prod), kv1), null);
    // Configured keys are used as they are; a private key of another pair is refused.
    const on = parseConfig({ ...keys, VAPID_SUBJECT: "mailto:ops@qcard.eu" });
    assert.deepEqual(await vapidKeys(on, kv2), {
      publicKey: keys.VAPID_PUBLIC_KEY,
      privateKey: keys.VAPID_PRIVATE_KEY,
      subject: "mailto:ops@qcard.eu",
    });
    const other = webpush.generateVAPIDKeys().privateKey;
    const wrong = parseConfig({ ...keys, VAPID_PRIVATE_KEY: other });
    await assert.rejects(vapidKeys(wrong, kv3), /does not belong/);
  } finally {
    for (const kv of [kv1, kv2, kv3]) kv.close();
  }
});

Deno.test("[push] a push token that is not a usable subscription is refused 400", async () => {
  const rx = await startReceiver({ subject: SUBJECT });
  const api = await testApp({ VAPID_SUBJECT: SUBJECT });
  try {
    const { token, deviceId } = await api.activate(DEMO.employee);
    const good = JSON.parse((await rx.subscribe("x")).token);
    const tokens = [
      "not json",
      "{}",
      JSON.stringify({ ...good, endpoint: "ftp://push.qcard.eu/x" }),
      JSON.stringify({ ...good, endpoint: "http://push.qcard.eu/x" }),
      JSON.stringify({ ...good, endpoint: "http://10.0.0.1/x" }),
      JSON.stringify({ ...good, endpoint: "https://user:pw@push.qcard.eu/x" }),
      JSON.stringify({ endpoint: good.endpoint }),
      JSON.stringify({ ...good, keys: { ...good.keys, p256dh: "AAAA" } }),
      JSON.stringify({ ...good, keys: { ...good.keys, auth: "not base64url!" } }),
    ];
    for (const pushToken of tokens) {
      const r = await api.call("POST", `${E}/pwaregisterpushtoken`, {
        body: { pushToken, deviceId, isIOS: false },
        headers: bearer(token),
      });
      assertError(r, 400, "invalid_push_token");
    }
    assert.equal((await api.deps.store.devices.get(deviceId)).value!.push, undefined);
    assert.deepEqual(await api.deps.store.pushSubs.forUser(await userOid(api, "employee")), []);
    // The rules themselves: see "[push] endpoints …" below.
    assert.equal(
      typeof parsePushSubscription(JSON.stringify(good), { hosts: [rx.origin] }),
      "object",
    );
  } finally {
    await api.close();
    await rx.close();
  }
});

async function userOid(api: TestApi, who: Who) {
  return (await api.deps.store.users.byEmail(PEOPLE[who]))!.oid;
}

Deno.test("[push] approval levels and decisions reach exactly their recipients, in their language", async () => {
  const t = await setup({}, ["employee", "approver", "manager", "delegate", "director"]);
  const { api, rx, h } = t;
  try {
    // 300 € needs Finance (approver; delegate through Finance Delegates), then Management.
    const big = await submitted(api, h.employee, { amount: 300, purpose: "Team offsite in Lyon" });
    await t.idle();
    assert.deepEqual(titles(rx), { approver: ["Approval needed"], delegate: ["Approval needed"] });
    const first = rx.to("approver")[0].payload;
    const author = await fullName(api, "employee");
    assert.equal(first.body, `${author} asks for €300.00: Team offsite in Lyon`);
    assert.equal(first.url, `/?open=approval:${big.approvalOid}`);
    assert.equal(first.tag, `approval:${big.approvalOid}`);
    // Its buttons open the approval with that decision pre-selected (decided in the app only).
    assert.deepEqual(first.actions, [
      { action: "approve", title: "Approve", url: `/?open=approval:${big.approvalOid}:approve` },
      { action: "reject", title: "Reject", url: `/?open=approval:${big.approvalOid}:reject` },
    ]);
    for (const d of rx.deliveries) {
      assert.equal(d.claims.sub, SUBJECT);
      assert.equal(d.claims.aud, rx.origin);
    }

    let seen = rx.deliveries.length;
    assertOk(
      await api.call("POST", `${A}/pwaapprove`, {
        headers: h.approver,
        body: { oid: big.approvalOid, archive: false },
      }),
    );
    await t.idle();
    // Level 2: Management (manager in English, director in French).
    assert.deepEqual(titles(rx, seen), {
      manager: ["Approval needed"],
      director: ["Approbation demandée"],
    });
    const fr = rx.to("director")[0].payload;
    assert.equal(
      fr.body,
      `${author} demande 300,00${NBSP}€${NBSP}: Team offsite in Lyon`,
    );
    assert.deepEqual((fr.actions as { title: string }[]).map((a) => a.title), [
      "Approuver",
      "Refuser",
    ]);

    seen = rx.deliveries.length;
    assertOk(
      await api.call("POST", `${A}/pwaapprove`, {
        headers: h.director,
        body: { oid: big.approvalOid, archive: false },
      }),
    );
    await t.idle();
    assert.deepEqual(titles(rx, seen), { employee: ["Request approved"] });
    const ok = rx.to("employee")[0].payload;
    assert.equal(ok.body, "Team offsite in Lyon (€300.00) was approved");
    assert.equal(ok.url, `/?open=request:${big.oid}`);

    // A rejection with the approver's note.
    const small = await submitted(api, h.employee, { amount: 80, purpose: "Taxi" });
    await t.idle();
    seen = rx.deliveries.length;
    assertOk(
      await api.call("POST", `${A}/pwacomments`, {
        headers: h.approver,
        body: { oid: small.approvalOid, comment: "Take the tram" },
      }),
    );
    assertOk(
      await api.call("POST", `${A}/pwareject`, {
        headers: h.approver,
        body: { oid: small.approvalOid, archive: false },
      }),
    );
    await t.idle();
    assert.deepEqual(titles(rx, seen), { employee: ["Request rejected"] });
    assert.equal(
      rx.to("employee").at(-1)!.payload.body,
      "Taxi (€80.00) was rejected\nNote: Take the tram",
    );
    assert.deepEqual(rx.errors, []);
  } finally {
    await t.close();
  }
});

async function fullName(api: TestApi, who: Who) {
  const u = (await api.deps.store.users.byEmail(PEOPLE[who]))!;
  return `${u.fname} ${u.lname}`;
}

Deno.test("[push] card purchases, authorised or refused, and an overdue receipt reach the card's author once; an authorised one carries 'Add receipt' opening the camera", async () => {
  const t = await setup({}, ["employee", "approver"]);
  const { api, rx, h } = t;
  try {
    await defineSecure(api, h.employee);
    const card = await newCard(api, h.employee);
    await t.idle();
    let seen = rx.deliveries.length;
    const ok = await buy(api, card, { amount: "10.00" });
    assert.equal(ok.approved, true);
    await t.idle();
    assert.deepEqual(titles(rx, seen), { employee: ["Card payment authorised"] });
    const p = rx.to("employee").at(-1)!;
    assert.equal(p.payload.body, "€10.00 at Café de la Gare");
    // Push → capture: its link and its button open the transaction with the camera ready.
    assert.equal(p.payload.url, `/?open=transaction:${ok.transactionOid}:receipt`);
    assert.deepEqual(p.payload.actions, [
      {
        action: "receipt",
        title: "Add receipt",
        url: `/?open=transaction:${ok.transactionOid}:receipt`,
      },
    ]);

    seen = rx.deliveries.length;
    const no = await buy(api, card, { amount: "5000.00" });
    assert.equal(no.approved, false);
    await t.idle();
    assert.deepEqual(titles(rx, seen), { employee: ["Card payment refused"] });
    const r = rx.to("employee").at(-1)!;
    // Why, decoded from the issuer's reason, and what to do.
    assert.match(no.refusedReason ?? "", /^Exceeds maximum\//);
    assert.equal(
      r.payload.body,
      "€5,000.00 at Café de la Gare. Amount over what is left on the card: ask for more with a new request.",
    );
    assert.equal(r.urgency, "high");
    assert.equal(r.payload.tag, `transaction:${no.transactionOid}`);
    // Nothing to photograph for a refusal.
    assert.equal(r.payload.url, `/?open=transaction:${no.transactionOid}`);
    assert.equal(r.payload.actions, undefined);

    // Eight days on, the captured 10 € has no receipt: overdue (the demo's delay is 7 days).
    seen = rx.deliveries.length;
    api.deps.now = () => Date.now() + 8 * 86_400_000;
    const push = pushService(api.deps)!;
    assert.equal(await push.checkOverdue(), 1);
    await t.idle();
    assert.deepEqual(titles(rx, seen), { employee: ["Receipt overdue"] });
    assert.match(
      rx.to("employee").at(-1)!.payload.body,
      /^Add the receipt for €10\.00 at Café de la Gare: it was due on \d\d\/\d\d\/\d{4}$/,
    );
    assert.equal(rx.to("employee").at(-1)!.payload.url, `/?open=transaction:${ok.transactionOid}`);
    // Once per transaction.
    assert.equal(await push.checkOverdue(), 0);
    await t.idle();
    assert.equal(rx.deliveries.length, seen + 1);
    assert.deepEqual(rx.errors, []);
  } finally {
    await t.close();
  }
});

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
