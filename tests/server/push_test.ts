/**
 * This file: VAPID keys and settings, tokens, who gets which push (the same subject goes on in
 * push_delivery_test.ts).
 *
 * Web push (spec §1 push notifications) against a local push service (push_receiver.ts) that
 * verifies every VAPID JWT and decrypts every payload with the subscription's own keys.
 */
import assert from "node:assert/strict";
import webpush from "web-push";
import { parseConfig } from "../../server/config.ts";
import { pushService } from "../../server/push/mod.ts";
import { vapidKeys } from "../../server/push/keys.ts";
import { parsePushSubscription } from "../../server/push_subscription.ts";
import { DEMO, type TestApi, testApp } from "../helpers.ts";
import { assertError, assertOk, bearer } from "./api.ts";
import { buy, defineSecure, newCard, submitted } from "./purchase_helpers.ts";
import { type Receiver, startReceiver } from "./push_receiver.ts";
import { A, E, PEOPLE, setup, SUBJECT, userOid, Who } from "./push_helpers.ts";

const NBSP = "\u00a0";

/** Who received what since `from`: name → titles. */
function titles(rx: Receiver, from = 0): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const d of rx.deliveries.slice(from)) (out[d.name] ??= []).push(d.payload.title);
  return out;
}

async function fullName(api: TestApi, who: Who) {
  const u = (await api.deps.store.users.byEmail(PEOPLE[who]))!;
  return `${u.fname} ${u.lname}`;
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
