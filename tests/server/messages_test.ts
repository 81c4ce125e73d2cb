/**
 * The durable outbox (docs/messages.md): a message commits with the state change that causes it or
 * not at all, is delivered once even when the worker is woken twice, is not sent past its
 * content lifetime, survives a process that was never told of it and a restart (file KV),
 * is retried with
 * backoff and then left failed for `deno task outbox`. (Views: outbox_test.ts.)
 */
import assert from "node:assert/strict";
import { sendActivation } from "../../server/domain/activation.ts";
import { runCli } from "../../server/app/outbox_cli.ts";
import { MessageQueue } from "../../server/messages/queue.ts";
import { MessageRepo } from "../../server/messages/store.ts";
import type { Outgoing, Transport } from "../../server/messages/types.ts";
import { DeliveryWorker, type WorkerOptions } from "../../server/messages/worker.ts";
import { DEMO, withApp } from "../helpers.ts";

const E = "/scmapi/expense";

/** A transport that records what it is handed (and can fail on demand). */
function recorder(fail?: (m: Outgoing, n: number) => Error | undefined) {
  const sent: Outgoing[] = [];
  const t: Transport = {
    channel: "email",
    kind: "smtp",
    describe: () => "recorder",
    send: (m) => {
      const err = fail?.(m, sent.length);
      if (err) return Promise.reject(err);
      sent.push(m);
      return Promise.resolve();
    },
    close: () => {},
  };
  return { t, sent };
}

function worker(queue: MessageQueue, t: Transport, over: Partial<WorkerOptions> = {}) {
  return new DeliveryWorker(queue, {
    transports: { email: t, sms: { ...t, channel: "sms" } },
    maxAttempts: 3,
    backoffMs: 10,
    backoffMaxMs: 50,
    sendTimeoutMs: 1000,
    sweepMs: 100,
    concurrency: 4,
    messageIdHost: "qcard.test",
    now: Date.now,
    log: () => {},
    ...over,
  });
}

const mail = (to: string, text = "hello") => ({
  channel: "email" as const,
  to,
  subject: "s",
  text,
});

Deno.test(
  "[messages] the code and its mail commit together: a fault before commit leaves neither",
  withApp(async (api) => {
    const user = (await api.deps.store.users.byEmail(DEMO.employee))!;
    const before = await api.deps.messages.list({ limit: 1000 });
    const pointer = (await api.deps.store.codes.ofUser(user.oid)).value;
    api.deps.faults = {
      beforeCommit: () => {
        throw new Error("crash injected between the code and its mail");
      },
    };
    await assert.rejects(sendActivation(api.deps, user), /crash injected/);
    assert.equal((await api.deps.messages.list({ limit: 1000 })).length, before.length);
    assert.equal((await api.deps.store.codes.ofUser(user.oid)).value, pointer, "no new code");
    // Through the API the same crash is a 500 that leaves nothing behind either.
    const r = await api.call("POST", `${E}/pwasecretanswer`, {
      body: { email: DEMO.employee, answer: "paris", questOid: "q-birth-city" },
      headers: { "device-id": api.newDeviceId() },
    });
    assert.equal(r.status, 500);
    assert.equal((await api.deps.messages.list({ limit: 1000 })).length, before.length);
    assert.equal((await api.deps.store.codes.ofUser(user.oid)).value, pointer);
    // Without the fault: one new code, one new mail holding exactly that code.
    api.deps.faults = undefined;
    await sendActivation(api.deps, user);
    const [m] = await api.deps.messages.list({ to: DEMO.employee, limit: 1 });
    assert.equal((await api.deps.messages.list({ limit: 1000 })).length, before.length + 1);
    const code = /activation code is (\d{5})/.exec(m.text)![1];
    const hash = (await api.deps.store.codes.ofUser(user.oid)).value!;
    const rec = (await api.deps.store.codes.get(hash)).value!;
    assert.equal(m.expiresAt, rec.expiresAt, "the mail lives as long as its code");
    assert.equal(await api.latestCode(DEMO.employee), code);
  }),
);

Deno.test("[messages] a failing check of the caller's op commits no message either", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const q = new MessageQueue(kv, { retentionMs: 60_000, now: Date.now });
    await kv.set(["thing"], 1);
    const stale = await kv.get(["thing"]);
    await kv.set(["thing"], 2);
    const op = kv.atomic().check(stale).set(["thing"], 3);
    q.add(op, mail("a@demo.example"));
    assert.equal((await op.commit()).ok, false);
    assert.deepEqual(await q.list(), []);
    assert.deepEqual(await q.stats(), {
      pending: 0,
      sending: 0,
      failed: 0,
      oldestPendingAgeSeconds: null,
    });
  } finally {
    kv.close();
  }
});

Deno.test("[messages] a second wake-up or look does not send twice; a live lease is respected", async () => {
  const kv = await Deno.openKv(":memory:");
  const q = new MessageQueue(kv, { retentionMs: 60_000, now: Date.now });
  const { t, sent } = recorder();
  const w = worker(q, t).start();
  try {
    const id = await q.send(mail("a@demo.example"));
    await w.idle();
    // Wake-ups are at-least-once (a commit, a timer, a sweep, another process): another look
    // (and a direct call) finds it delivered.
    await w.kick();
    await w.tick();
    await w.deliver(id);
    await new Promise((r) => setTimeout(r, 100));
    await w.idle();
    assert.equal(sent.length, 1);
    assert.equal(sent[0].messageId, `<${id}@qcard.test>`);
    const m = (await q.get(id))!;
    assert.equal(m.state, "delivered");
    assert.equal(m.text, "", "delivered content is not kept (non-outbox transport)");
    assert.equal(m.attempts, 1);
  } finally {
    await w.stop();
    kv.close();
  }
});

Deno.test("[messages] a message left 'sending' by a dead attempt is taken over after its lease", async () => {
  const kv = await Deno.openKv(":memory:");
  let now = Date.now();
  const q = new MessageQueue(kv, { retentionMs: 60_000, now: () => now });
  const { t, sent } = recorder();
  const w = worker(q, t, { now: () => now });
  try {
    const op = kv.atomic();
    const id = q.add(op, mail("c@demo.example"), { delayMs: 3_600_000 });
    await op.commit();
    const e = await q.repo.get(id);
    const dead = { ...e.value!, state: "sending" as const, attempts: 1, leaseUntil: now + 5000 };
    await q.repo.write(kv.atomic(), e.value, dead).commit();
    await w.deliver(id);
    assert.equal(sent.length, 0, "lease alive: another attempt may still be under way");
    now += 6000;
    await w.deliver(id);
    assert.equal(sent.length, 1);
    assert.equal((await q.get(id))!.attempts, 2);
  } finally {
    await w.stop();
    kv.close();
  }
});

Deno.test("[messages] content past its lifetime is marked expired, never sent late", async () => {
  const kv = await Deno.openKv(":memory:");
  let now = Date.now();
  const q = new MessageQueue(kv, { retentionMs: 60_000, now: () => now });
  const { t, sent } = recorder();
  const w = worker(q, t, { now: () => now });
  try {
    const id = await q.send({ ...mail("d@demo.example", "PIN 1234"), expiresAt: now + 300_000 });
    now += 301_000; // the 3-D Secure PIN's 5 minutes are over before the first attempt
    await w.deliver(id);
    const m = (await q.get(id))!;
    assert.equal(m.state, "expired");
    assert.equal(m.text, "");
    assert.equal(sent.length, 0);
  } finally {
    await w.stop();
    kv.close();
  }
});

Deno.test("[messages] an unsent mail whose code a newer one revoked is superseded, not sent", async () => {
  const kv = await Deno.openKv(":memory:");
  const q = new MessageQueue(kv, { retentionMs: 60_000, now: Date.now });
  const { t, sent } = recorder();
  const w = worker(q, t);
  try {
    const first = await q.send({ ...mail("h@demo.example", "code 11111"), replaceKey: "k" });
    const second = await q.send({ ...mail("h@demo.example", "code 22222"), replaceKey: "k" });
    await w.deliver(first);
    await w.deliver(second);
    assert.deepEqual(sent.map((m) => m.text), ["code 22222"]);
    const old = (await q.get(first))!;
    assert.equal(old.state, "superseded");
    assert.equal(old.text, "");
    assert.equal(old.lastError, `superseded by ${second}`);
  } finally {
    await w.stop();
    kv.close();
  }
});

Deno.test("[messages] retries with backoff, then failed and kept; an operator's retry delivers it", async () => {
  const kv = await Deno.openKv(":memory:");
  const q = new MessageQueue(kv, { retentionMs: 60_000, now: Date.now });
  let down = true;
  const tries: number[] = [];
  const { t, sent } = recorder(() => {
    tries.push(Date.now());
    return down ? new Error("ECONNREFUSED") : undefined;
  });
  const w = worker(q, t, { backoffMs: 200, backoffMaxMs: 2000 }).start();
  try {
    const id = await q.send(mail("e@demo.example"));
    await w.idle();
    const m = (await q.get(id))!;
    assert.equal(m.state, "failed");
    assert.equal(m.attempts, 3);
    assert.equal(m.lastError, "ECONNREFUSED");
    assert.equal(tries.length, 3);
    // Exponential: 200 ms then 400 ms, less 20 % jitter (160, 320), less the 50 ms by which
    // the worker takes a due message early (a timer may fire a little before its time).
    const [a, b] = [tries[1] - tries[0], tries[2] - tries[1]];
    assert.ok(a >= 160 - 50 - 5 && b >= 320 - 50 - 5, `waits ${a} ms then ${b} ms`);
    assert.ok(b > a, `the second wait (${b} ms) is longer than the first (${a} ms)`);
    assert.deepEqual((await q.open()).map((x) => x.id), [id], "a failed message stays listed");
    down = false;
    const out: string[] = [];
    assert.equal(await runCli(["retry", id], q, (l) => out.push(l)), 0);
    assert.deepEqual(out, [`${id}: pending`]);
    await w.idle();
    assert.equal((await q.get(id))!.state, "delivered");
    assert.equal(sent.length, 1);
    assert.equal(await runCli(["discard", id], q, (l) => out.push(l)), 1, "delivered: refused");
  } finally {
    await w.stop();
    kv.close();
  }
});

Deno.test("[messages] the start-up sweep delivers a pending message this process was not told of", async () => {
  const kv = await Deno.openKv(":memory:");
  const q = new MessageQueue(kv, { retentionMs: 60_000, now: Date.now });
  const { t, sent } = recorder();
  try {
    // The record written by another process (or before a crash): nobody woke this worker.
    const now = Date.now();
    const lost = new MessageRepo(kv, 60_000).write(kv.atomic(), null, {
      ...mail("f@demo.example"),
      id: "000000000lostitem00",
      state: "pending",
      createdAt: now,
      updatedAt: now,
      attempts: 0,
      nextAttemptAt: now,
    });
    await lost.commit();
    const w = worker(q, t).start();
    await w.idle();
    await w.stop();
    kv.close();
    assert.deepEqual(sent.map((m) => m.id), ["000000000lostitem00"]);
  } finally {
    try {
      kv.close();
    } catch { /* closed above */ }
  }
});

Deno.test("[messages] a file KV: mail queued before a restart is delivered after it, once", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/qcard.kv`;
  try {
    let kv = await Deno.openKv(path);
    let q = new MessageQueue(kv, { retentionMs: 60_000, now: Date.now });
    const id = await q.send(mail("g@demo.example"));
    kv.close(); // the process stops before any worker ran
    kv = await Deno.openKv(path);
    q = new MessageQueue(kv, { retentionMs: 60_000, now: Date.now });
    const { t, sent } = recorder();
    const w = worker(q, t).start();
    await w.idle();
    await new Promise((r) => setTimeout(r, 250)); // the start-up sweep and any later look
    await w.stop();
    kv.close();
    assert.deepEqual(sent.map((m) => m.id), [id]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
