import { backoffMs, Semaphore } from "../messages/policy.ts";
import type { Store } from "../store/mod.ts";
import type { PushSender } from "./relay.ts";
import type { PushOutcome, Urgency } from "./send.ts";
import type { PushSubscriptionJson } from "../push_subscription.ts";

/**
 * One notification to one device, waiting in KV until it is delivered or given up:
 *   ["push_due", dueAt, id] → PushJob
 * A single key per job, ordered by when it is due: the worker claims a due job by moving it
 * (checked) to its lease's end, so a crash mid-send makes it due again; it is deleted once
 * delivered or given up, and moved to `now + backoff` for a retry. Every process on the KV
 * polls the same range; the checked move lets exactly one of them send a given attempt.
 * The subscription is read at send time: a device that deregistered meanwhile gets nothing.
 */
export interface PushJob {
  id: string;
  userOid: string;
  deviceId: string;
  /** JSON of client/shared/push_links.ts PushPayload, in the recipient's language. */
  payload: string;
  urgency: Urgency;
  /** How long the push service should keep it for an offline device; also our own limit. */
  ttlSeconds: number;
  createdAt: number;
  attempts: number;
  lastError?: string;
}

export const DUE = "push_due";

export interface PushWorkerOptions {
  store: Store;
  /**
   * How pushes go out: with this server's VAPID keys (send.ts), or handed to the edge in relay
   * mode (relay.ts). Null while push is off (production without VAPID keys).
   */
  sender: () => Promise<PushSender | null>;
  now: () => number;
  log: (line: string) => void;
  /** Attempts before a job is given up (MESSAGE_MAX_ATTEMPTS). */
  maxAttempts: number;
  /** First retry delay, doubled each attempt with jitter, up to backoffMaxMs. */
  backoffMs: number;
  backoffMaxMs: number;
  sendTimeoutMs: number;
  /** Pushes sent at the same time, at most. */
  concurrency: number;
  /** Period of the poll that finds jobs written by other processes or left by a crash. */
  pollMs: number;
}

let lastId = 0;
function newJobId(): string {
  const t = Math.max(Date.now(), lastId + 1);
  lastId = t;
  return `${t.toString(36)}${crypto.randomUUID().slice(0, 8)}`;
}

/** Adds one job per subscription to `op` (at most ~900 per op: KV's 1000-mutation limit). */
export function addJobs(
  op: Deno.AtomicOperation,
  now: number,
  targets: { userOid: string; deviceId: string }[],
  payload: string,
  opts: { urgency: Urgency; ttlSeconds: number },
): Deno.AtomicOperation {
  for (const t of targets) {
    const job: PushJob = {
      id: newJobId(),
      userOid: t.userOid,
      deviceId: t.deviceId,
      payload,
      urgency: opts.urgency,
      ttlSeconds: opts.ttlSeconds,
      createdAt: now,
      attempts: 0,
    };
    op.set([DUE, now, job.id], job);
  }
  return op;
}

/** Figures for the bench and tests. */
export interface PushCounts {
  delivered: number;
  gone: number;
  retried: number;
  refused: number;
  dropped: number;
}

/**
 * Sends due push jobs: polls KV every pollMs, and at once when kicked (a job was just
 * queued by this process, or a retry falls due). At-least-once: a job is deleted only after
 * its push service answered; a repeat after a crash shows as the same notification (same
 * tag) on the device.
 */
export class PushWorker {
  private stopping = false;
  private timer?: ReturnType<typeof setInterval>;
  private retryTimers = new Set<ReturnType<typeof setTimeout>>();
  private running?: Promise<void>;
  private again = false;
  private sem: Semaphore;
  readonly counts: PushCounts = { delivered: 0, gone: 0, retried: 0, refused: 0, dropped: 0 };

  constructor(private o: PushWorkerOptions) {
    this.sem = new Semaphore(o.concurrency);
  }

  start(): this {
    this.timer = setInterval(() => this.kick(), this.o.pollMs);
    this.kick();
    return this;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    for (const t of this.retryTimers) clearTimeout(t);
    this.retryTimers.clear();
    while (this.running) await this.running;
  }

  /** Looks for due jobs now (again after the current pass if one is under way). */
  kick(): void {
    if (this.stopping) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.pass();
        } while (this.again && !this.stopping);
      } catch (err) {
        this.o.log(`[push] worker error: ${err instanceof Error ? err.stack : err}`);
      } finally {
        this.running = undefined;
      }
    })();
  }

  /** Resolves once no job is waiting (tests and the bench). */
  async idle(timeoutMs = 30_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      if (!this.running) {
        const it = this.o.store.kv.list({ prefix: [DUE] }, { limit: 1 });
        if ((await it.next()).done && !this.running) return;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error("push jobs still waiting after the timeout");
  }

  /** Sends every job due now, batch by batch. */
  private async pass(): Promise<void> {
    const { kv } = this.o.store;
    while (!this.stopping) {
      const now = this.o.now();
      const due: Deno.KvEntry<PushJob>[] = [];
      const sel = { start: [DUE], end: [DUE, now + 1] };
      for await (const e of kv.list<PushJob>(sel, { limit: 200 })) due.push(e);
      if (!due.length) return;
      const sent = await Promise.all(due.map(async (e) => {
        await this.sem.acquire();
        try {
          return await this.attempt(e);
        } finally {
          this.sem.release();
        }
      }));
      // Only claims lost to another process: leave the rest to it.
      if (!sent.some(Boolean)) return;
    }
  }

  /** One attempt at one job, if this process wins its claim. */
  private async attempt(e: Deno.KvEntry<PushJob>): Promise<boolean> {
    const { kv, pushSubs } = this.o.store;
    const now = this.o.now();
    const job = { ...e.value, attempts: e.value.attempts + 1 };
    const leaseKey = [DUE, now + this.o.sendTimeoutMs + 30_000, job.id];
    const claim = await kv.atomic().check(e).delete(e.key).set(leaseKey, job).commit();
    if (!claim.ok) return false;
    const lease = { key: leaseKey, versionstamp: claim.versionstamp };
    const done = () => kv.atomic().check(lease).delete(leaseKey).commit();
    const what = `[push] ${job.id} to ${job.userOid}/${job.deviceId}`;
    if (now > job.createdAt + job.ttlSeconds * 1000) {
      this.o.log(`${what} expired after ${job.attempts - 1} attempt(s): ${job.lastError ?? ""}`);
      this.counts.dropped++;
      await done();
      return true;
    }
    const [sub, dev] = await kv.getMany<[unknown, unknown]>([
      pushSubs.key(job.userOid, job.deviceId),
      ["device", job.deviceId],
    ]);
    const rec = sub.value as { subscription: PushSubscriptionJson } | null;
    const device = dev.value as { status?: string; userOid?: string } | null;
    const send = await this.o.sender();
    if (!rec || !send || device?.status !== "active" || device.userOid !== job.userOid) {
      // Deregistered, device gone, or push turned off meanwhile: nothing to send.
      if (rec && (!device || device.userOid !== job.userOid)) {
        await kv.atomic().check(sub).delete(sub.key).commit();
      }
      this.counts.dropped++;
      await done();
      return true;
    }
    const outcome = await send(rec.subscription, job.payload, {
      ttlSeconds: job.ttlSeconds,
      urgency: job.urgency,
      timeoutMs: this.o.sendTimeoutMs,
    });
    await this.finish(job, lease, outcome, rec.subscription.endpoint, what);
    return true;
  }

  private async finish(
    job: PushJob,
    lease: { key: Deno.KvKey; versionstamp: string },
    outcome: PushOutcome,
    endpoint: string,
    what: string,
  ): Promise<void> {
    const { kv, pushSubs } = this.o.store;
    const op = kv.atomic().check(lease).delete(lease.key);
    const service = new URL(endpoint).origin;
    switch (outcome.kind) {
      case "delivered":
        this.counts.delivered++;
        break;
      case "gone":
        this.counts.gone++;
        if (await pushSubs.dropGone(job.userOid, job.deviceId, endpoint)) {
          this.o.log(`${what}: ${service} answered ${outcome.status}, subscription dropped`);
        }
        break;
      case "refused":
        // The payload is never logged: it holds amounts, names and reasons.
        this.counts.refused++;
        this.o.log(`${what} given up: ${service} refused it (${outcome.error})`);
        break;
      case "retry": {
        if (job.attempts >= this.o.maxAttempts) {
          this.counts.refused++;
          this.o.log(`${what} given up after ${job.attempts} attempts: ${outcome.error}`);
          break;
        }
        this.counts.retried++;
        const wait = Math.max(
          backoffMs(job.attempts, this.o.backoffMs, this.o.backoffMaxMs),
          Math.min(outcome.retryAfterMs ?? 0, this.o.backoffMaxMs),
        );
        const at = this.o.now() + wait;
        op.set([DUE, at, job.id], { ...job, lastError: outcome.error });
        this.o.log(
          `${what} attempt ${job.attempts} failed (${outcome.error}); next in ${wait} ms`,
        );
        const t = setTimeout(() => {
          this.retryTimers.delete(t);
          this.kick();
        }, wait + 5);
        this.retryTimers.add(t);
        break;
      }
    }
    if (!(await op.commit()).ok) this.o.log(`${what}: its lease was taken over meanwhile`);
  }
}
