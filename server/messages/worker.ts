import type { MessageQueue } from "./queue.ts";
import { backoffMs, classify, Semaphore, withTimeout } from "./policy.ts";
import { leaseTtl, runLeased } from "../store/lease.ts";
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
   * Period of the sweep that finds due messages this process was not told of: written by
   * another process, or retries whose process stopped (Deno.cron adds a run every minute).
   */
  sweepMs: number;
  /** Messages sent at the same time, at most. */
  concurrency: number;
  /** The host part of Message-IDs (`<id@host>`): PUBLIC_URL's host. */
  messageIdHost: string;
  now: () => number;
  log: (line: string) => void;
}

/**
 * Delivers queued messages. A message record is its own job: pending with the time its
 * next attempt is due, in the ["msg_open", "pending"] index (no KV queue: today's Deno
 * Deploy and KV Connect have none). The worker is woken right after a commit in this
 * process that added one (MessageQueue.onDue), at the due time of the earliest pending one
 * it saw (a timer), and by the sweep (every sweepMs, and `tick()` from Deno.cron), which
 * also takes back attempts whose lease ran out. Exactly-once towards transports as far as a
 * versioned pending → sending transition can make it: a second look at a message finds it
 * delivered (or being sent) and does nothing, whichever process looks. Failures are retried
 * by moving the due time back with an exponential delay, in the same atomic write that
 * records the failure.
 */
/** A message this little before its due time is taken now (timers fire a little early). */
const EARLY_TOLERANCE_MS = 50;

export class DeliveryWorker {
  private stopping = false;
  private inflight = new Set<Promise<void>>();
  private sem: Semaphore;
  private sweepTimer?: ReturnType<typeof setInterval>;
  /** The one timer waiting for the earliest known due time. */
  private wake?: { at: number; timer: ReturnType<typeof setTimeout> };
  private scanning?: Promise<void>;
  private scanAgain = false;
  /** Messages an attempt of this process is waiting for or running (not looked at twice). */
  private taken = new Set<string>();
  private unsubscribe?: () => void;
  /** Bumped whenever an attempt or sweep starts or ends (idle() reads counts between). */
  private generation = 0;
  /** Resolvers waiting for the queue to drain (tests, bench). */
  private idleWaiters: (() => void)[] = [];

  constructor(private queue: MessageQueue, private opts: WorkerOptions) {
    this.sem = new Semaphore(opts.concurrency);
  }

  /**
   * Starts: listens for this process's commits, looks for due work at once (not under the
   * lease: a process killed while holding it must not delay the next one's start-up by the
   * lease's length), and runs the leased sweep every sweepMs.
   */
  start(): this {
    this.unsubscribe = this.queue.onDue((at) => this.dueAt(at));
    this.kick();
    this.sweepTimer = setInterval(() => this.track(this.sweepOnce()), this.opts.sweepMs);
    return this;
  }

  /**
   * One cron run (Deno.cron calls it every minute where isolates stop between requests): a
   * look for due work, not under the lease either (an isolate evicted while holding it would
   * stop every other one's cron runs until it ran out). Safe from several processes at once:
   * every attempt claims its message with a checked write.
   */
  tick(): Promise<void> {
    return this.kick();
  }

  /**
   * Stops taking work and waits for attempts under way; closes the transports. A message
   * left pending is found by the next start's sweep (or another process's).
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    clearInterval(this.sweepTimer);
    clearTimeout(this.wake?.timer);
    this.wake = undefined;
    while (this.inflight.size) await Promise.allSettled([...this.inflight]);
    for (const t of Object.values(this.opts.transports)) await t.close();
  }

  /** Resolves once no message is pending or being sent (tests and the bench wait on it). */
  async idle(timeoutMs = 30_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      // Nothing of ours may start or end while the counts are read, or they may be torn.
      const quiet = this.inflight.size === 0 ? this.generation : -1;
      const c = await this.queue.repo.counts();
      if (c.pending === 0 && c.sending === 0 && quiet === this.generation) return;
      await new Promise<void>((r) => {
        const t = setTimeout(r, 25);
        this.idleWaiters.push(() => (clearTimeout(t), r()));
      });
    }
    throw new Error("messages still pending after the timeout");
  }

  /** Looks for due messages now (coalesced: one look at a time, one more if asked meanwhile). */
  kick(): Promise<void> {
    if (this.stopping) return Promise.resolve();
    if (this.scanning) {
      this.scanAgain = true;
      return this.scanning;
    }
    const run = this.track(this.scan()).finally(() => {
      this.scanning = undefined;
      if (this.scanAgain) {
        this.scanAgain = false;
        this.kick();
      }
    });
    this.scanning = run;
    return run;
  }

  /** A message is due at `at`: look now, or set the timer for then. */
  private dueAt(at: number): void {
    if (this.stopping) return;
    if (at - this.opts.now() <= EARLY_TOLERANCE_MS) this.kick();
    else this.wakeAt(at);
  }

  private wakeAt(at: number): void {
    if (this.stopping || (this.wake && this.wake.at <= at)) return;
    clearTimeout(this.wake?.timer);
    const timer = setTimeout(() => {
      this.wake = undefined;
      this.kick();
    }, Math.max(0, at - this.opts.now()));
    this.wake = { at, timer };
  }

  /**
   * Starts an attempt for every pending message due now and every attempt whose lease ran
   * out; sets the timer for the earliest one not yet due. Reads only the open index (a
   * range of the messages not yet delivered), so delivered ones cost nothing.
   */
  private async scan(): Promise<void> {
    const { repo } = this.queue;
    const now = this.opts.now();
    let next = Infinity;
    const due: string[] = [];
    for await (const { id, summary } of repo.open("pending")) {
      if (this.stopping) return;
      if (summary.nextAttemptAt - now <= EARLY_TOLERANCE_MS) due.push(id);
      else next = Math.min(next, summary.nextAttemptAt);
    }
    for await (const { id, summary } of repo.open("sending")) {
      if (this.stopping) return;
      const until = summary.leaseUntil ?? 0;
      if (until <= now) due.push(id);
      else next = Math.min(next, until);
    }
    for (const id of due) {
      if (this.taken.has(id)) continue;
      this.taken.add(id);
      this.track(this.deliver(id).finally(() => this.taken.delete(id)));
    }
    if (next < Infinity) this.wakeAt(next);
  }

  private track(p: Promise<void>): Promise<void> {
    this.generation++;
    const q = p.catch((err) => this.opts.log(`[messages] worker error: ${err?.stack ?? err}`))
      .finally(() => {
        this.generation++;
        this.inflight.delete(q);
        for (const w of this.idleWaiters.splice(0)) w();
      });
    this.inflight.add(q);
    return q;
  }

  /** One attempt at one message, if it is still ours to send. */
  async deliver(id: string): Promise<void> {
    await this.sem.acquire();
    try {
      if (this.stopping) return;
      const { repo, kv } = this.queue;
      const e = await repo.get(id);
      const m = e.value;
      if (!m) return;
      const now = this.opts.now();
      const stale = m.state === "sending" && (m.leaseUntil ?? 0) <= now;
      // Delivered, failed, expired, discarded, or another attempt under way: nothing to do.
      if (m.state !== "pending" && !stale) return;
      // Not due yet (a look that read the message before its attempt failed and moved its
      // due time back): the timer set for the new due time comes then.
      if (m.state === "pending" && m.nextAttemptAt - now > EARLY_TOLERANCE_MS) return;
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
        return;
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
      if (!claim.ok) return; // another worker (or a redelivered item) took it
      const transport = this.opts.transports[m.channel];
      let error: DeliveryError | undefined;
      try {
        await withTimeout(transport.send(this.outgoing(m)), this.opts.sendTimeoutMs);
      } catch (err) {
        error = classify(err);
      }
      await this.finish(id, claim.versionstamp, sending, transport, error);
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
  ) {
    const { repo, kv } = this.queue;
    const now = this.opts.now();
    const base = { ...sending, leaseUntil: undefined, updatedAt: now };
    let next: Message;
    let retryIn = 0;
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
      retryIn = Math.max(
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
    } else if (next.state === "pending") this.wakeAt(next.nextAttemptAt);
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
   * The periodic sweep, by the one process on the store holding its lease (the others'
   * commits and timers still wake them for their own messages).
   */
  private async sweepOnce(): Promise<void> {
    const ttl = leaseTtl(this.opts.sweepMs);
    await runLeased(this.queue.kv, "message-sweep", ttl, () => this.kick());
  }
}
