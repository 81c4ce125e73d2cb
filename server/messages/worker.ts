import { MESSAGE_SEND, type MessageQueue } from "./queue.ts";
import { classify } from "./policy.ts";
import { backoffMs, Semaphore, withTimeout } from "../jobs/policy.ts";
import { addJob } from "../jobs/jobs.ts";
import { JobRunner, type Outcome } from "../jobs/runner.ts";
import {
  type Channel,
  type DeliveryError,
  type Message,
  type Outgoing,
  type Transport,
} from "./types.ts";

export interface WorkerOptions {
  transports: Record<Channel, Transport>;
  /** Attempts before a message is left failed (an operator may retry it). */
  maxAttempts: number;
  /** First retry delay; doubled each attempt (±20 % jitter) up to backoffMaxMs. */
  backoffMs: number;
  backoffMaxMs: number;
  /** A whole attempt is abandoned after this (transports have their own, shorter, timeouts). */
  sendTimeoutMs: number;
  /**
   * Period of the sweep that finds jobs this process was not told of (another process's, or a
   * retry whose process stopped), when this worker runs its own jobs runner (tests).
   */
  sweepMs: number;
  /** Messages sent at the same time, at most. */
  concurrency: number;
  /** The host part of Message-IDs (`<id@host>`): PUBLIC_URL's host. */
  messageIdHost: string;
  now: () => number;
  log: (line: string) => void;
}

/** A message this little before its due time is taken now (timers fire a little early). */
const EARLY_TOLERANCE_MS = 50;

/**
 * Delivers queued messages, in the jobs wing (server/jobs/): MessageQueue.add writes each message's
 * record (pending, with the time its next attempt is due) and its `message.send` job in the same
 * atomic write as the change that causes it (no KV queue: today's Deno Deploy and KV Connect have
 * none). The jobs runner runs the job — woken by the commit in this process, by its timer and
 * sweep, and by Deno.cron's tick — and an attempt claims the message with a checked
 * pending → sending write, so a second look (a repeated job, another process) finds it delivered
 * or being sent and does nothing. Failures are retried by moving the record's due time back with
 * an exponential delay, in the write that records the failure, and the job with it; the record is
 * what the outbox, /healthz and `deno task outbox` read.
 */
export { MESSAGE_SEND };

export class DeliveryWorker {
  private stopping = false;
  private sem: Semaphore;
  private runner: JobRunner;
  /** This worker started the runner itself (no shared one was given): it stops it too. */
  private ownRunner: boolean;

  constructor(private queue: MessageQueue, private opts: WorkerOptions, runner?: JobRunner) {
    this.sem = new Semaphore(opts.concurrency);
    this.ownRunner = !runner;
    this.runner = runner ?? new JobRunner({
      kv: queue.kv,
      kinds: {},
      now: opts.now,
      log: opts.log,
      maxAttempts: opts.maxAttempts,
      backoffMs: opts.backoffMs,
      backoffMaxMs: opts.backoffMaxMs,
      runTimeoutMs: opts.sendTimeoutMs,
      concurrency: opts.concurrency,
      pollMs: opts.sweepMs,
    });
    this.runner.register(MESSAGE_SEND, {
      timeoutMs: opts.sendTimeoutMs + 5_000,
      ownsAttempts: true,
      run: (job) => this.attempt((job.data as { id: string }).id),
    });
  }

  /**
   * Starts: gives every open message written before the jobs wing its job (once per store), and
   * starts the runner when it is this worker's own.
   */
  start(): this {
    queueMicrotask(() => {
      this.adoptOpen().catch((err) => this.opts.log(`[messages] adopting open messages: ${err}`));
    });
    if (this.ownRunner) this.runner.start();
    return this;
  }

  /** One cron run: a look for due jobs (safe from several processes: claims are checked). */
  tick(): Promise<void> {
    return this.runner.tick();
  }

  /** Looks for due jobs now. */
  kick(): Promise<void> {
    this.runner.kick();
    return Promise.resolve();
  }

  /**
   * Stops taking work and waits for attempts under way; closes the transports. A message
   * left pending keeps its job, which the next start (or another process) runs.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.ownRunner) await this.runner.stop();
    for (const t of Object.values(this.opts.transports)) await t.close();
  }

  /** Resolves once no message is pending or being sent (tests and the bench wait on it). */
  async idle(timeoutMs = 30_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      await this.runner.idle(Math.max(1, until - Date.now()), [MESSAGE_SEND]).catch(() => {});
      const c = await this.queue.repo.counts();
      if (c.pending === 0 && c.sending === 0) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error("messages still pending after the timeout");
  }

  /** One attempt at one message now, if it is due and still to send (tests step with it). */
  async deliver(id: string): Promise<void> {
    await this.attempt(id);
  }

  /**
   * One attempt: claims the message (pending → sending, checked), sends it, records the
   * outcome. The job's outcome: done, or a retry at the record's new due time.
   */
  private async attempt(id: string): Promise<Outcome> {
    await this.sem.acquire();
    try {
      if (this.stopping) return { kind: "retry", error: "stopping", at: this.opts.now() };
      const { repo, kv } = this.queue;
      const e = await repo.get(id);
      const m = e.value;
      if (!m) return { kind: "done" };
      const now = this.opts.now();
      const stale = m.state === "sending" && (m.leaseUntil ?? 0) <= now;
      // Another attempt under way (its lease alive): looked at again when its lease ends.
      if (m.state === "sending" && !stale) {
        return { kind: "retry", error: "an attempt is under way", at: m.leaseUntil! };
      }
      // Delivered, failed, expired or discarded: nothing to do.
      if (m.state !== "pending" && !stale) return { kind: "done" };
      // Not due yet (its job came early, or a retry moved its time): then.
      if (m.state === "pending" && m.nextAttemptAt - now > EARLY_TOLERANCE_MS) {
        return { kind: "retry", error: "not due yet", at: m.nextAttemptAt };
      }
      // A code past its lifetime, or revoked by a newer code, is not worth sending.
      const newer = m.replaceKey ? await repo.latest(m.replaceKey) : null;
      const dead = m.expiresAt !== undefined && m.expiresAt <= now
        ? "expired"
        : newer && newer !== m.id
        ? "superseded"
        : null;
      if (dead) {
        const done: Message = {
          ...m,
          state: dead,
          updatedAt: now,
          text: "",
          html: undefined,
          scrubbed: true,
          leaseUntil: undefined,
          lastError: dead === "superseded" ? `superseded by ${newer}` : m.lastError,
        };
        await repo.write(kv.atomic().check(e), m, done).commit();
        return { kind: "done" };
      }
      const sending: Message = {
        ...m,
        state: "sending",
        attempts: m.attempts + 1,
        lastAttemptAt: now,
        // The attempt is abandoned at sendTimeoutMs; the margin covers the write that records
        // it and clocks that differ between processes (and keeps short timeouts short).
        leaseUntil: now + this.opts.sendTimeoutMs + Math.min(30_000, this.opts.sendTimeoutMs),
        updatedAt: now,
      };
      const claim = await repo.write(kv.atomic().check(e), m, sending).commit();
      // Another attempt (or an operator) changed it meanwhile: theirs now.
      if (!claim.ok) return { kind: "done" };
      const transport = this.opts.transports[m.channel];
      let error: DeliveryError | undefined;
      try {
        await withTimeout(transport.send(this.outgoing(m)), this.opts.sendTimeoutMs);
      } catch (err) {
        error = classify(err);
      }
      return await this.finish(id, claim.versionstamp, sending, transport, error);
    } finally {
      this.sem.release();
    }
  }

  private async finish(
    id: string,
    versionstamp: string,
    sending: Message,
    transport: Transport,
    error?: DeliveryError,
  ): Promise<Outcome> {
    const { repo, kv } = this.queue;
    const now = this.opts.now();
    const base = { ...sending, leaseUntil: undefined, updatedAt: now };
    let next: Message;
    if (!error) {
      // Codes are not kept in clear once out; the dev outbox keeps its copy to be read.
      const scrub = transport.kind !== "outbox";
      next = {
        ...base,
        state: "delivered",
        deliveredAt: now,
        lastError: undefined,
        ...(scrub ? { text: "", html: undefined, scrubbed: true } : {}),
      };
    } else if (error.permanent || sending.attempts >= this.opts.maxAttempts) {
      next = { ...base, state: "failed", lastError: error.message };
      this.opts.log(
        `[messages] ${id} (${sending.channel}) failed after ${sending.attempts} attempt(s): ` +
          error.message,
      );
    } else {
      const retryIn = Math.max(
        backoffMs(sending.attempts, this.opts.backoffMs, this.opts.backoffMaxMs),
        Math.min(error.retryAfterMs ?? 0, this.opts.backoffMaxMs),
      );
      next = { ...base, state: "pending", lastError: error.message, nextAttemptAt: now + retryIn };
      this.opts.log(
        `[messages] ${id} (${sending.channel}) attempt ${sending.attempts} failed: ` +
          `${error.message}; next in ${Math.round(retryIn / 100) / 10} s`,
      );
    }
    const op = kv.atomic().check({ key: ["msg", id], versionstamp });
    repo.write(op, sending, next);
    if (!(await op.commit()).ok) {
      // Our lease ran out and someone took over, or an operator changed it: theirs now.
      this.opts.log(`[messages] ${id} changed during the attempt; outcome not recorded`);
      return { kind: "done" };
    }
    return next.state === "pending"
      ? { kind: "retry", error: next.lastError ?? "", at: next.nextAttemptAt }
      : { kind: "done" };
  }

  private outgoing(m: Message): Outgoing {
    return {
      id: m.id,
      messageId: `<${m.id}@${this.opts.messageIdHost}>`,
      channel: m.channel,
      to: m.to,
      subject: m.subject,
      text: m.text,
      html: m.html,
    };
  }

  /**
   * Messages queued before the jobs wing (pending or sending, without a job) get one, once per
   * store: a marker written in the same checked write as the jobs says it is done.
   */
  private async adoptOpen(): Promise<void> {
    const { kv, repo } = this.queue;
    const marker = await kv.get(ADOPTED);
    if (marker.value !== null) return;
    const open: string[] = [];
    for (const state of ["pending", "sending"] as const) {
      for await (const { id } of repo.open(state)) open.push(id);
    }
    const ids: string[] = [];
    for (let i = 0; i < open.length; i += 10) {
      const got = await kv.getMany<Message[]>(open.slice(i, i + 10).map((id) => ["msg", id]));
      for (const e of got) if (e.value && !e.value.hasJob) ids.push(e.value.id);
    }
    const now = this.opts.now();
    for (let i = 0; i < ids.length; i += 500) {
      const op = kv.atomic().check(marker);
      for (const id of ids.slice(i, i + 500)) addJob(op, now, MESSAGE_SEND, { id });
      if (i + 500 >= ids.length) op.set(ADOPTED, now);
      if (!(await op.commit()).ok) return; // another process is at it
    }
    if (!ids.length) await kv.atomic().check(marker).set(ADOPTED, now).commit();
  }
}

/** Set once every message written before the jobs wing has its job. */
const ADOPTED = ["jobs_ready", "messages"];
