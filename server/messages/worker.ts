import { enqueue, type MessageQueue } from "./queue.ts";
import { backoffMs, classify, Semaphore, withTimeout } from "./policy.ts";
import { leaseTtl, runLeased } from "../store/lease.ts";
import {
  type Channel,
  type DeliveryError,
  isQueueItem,
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
  /** Period of the sweep that re-enqueues pending messages whose queue item was lost. */
  sweepMs: number;
  /** Messages sent at the same time, at most. */
  concurrency: number;
  /** The host part of Message-IDs (`<id@host>`): PUBLIC_URL's host. */
  messageIdHost: string;
  now: () => number;
  log: (line: string) => void;
}

/**
 * Delivers queued messages: one Deno KV listenQueue handler (a KV file here, the managed KV
 * on Deno Deploy), at-least-once from KV's side, exactly-once towards transports as far as
 * a versioned pending → sending transition can make it: a redelivered queue item finds the
 * message delivered (or being sent) and does nothing. Failures are retried by re-enqueueing
 * with an exponential delay in the same atomic write that records the failure.
 */
/** A queue item this much before its message's next attempt is a duplicate, not the retry. */
const EARLY_TOLERANCE_MS = 50;

export class DeliveryWorker {
  private stopping = false;
  private inflight = new Set<Promise<void>>();
  private sem: Semaphore;
  private sweepTimer?: ReturnType<typeof setInterval>;
  private listening?: Promise<void>;
  /** Bumped whenever an attempt or sweep starts or ends (idle() reads counts between). */
  private generation = 0;
  /** Resolvers waiting for the queue to drain (tests, bench). */
  private idleWaiters: (() => void)[] = [];

  constructor(private queue: MessageQueue, private opts: WorkerOptions) {
    this.sem = new Semaphore(opts.concurrency);
  }

  /** Starts listening and sweeps once (a queue item may have been lost with a crash). */
  start(): this {
    this.listening = this.queue.kv.listenQueue((item) => this.onItem(item));
    this.track(this.sweepOnce(true));
    this.sweepTimer = setInterval(() => this.track(this.sweepOnce(false)), this.opts.sweepMs);
    return this;
  }

  /**
   * Stops taking work and waits for attempts under way; closes the transports. The KV
   * queue listener ends when the owner closes the KV (Deno has no other way to end it):
   * `closed` resolves then. Items delivered after stop are left alone: their message stays
   * pending and the next start's sweep re-enqueues it.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.sweepTimer);
    while (this.inflight.size) await Promise.allSettled([...this.inflight]);
    for (const t of Object.values(this.opts.transports)) await t.close();
  }

  /** Resolves when the KV queue listener has ended (after kv.close()). */
  get closed(): Promise<void> {
    return this.listening ?? Promise.resolve();
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

  private onItem(item: unknown): Promise<void> | void {
    if (this.stopping) return;
    if (!isQueueItem(item)) {
      this.opts.log(`[messages] unknown queue item ignored: ${JSON.stringify(item)}`);
      return;
    }
    const p = this.track(this.deliver(item.id));
    return p;
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
      // A duplicate item come early (a sweep that read the message before its attempt failed
      // re-enqueued it at once): its own item, written with the backoff, comes at the time.
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
        leaseUntil: now + this.opts.sendTimeoutMs + 30_000,
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
    if (next.state === "pending") enqueue(op, id, retryIn);
    if (!(await op.commit()).ok) {
      // Our lease ran out and someone took over, or an operator changed it: theirs now.
      this.opts.log(`[messages] ${id} changed during the attempt; outcome not recorded`);
    }
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

  /** The sweep, by the one process on the store holding its lease (issue 14). */
  private async sweepOnce(all: boolean): Promise<void> {
    const ttl = leaseTtl(this.opts.sweepMs);
    await runLeased(this.queue.kv, "message-sweep", ttl, () => this.sweep(all));
  }

  /**
   * Re-enqueues pending messages whose queue item may be gone: all of them at start (a crash,
   * or a retry written by `deno task outbox` in another process), and later those overdue by
   * more than a sweep period. A duplicate item is harmless: the state check drops it. Also
   * takes back messages left `sending` by an attempt that died (its lease ran out).
   */
  async sweep(all: boolean): Promise<void> {
    const { repo, kv } = this.queue;
    const now = this.opts.now();
    const due: { id: string; delay: number }[] = [];
    for await (const { id, summary } of repo.open("pending")) {
      if (this.stopping) return;
      if (all || summary.nextAttemptAt < now - this.opts.sweepMs) {
        due.push({ id, delay: Math.max(0, summary.nextAttemptAt - now) });
      }
    }
    for await (const { id, summary } of repo.open("sending")) {
      if ((summary.leaseUntil ?? 0) <= now) due.push({ id, delay: 0 });
    }
    for (let i = 0; i < due.length && !this.stopping; i += 100) {
      const op = kv.atomic();
      for (const d of due.slice(i, i + 100)) enqueue(op, d.id, d.delay);
      await op.commit();
    }
  }
}
