import { backoffMs, Semaphore, withTimeout } from "./policy.ts";
import { type Job, JOB_DUE, JOB_FAILED, onJobAdded } from "./jobs.ts";

/** What one attempt came to. */
export type Outcome =
  | { kind: "done" }
  /** A temporary failure: tried again after a backoff, until maxAttempts. */
  | { kind: "retry"; error: string; retryAfterMs?: number; at?: number }
  /** A permanent failure: given up now, kept under ["job_failed", id] for an operator. */
  | { kind: "failed"; error: string };

/** How jobs of one kind are run. */
export interface JobKind<D = unknown> {
  /**
   * One attempt. Writes added to `done` commit with the job's end, checked on its lease (a
   * fan-out's new jobs land exactly when the job that made them is gone). Throwing is a
   * temporary failure.
   */
  run(job: Job<D>, done: Deno.AtomicOperation): Promise<Outcome>;
  /** An attempt's time limit (and its lease), when not the runner's runTimeoutMs. */
  timeoutMs?: number;
  /**
   * The kind keeps its own count of attempts and its own record of giving up (a message's
   * record): a retry is never turned into a failure here, and `at` says exactly when it comes.
   */
  ownsAttempts?: boolean;
}

export interface RunnerOptions {
  kv: Deno.Kv;
  // deno-lint-ignore no-explicit-any
  kinds: Record<string, JobKind<any>>;
  now: () => number;
  log: (line: string) => void;
  /** Attempts before a job is given up (MESSAGE_MAX_ATTEMPTS). */
  maxAttempts: number;
  /** First retry delay, doubled each attempt with ±20 % jitter, up to backoffMaxMs. */
  backoffMs: number;
  backoffMaxMs: number;
  /** An attempt is abandoned after this; its lease ends a margin later. */
  runTimeoutMs: number;
  /** Attempts at the same time, at most. */
  concurrency: number;
  /** Period of the sweep that finds jobs of other processes, or left by a dead one. */
  pollMs: number;
}

/** A job this little before its due time is taken now (timers fire a little early). */
const EARLY_MS = 50;

/**
 * Runs due jobs (jobs.ts): woken right after a commit in this process that added one, at the
 * due time of the earliest job it saw (one timer), by the sweep every pollMs, and by `tick()`
 * (Deno.cron, every minute, where isolates stop between requests). A due job is claimed by
 * moving it, checked, to the end of its lease with one more attempt counted: exactly one
 * process runs a given attempt, and a process that dies mid-attempt leaves it due again when
 * the lease ends. At least once: a job is deleted only after its attempt ended.
 */
export class JobRunner {
  private stopping = false;
  private sweepTimer?: ReturnType<typeof setInterval>;
  private wake?: { at: number; timer: ReturnType<typeof setTimeout> };
  private running?: Promise<void>;
  private again = false;
  private sem: Semaphore;
  private unsubscribe?: () => void;

  constructor(private o: RunnerOptions) {
    this.sem = new Semaphore(o.concurrency);
  }

  /** Adds the handler of a kind (the wings that own jobs register theirs before start). */
  // deno-lint-ignore no-explicit-any
  register(name: string, kind: JobKind<any>): this {
    this.o.kinds[name] = kind;
    return this;
  }

  start(): this {
    this.unsubscribe = onJobAdded(() => this.kick());
    this.sweepTimer = setInterval(() => this.kick(), this.o.pollMs);
    this.kick();
    return this;
  }

  /** One cron run: a look for due jobs (safe from several processes: claims are checked). */
  async tick(): Promise<void> {
    this.kick();
    while (this.running) await this.running;
  }

  /** Stops taking jobs and waits for the attempts under way. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    clearInterval(this.sweepTimer);
    clearTimeout(this.wake?.timer);
    this.wake = undefined;
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
        this.o.log(`[jobs] runner error: ${err instanceof Error ? err.stack : err}`);
      } finally {
        this.running = undefined;
      }
    })();
  }

  /**
   * Resolves once no job of `kinds` (every kind when omitted) is waiting or running, retries
   * included (tests and the bench).
   */
  async idle(timeoutMs = 30_000, kinds?: string[]): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      if (!this.running) {
        let open = false;
        for await (const e of this.o.kv.list<Job>({ prefix: [JOB_DUE] })) {
          if (!kinds || kinds.includes(e.value.kind)) {
            open = true;
            break;
          }
        }
        if (!open && !this.running) return;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error("jobs still waiting after the timeout");
  }

  /** Runs every job due now, batch by batch; sets the timer for the next one due. */
  private async pass(): Promise<void> {
    const { kv } = this.o;
    while (!this.stopping) {
      const now = this.o.now();
      const due: Deno.KvEntry<Job>[] = [];
      const sel = { start: [JOB_DUE], end: [JOB_DUE, now + EARLY_MS + 1] };
      for await (const e of kv.list<Job>(sel, { limit: 200 })) due.push(e);
      if (!due.length) break;
      const ran = await Promise.all(due.map(async (e) => {
        await this.sem.acquire();
        try {
          return await this.attempt(e);
        } finally {
          this.sem.release();
        }
      }));
      // Only claims lost to another process: leave the rest to it.
      if (!ran.some(Boolean)) break;
    }
    if (this.stopping) return;
    const later = { prefix: [JOB_DUE], start: [JOB_DUE, this.o.now() + EARLY_MS + 1] };
    const next = kv.list<Job>(later, { limit: 1 });
    const first = await next.next();
    if (!first.done) this.wakeAt(first.value.key[1] as number);
  }

  private wakeAt(at: number): void {
    if (this.stopping || (this.wake && this.wake.at <= at)) return;
    clearTimeout(this.wake?.timer);
    const timer = setTimeout(() => {
      this.wake = undefined;
      this.kick();
    }, Math.max(0, at - this.o.now()));
    this.wake = { at, timer };
  }

  /** One attempt at one job, if this process wins its claim. */
  private async attempt(e: Deno.KvEntry<Job>): Promise<boolean> {
    const { kv } = this.o;
    const now = this.o.now();
    const job: Job = { ...e.value, attempts: e.value.attempts + 1, runningSince: now };
    const kind = this.o.kinds[job.kind];
    const timeout = kind?.timeoutMs ?? this.o.runTimeoutMs;
    const leaseKey = [JOB_DUE, now + timeout + Math.min(30_000, timeout), job.id];
    const claim = await kv.atomic().check(e).delete(e.key).set(leaseKey, job).commit();
    if (!claim.ok) return false;
    const lease = { key: leaseKey, versionstamp: claim.versionstamp };
    const what = `[jobs] ${job.kind} ${job.id}`;
    let done = kv.atomic().check(lease).delete(leaseKey);
    let outcome: Outcome;
    if (job.expiresAt !== undefined && now > job.expiresAt) {
      this.o.log(`${what} expired after ${job.attempts - 1} attempt(s): ${job.lastError ?? ""}`);
      outcome = { kind: "done" };
    } else if (!kind) {
      outcome = { kind: "failed", error: `no handler for ${job.kind} in this process` };
    } else {
      try {
        outcome = await withTimeout(kind.run(job, done), timeout);
      } catch (err) {
        // Whatever the attempt had added to `done` is not to be trusted: a fresh write.
        done = kv.atomic().check(lease).delete(leaseKey);
        outcome = { kind: "retry", error: err instanceof Error ? err.message : String(err) };
      }
    }
    const rest: Job = { ...job };
    delete rest.runningSince;
    if (outcome.kind === "retry" && !kind?.ownsAttempts && job.attempts >= this.o.maxAttempts) {
      outcome = { kind: "failed", error: `${outcome.error} (after ${job.attempts} attempts)` };
    }
    if (outcome.kind === "retry") {
      const wait = outcome.at !== undefined ? Math.max(0, outcome.at - this.o.now()) : Math.max(
        backoffMs(job.attempts, this.o.backoffMs, this.o.backoffMaxMs),
        Math.min(outcome.retryAfterMs ?? 0, this.o.backoffMaxMs),
      );
      const at = this.o.now() + wait;
      done = kv.atomic().check(lease).delete(leaseKey)
        .set([JOB_DUE, at, job.id], { ...rest, lastError: outcome.error });
      // A kind that keeps its own record logs its own failures.
      if (!kind?.ownsAttempts) {
        this.o.log(`${what} attempt ${job.attempts} failed (${outcome.error}); next in ${wait} ms`);
      }
      this.wakeAt(at);
    } else if (outcome.kind === "failed") {
      done = kv.atomic().check(lease).delete(leaseKey)
        .set([JOB_FAILED, job.id], { ...rest, lastError: outcome.error, failedAt: this.o.now() });
      this.o.log(`${what} given up: ${outcome.error}`);
    }
    if (!(await done.commit()).ok) this.o.log(`${what}: its lease was taken over meanwhile`);
    return true;
  }
}
