/**
 * The jobs wing (server/jobs/, docs/jobs.md): a job written with its change, claimed with a
 * checked write (one runner per attempt), retried with backoff, given up into a list an operator
 * reads and retries (`deno task outbox`), taken over from a dead runner when its lease ends.
 */
import assert from "node:assert/strict";
import { addJob, type Job, JOB_DUE, JOB_FAILED, listJobs } from "../../server/jobs/jobs.ts";
import { type JobKind, JobRunner, type Outcome } from "../../server/jobs/runner.ts";
import { Scheduler } from "../../server/jobs/scheduler.ts";
import { runCli } from "../../server/app/outbox_cli.ts";
import { MessageQueue } from "../../server/messages/queue.ts";
import { DEMO, openTestKv, withApp } from "../helpers.ts";
import { login } from "./api.ts";
import { submitted } from "./purchase_helpers.ts";

function runner(kv: Deno.Kv, kinds: Record<string, JobKind<unknown>>, log: string[] = []) {
  return new JobRunner({
    kv,
    kinds,
    now: Date.now,
    log: (l) => log.push(l),
    maxAttempts: 3,
    backoffMs: 40,
    backoffMaxMs: 400,
    runTimeoutMs: 500,
    concurrency: 4,
    pollMs: 60_000, // no sweep in these tests: what runs was woken by a commit or a timer
  });
}

Deno.test("[jobs] a job lands with its change or not at all, and runs right after the commit", async () => {
  const kv = await openTestKv();
  const ran: unknown[] = [];
  const r = runner(kv, {
    note: { run: (j) => (ran.push(j.data), Promise.resolve({ kind: "done" })) },
  }).start();
  try {
    // A change refused by its check: neither the change nor its job is written.
    await kv.set(["thing"], 1);
    const stale = await kv.get(["thing"]);
    await kv.set(["thing"], 2);
    const lost = kv.atomic().check(stale).set(["thing"], 3);
    addJob(lost, Date.now(), "note", { n: 1 });
    assert.equal((await lost.commit()).ok, false);
    assert.deepEqual(await listJobs(kv), []);
    // Committed: the job is there, and this process's runner is woken by the commit itself.
    const op = kv.atomic().check(await kv.get(["thing"])).set(["thing"], 4);
    addJob(op, Date.now(), "note", { n: 2 });
    const t0 = Date.now();
    assert.ok((await op.commit()).ok);
    await r.idle(5_000);
    assert.deepEqual(ran, [{ n: 2 }]);
    assert.ok(Date.now() - t0 < 1_000, "run at once, not at the next sweep");
    assert.deepEqual(await listJobs(kv), [], "a job that ran is gone");
  } finally {
    await r.stop();
    kv.close();
  }
});

Deno.test("[jobs] a failing job is retried with a growing backoff, then given up and retried by an operator", async () => {
  const kv = await openTestKv();
  const tries: number[] = [];
  let down = true;
  const log: string[] = [];
  const flaky: JobKind<unknown> = {
    run: (): Promise<Outcome> => {
      tries.push(Date.now());
      return Promise.resolve(down ? { kind: "retry", error: "ECONNREFUSED" } : { kind: "done" });
    },
  };
  const r = runner(kv, { flaky }, log).start();
  try {
    const op = kv.atomic();
    const id = addJob(op, Date.now(), "flaky", { to: "someone" });
    await op.commit();
    await r.idle(5_000);
    assert.equal(tries.length, 3, "maxAttempts");
    const [a, b] = [tries[1] - tries[0], tries[2] - tries[1]];
    assert.ok(a >= 40 * 0.8 - 55 && b > a, `waits ${a} ms then ${b} ms`);
    const failed = (await kv.get<Job>([JOB_FAILED, id])).value!;
    assert.equal(failed.attempts, 3);
    assert.match(failed.lastError!, /ECONNREFUSED \(after 3 attempts\)/);
    assert.ok(log.some((l) => /flaky .* given up: ECONNREFUSED/.test(l)), log.join("\n"));
    // The operator's listing shows it among the failed jobs, with its kind, never its data's text.
    const q = new MessageQueue(kv, { retentionMs: 60_000, now: Date.now });
    const out: string[] = [];
    assert.equal(await runCli([], q, (l) => out.push(l)), 0);
    assert.ok(out.includes("jobs: 0 waiting, 0 running, 1 failed"), out.join("\n"));
    assert.ok(out.some((l) => l.startsWith(`${id}  failed  flaky`)), out.join("\n"));
    assert.ok(out.every((l) => !l.includes("someone")), "no content listed");
    // Retried: it runs again now, with a fresh count, and succeeds.
    down = false;
    out.length = 0;
    assert.equal(await runCli(["retry", "--all-failed"], q, (l) => out.push(l)), 0);
    assert.deepEqual(out, [`${id}: flaky waiting`]);
    await r.idle(5_000);
    assert.equal(tries.length, 4);
    assert.deepEqual(await listJobs(kv), []);
    assert.equal(await runCli(["discard", id], q, (l) => out.push(l)), 1, "gone: refused");
  } finally {
    await r.stop();
    kv.close();
  }
});

Deno.test("[jobs] two runners on one store: every job runs exactly once", async () => {
  const kv = await openTestKv();
  const runs = new Map<string, number>();
  const count: JobKind<unknown> = {
    run: async (j) => {
      runs.set(j.id, (runs.get(j.id) ?? 0) + 1);
      await new Promise((ok) => setTimeout(ok, 2));
      return { kind: "done" };
    },
  };
  const [a, b] = [runner(kv, { count }), runner(kv, { count })];
  try {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const op = kv.atomic();
      for (let k = 0; k < 10; k++) ids.push(addJob(op, Date.now(), "count", { i, k }));
      await op.commit();
    }
    a.start();
    b.start();
    await Promise.all([a.idle(10_000), b.idle(10_000)]);
    assert.equal(runs.size, 60);
    assert.deepEqual([...new Set(runs.values())], [1], "no job ran twice");
  } finally {
    await a.stop();
    await b.stop();
    kv.close();
  }
});

Deno.test("[jobs] a runner that died mid-attempt: its job runs again once the lease has ended; an expired one is dropped", async () => {
  const kv = await openTestKv();
  const ran: string[] = [];
  const kinds = {
    work: { run: (j: Job) => (ran.push(j.id), Promise.resolve({ kind: "done" as const })) },
  };
  const r = runner(kv, kinds);
  try {
    const now = Date.now();
    // As a dead process left it: claimed (one attempt counted), its lease ended a moment ago.
    const dead: Job = {
      id: "dead1",
      kind: "work",
      data: {},
      createdAt: now - 5_000,
      attempts: 1,
      runningSince: now - 2_000,
    };
    await kv.set([JOB_DUE, now - 10, dead.id], dead);
    // Another still leased by a live runner: left alone.
    const live: Job = { ...dead, id: "live1" };
    await kv.set([JOB_DUE, now + 60_000, live.id], live);
    // A push past its time to live: dropped unrun.
    const old: Job = {
      id: "old1",
      kind: "work",
      data: {},
      createdAt: now - 9_000,
      attempts: 0,
      expiresAt: now - 1,
    };
    await kv.set([JOB_DUE, now - 9_000, old.id], old);
    await r.tick();
    assert.deepEqual(ran, ["dead1"]);
    const left = await listJobs(kv);
    assert.deepEqual(left.map((j) => [j.id, j.state]), [["live1", "running"]]);
  } finally {
    await r.stop();
    kv.close();
  }
});

Deno.test(
  "[jobs] deno task outbox lists every kind: messages and their jobs, a submit's notify job",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    await submitted(api, emp.h, { amount: 300, purpose: "Trade fair" });
    const out: string[] = [];
    assert.equal(await runCli([], api.deps.messages, (l) => out.push(l)), 0);
    // No worker runs in this app: the activation mails wait, and so does the notify job.
    assert.match(out[0], /\d+ pending, 0 sending, 0 failed/);
    assert.ok(out.some((l) => / pending email +activation {2}to /.test(l)), out.join("\n"));
    const notify = out.find((l) =>
      / waiting event\.notify {2}type approval\.opened, requestOid /.test(l)
    );
    assert.ok(notify, out.join("\n"));
    // Each message is delivered by a job of its own: one runner for every kind.
    const kinds = new Set((await listJobs(api.kv)).map((j) => j.kind));
    assert.deepEqual([...kinds].sort(), ["event.notify", "message.send"]);
    assert.ok(
      out.some((l) => / waiting message\.send {2}message \w+ {2}age /.test(l)),
      out.join("\n"),
    );
  }),
);

Deno.test("[scheduler] a duty runs each period, never twice at once, and stop() waits for it", async () => {
  const kv = await openTestKv();
  let runs = 0;
  let running = 0;
  let overlap = false;
  const s = new Scheduler(kv, { now: Date.now, log: () => {} }).add({
    name: "slow",
    everyMs: 10,
    firstAfterMs: 0,
    run: async () => {
      running++;
      overlap ||= running > 1;
      await new Promise((r) => setTimeout(r, 30));
      runs++;
      running--;
    },
  }).start();
  // Until it has run twice (a stalled machine may take longer than the 80 ms this needs).
  for (let t = 0; runs < 2 && t < 200; t++) await new Promise((r) => setTimeout(r, 10));
  await s.stop();
  const after = runs;
  assert.ok(after >= 2, `ran ${after} times`);
  assert.equal(overlap, false);
  assert.equal(running, 0, "stop() waited for the run in progress");
  await new Promise((r) => setTimeout(r, 40));
  assert.equal(runs, after, "no run after stop()");
  kv.close();
});

Deno.test("[scheduler] one lease mechanism: a leased duty runs in one of two processes; a cron tick claims its period once", async () => {
  const kv = await openTestKv();
  const ran: string[] = [];
  const scheduler = (who: string) =>
    new Scheduler(kv, { now: Date.now, log: () => {} })
      .add({
        name: "sweep",
        everyMs: 60_000,
        run: async () => {
          ran.push(`sweep ${who}`);
          await new Promise((r) => setTimeout(r, 20));
        },
      })
      .add({
        name: "look",
        everyMs: 60_000,
        mode: "each",
        run: () => Promise.resolve(ran.push(`look ${who}`)),
      });
  const [a, b] = [scheduler("a"), scheduler("b")];
  try {
    // Two isolates ticked by Deno.cron at once: the leased duty once, the "each" duty in both.
    await Promise.all([a.tick(), b.tick()]);
    assert.equal(ran.filter((r) => r.startsWith("sweep")).length, 1, ran.join(", "));
    assert.deepEqual(ran.filter((r) => r.startsWith("look")).sort(), ["look a", "look b"]);
    // The next minute's tick, within the sweep's period: only the "each" duty.
    ran.length = 0;
    await Promise.all([a.tick(), b.tick()]);
    assert.deepEqual(ran.sort(), ["look a", "look b"]);
  } finally {
    await a.stop();
    await b.stop();
    kv.close();
  }
});
