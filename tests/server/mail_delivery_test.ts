/**
 * Messages (docs/messages.md), end to end against a real SMTP server on 127.0.0.1
 * (tests/server/smtp_server.ts): QCard starts while the mail server is down and the demo mails
 * arrive once it is up; 50 lost activations answered 200 while it is down arrive afterwards, none
 * twice; STARTTLS with a private CA; a permanent 5xx leaves the message failed and listed.
 */
import assert from "node:assert/strict";
import { runCli } from "../../server/app/outbox_cli.ts";
import { DEMO, orgFileWithUsers, type TestApi, testApp } from "../helpers.ts";
import { freePort, type ReceivedMail, startSmtpServer } from "./smtp_server.ts";

const E = "/scmapi/expense";
const FIXTURES = new URL("../fixtures/smtp/", import.meta.url);
const DEMO_ADDRESSES = [
  "employee@demo.example",
  "approver@demo.example",
  "manager@demo.example",
  "director@demo.example",
  "delegate@demo.example",
];

/** SMTP to 127.0.0.1:port with short timeouts and backoffs (seconds of real time at most). */
const smtpEnv = (port: number, extra: Record<string, string> = {}) => ({
  MAIL_TRANSPORT: "smtp",
  SMTP_HOST: "127.0.0.1",
  SMTP_PORT: String(port),
  SMTP_TIMEOUT_MS: "1000",
  MESSAGE_BACKOFF_MS: "30",
  MESSAGE_BACKOFF_MAX_MS: "200",
  MESSAGE_MAX_ATTEMPTS: "100",
  MESSAGE_SWEEP_MS: "150",
  ...extra,
});

/** Waits until every open message has been tried at least once (the server is down). */
async function untilAllTried(api: TestApi, n: number) {
  for (let i = 0; i < 400; i++) {
    const open = await api.deps.messages.open();
    if (open.length === n && open.every((m) => m.attempts >= 1 && m.lastError)) return open;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("messages were not all tried");
}

/** Exactly once: one mail per message, no Message-ID twice, after the queue settled. */
async function assertExactlyOnce(api: TestApi, mails: ReceivedMail[], n: number) {
  await api.worker!.idle();
  await new Promise((r) => setTimeout(r, 400)); // two sweeps: a duplicate would show now
  assert.equal(mails.length, n);
  assert.equal(new Set(mails.map((m) => m.messageId)).size, n, "a Message-ID arrived twice");
  for (const m of mails) assert.match(m.messageId, /^<[0-9a-z]{19}@localhost>$/);
  const s = await api.deps.messages.stats();
  assert.deepEqual([s.pending, s.sending, s.failed], [0, 0, 0]);
}

const codeOf = (m: ReceivedMail) => /\b(\d{5})\b/.exec(m.text)?.[1];

Deno.test("[mail] SMTP down at start: QCard starts and answers; when it comes up every demo mail arrives once", async () => {
  const port = await freePort();
  const api = await testApp(smtpEnv(port), { deliver: true });
  let server;
  try {
    // Seeding queued the five mails without waiting for the server; the API answers.
    const color = await api.call("GET", "/qtservlet//appcolor");
    assert.equal(color.status, 200);
    const open = await untilAllTried(api, 5);
    assert.match(open[0].lastError!, /ECONNREFUSED|ECONNECTION|ESOCKET/);
    const health = await api.app.request("/healthz");
    const h = await health.json();
    assert.equal(h.messages.pending, 5);
    assert.equal(h.messages.failed, 0);

    server = await startSmtpServer({ port });
    const mails = await server.waitFor(5);
    await assertExactlyOnce(api, mails, 5);
    assert.deepEqual(mails.flatMap((m) => m.to).sort(), [...DEMO_ADDRESSES].sort());
    const en = mails.find((m) => m.to[0] === DEMO.employee)!;
    assert.match(en.subject, /activation/i);
    assert.match(en.text, /Hello Emma|Emma/);
    assert.match(en.text, /activation code is \d{5}/);
    const fr = mails.find((m) => m.to[0] === "director@demo.example")!;
    assert.match(fr.text, /David/);
    assert.doesNotMatch(fr.text, /activation code is/, "David's mail is in French");
    // The mailed code activates; the delivered record no longer holds it in clear.
    const v = await api.call("POST", `${E}/pwacheckvalidation`, {
      body: { verificationcode: codeOf(en) },
      headers: { "device-id": api.newDeviceId() },
    });
    assert.equal(v.status, 200, v.text);
    const [rec] = await api.deps.messages.list({ to: DEMO.employee, limit: 1 });
    assert.equal(rec.state, "delivered");
    assert.equal(rec.text, "");
    assert.ok(rec.attempts >= 2);
  } finally {
    await api.close();
    await server?.close();
  }
});

Deno.test("[mail] 50 lost activations while SMTP is down: 50 answers 200, then their 50 mails, none twice", async () => {
  // 50 users of their own: per-address limits allow a few lost activations an hour each.
  const { file, emails } = await orgFileWithUsers(50);
  const port = await freePort();
  const api = await testApp(smtpEnv(port, { ORG_FILE: file }), { deliver: true });
  let server;
  try {
    const answers = await Promise.all(
      emails.map((email, i) =>
        api.call("POST", `${E}/pwasecretanswer`, {
          body: { email, answer: "paris", questOid: "q-birth-city" },
          headers: { "device-id": `lost-device-${i}` },
        })
      ),
    );
    assert.deepEqual(answers.map((r) => r.status), Array(50).fill(200), answers[0].text);
    // 105 queued; the 50 seeded mails of these users are superseded by their newer codes.
    await untilAllTried(api, 55);

    server = await startSmtpServer({ port });
    // Each lost activation revoked the user's seeded code: that unsent mail is dropped.
    const mails = await server.waitFor(55, 30_000);
    await assertExactlyOnce(api, mails, 55);
    const all = await api.deps.messages.list({ limit: 1000 });
    assert.equal(all.filter((m) => m.state === "superseded").length, 50);
    for (const [i, email] of emails.entries()) {
      const got = mails.filter((m) => m.to[0] === email);
      assert.equal(got.length, 1, `${email}: the lost-activation mail only`);
      if (i >= 3) continue;
      // The mailed code is the live one, bound to the device that asked for it.
      const v = await api.call("POST", `${E}/pwacheckvalidation`, {
        body: { verificationcode: codeOf(got[0]) },
        headers: { "device-id": `lost-device-${i}` },
      });
      assert.equal(v.status, 200, v.text);
    }
  } finally {
    await api.close();
    await server?.close();
    await Deno.remove(file);
  }
});

Deno.test("[mail] STARTTLS against a self-signed certificate with SMTP_CA_FILE (TLS required)", async () => {
  const server = await startSmtpServer({ starttls: true });
  const api = await testApp(
    smtpEnv(server.port, {
      SMTP_HOST: "localhost",
      SMTP_REQUIRE_TLS: "true",
      SMTP_CA_FILE: new URL("ca.pem", FIXTURES).pathname,
    }),
    { deliver: true },
  );
  try {
    const mails = await server.waitFor(5);
    await assertExactlyOnce(api, mails, 5);
    assert.ok(mails.every((m) => m.tls), "every mail went over STARTTLS");
  } finally {
    await api.close();
    await server.close();
  }
});

Deno.test("[mail] a permanent 5xx: the API answered 200, the message ends failed and listed", async () => {
  let refuse = true;
  const server = await startSmtpServer({
    rcptReply: (
      to,
    ) => (refuse && to === DEMO.employee ? "550 5.1.1 mailbox unavailable" : undefined),
  });
  const api = await testApp(smtpEnv(server.port), { deliver: true });
  try {
    await server.waitFor(4);
    // The employee's seeded mail has been refused (not merely queued: a newer code would
    // supersede it instead) before the lost activation is asked for.
    for (let i = 0; i < 200; i++) {
      const open = await api.deps.messages.open();
      if (open.some((m) => m.state === "failed" && m.to === DEMO.employee)) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const r = await api.call("POST", `${E}/pwasecretanswer`, {
      body: { email: DEMO.employee, answer: "paris", questOid: "q-birth-city" },
      headers: { "device-id": api.newDeviceId() },
    });
    assert.equal(r.status, 200, r.text);
    await api.worker!.idle();
    const failed = (await api.deps.messages.open()).filter((m) => m.state === "failed");
    assert.equal(failed.length, 2, "the seeded mail and the lost-activation one");
    for (const m of failed) {
      assert.equal(m.attempts, 1, "a 5xx is not retried");
      assert.match(m.lastError!, /550/);
      assert.match(m.text, /activation code is \d{5}/, "kept for an operator's retry");
    }
    const h = await (await api.app.request("/healthz")).json();
    assert.deepEqual(h, {
      status: "degraded",
      messages: { pending: 0, failed: 2, oldestPendingAgeSeconds: null },
    });
    // The operator sees them, fixes the mailbox and retries them all.
    const out: string[] = [];
    assert.equal(await runCli([], api.deps.messages, (l) => out.push(l)), 0);
    assert.match(out[0], /0 pending, 0 sending, 2 failed/);
    assert.equal(out.filter((l) => l.includes("failed") && l.includes(DEMO.employee)).length, 2);
    assert.ok(out.every((l) => !/code is/.test(l)), "the listing shows no content");
    refuse = false;
    assert.equal(await runCli(["retry", "--all-failed"], api.deps.messages, (l) => out.push(l)), 0);
    // The lost-activation mail goes out; the seeded one carries a revoked code: superseded.
    await server.waitFor(5);
    await assertExactlyOnce(api, server.mails, 5);
    const states = (await api.deps.messages.list({ to: DEMO.employee })).map((m) => m.state);
    assert.deepEqual(states, ["delivered", "superseded"]);
  } finally {
    await api.close();
    await server.close();
  }
});
