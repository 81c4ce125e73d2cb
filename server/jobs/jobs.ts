/**
 * The jobs wing (docs/jobs.md): one durable job machinery for the work a change leaves to be
 * done after it — a mail or an SMS delivered, a notification fanned out to a person's devices, a
 * push sent to one device. A job is
 * written in the same atomic operation as the change that causes it (`addJob(op, …)`): both
 * commit or neither does, so a process killed right after the commit leaves the job, and any
 * process on the store runs it. One key per job, ordered by when it is due:
 *
 *   ["job_due", dueAt, id] → Job      waiting (or leased while an attempt runs: see runner.ts)
 *   ["job_failed", id] → Job          given up: listed and retried by `deno task outbox`
 *
 * No KV queue: today's Deno Deploy and KV Connect have none, and the PostgreSQL store refuses
 * queues as they do.
 */

export interface Job<D = unknown> {
  id: string;
  /** Which handler runs it (runner.ts JobKind), e.g. "push.send". */
  kind: string;
  data: D;
  createdAt: number;
  /** Attempts started (the leased copy counts the one under way). */
  attempts: number;
  lastError?: string;
  /** Not worth running after this (a push's time to live): dropped, not failed. */
  expiresAt?: number;
  /** Set on the leased copy while an attempt runs (epoch ms of its start). */
  runningSince?: number;
  /** Set when given up (["job_failed", id]). */
  failedAt?: number;
}

export const JOB_DUE = "job_due";
export const JOB_FAILED = "job_failed";

let lastIdTime = 0;

/**
 * A time-ordered unique id, for jobs and messages alike: 9 base-36 digits of milliseconds
 * (strictly increasing in this process, so two records of one burst keep their order) and 10
 * random base-36 characters. A listing sorted by id reads oldest first.
 */
export function newTimeOrderedId(): string {
  const t = Math.max(Date.now(), lastIdTime + 1);
  lastIdTime = t;
  const rnd = crypto.getRandomValues(new Uint8Array(10));
  const tail = Array.from(rnd, (b) => (b % 36).toString(36)).join("");
  return `${t.toString(36).padStart(9, "0")}${tail}`;
}

/** Runners of this process, told when an operation that added a job has committed. */
const listeners = new Set<() => void>();

/** Calls `fn` whenever an operation of this process that added a job commits. */
export function onJobAdded(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** The operations whose commit is already wrapped (one wake per operation). */
const wrapped = new WeakSet<Deno.AtomicOperation>();

/**
 * The caller commits `op`, not the jobs wing: its commit is wrapped once so that, when it
 * succeeds, the runners of this process look at once (a push leaves in milliseconds). A failed
 * commit wrote nothing and wakes nobody; a process that stops right after the commit leaves
 * the job, which the next sweep (any process) runs.
 */
function wakeAfterCommit(op: Deno.AtomicOperation): void {
  if (wrapped.has(op)) return;
  wrapped.add(op);
  const commit = op.commit.bind(op);
  op.commit = async () => {
    const r = await commit();
    if (r.ok) { for (const fn of listeners) fn(); }
    return r;
  };
}

/**
 * Adds a job to `op` and returns its id. Nothing is written until the caller commits `op`
 * (each job is one mutation: mind KV's 1000 a write). `delayMs` defers it; `expiresAt` drops it
 * unrun once passed.
 */
export function addJob<D>(
  op: Deno.AtomicOperation,
  now: number,
  kind: string,
  data: D,
  opts: { delayMs?: number; expiresAt?: number } = {},
): string {
  const id = newTimeOrderedId();
  const job: Job<D> = {
    id,
    kind,
    data,
    createdAt: now,
    attempts: 0,
    ...(opts.expiresAt !== undefined ? { expiresAt: opts.expiresAt } : {}),
  };
  op.set([JOB_DUE, now + (opts.delayMs ?? 0), id], job);
  wakeAfterCommit(op);
  return id;
}

/** A job as a listing shows it: where it stands and when it is due. */
export interface JobView extends Job {
  state: "waiting" | "running" | "failed";
  /** Due (waiting), or the end of its lease (running); the time it failed (failed). */
  at: number;
}

/** Every job, waiting and running by due time, then the failed ones (oldest first). */
export async function listJobs(kv: Deno.Kv, opts: { limit?: number } = {}): Promise<JobView[]> {
  const limit = opts.limit ?? 1000;
  const out: JobView[] = [];
  for await (const e of kv.list<Job>({ prefix: [JOB_DUE] }, { limit })) {
    const at = e.key[1] as number;
    out.push({ ...e.value, state: e.value.runningSince ? "running" : "waiting", at });
  }
  for await (const e of kv.list<Job>({ prefix: [JOB_FAILED] }, { limit })) {
    out.push({ ...e.value, state: "failed", at: e.value.failedAt ?? e.value.createdAt });
  }
  return out;
}

export class JobError extends Error {
  override name = "JobError";
}

/** Where job `id` is: its key and entry, waiting/running or failed. */
async function find(kv: Deno.Kv, id: string): Promise<Deno.KvEntry<Job> | null> {
  const failed = await kv.get<Job>([JOB_FAILED, id]);
  if (failed.value) return failed as Deno.KvEntry<Job>;
  for await (const e of kv.list<Job>({ prefix: [JOB_DUE] })) {
    if (e.value.id === id) return e;
  }
  return null;
}

/** An attempt under way whose lease has not run out (a dead runner's lease has). */
const running = (e: Deno.KvEntry<Job>, now: number) =>
  !!e.value.runningSince && e.key[0] === JOB_DUE && (e.key[1] as number) > now;

/**
 * Operator: run a failed or waiting job again now, with a fresh count of attempts. A running
 * one is refused (its attempt may yet succeed; its lease ends soon). The runners of this
 * process look at once; others at their next sweep.
 */
export async function retryJob(kv: Deno.Kv, id: string, now: number): Promise<Job> {
  for (let i = 0; i < 5; i++) {
    const e = await find(kv, id);
    if (!e) throw new JobError(`no job ${id}`);
    if (running(e, now)) throw new JobError(`job ${id} is running; try again later`);
    const job: Job = { ...e.value, attempts: 0 };
    delete job.failedAt;
    delete job.runningSince;
    const op = kv.atomic().check(e).delete(e.key).set([JOB_DUE, now, id], job);
    wakeAfterCommit(op);
    if ((await op.commit()).ok) return job;
  }
  throw new JobError(`job ${id} kept changing, try again`);
}

/** Operator: give up on a failed or waiting job; it is deleted. */
export async function discardJob(kv: Deno.Kv, id: string, now: number): Promise<Job> {
  for (let i = 0; i < 5; i++) {
    const e = await find(kv, id);
    if (!e) throw new JobError(`no job ${id}`);
    if (running(e, now)) throw new JobError(`job ${id} is running; try again later`);
    if ((await kv.atomic().check(e).delete(e.key).commit()).ok) return e.value;
  }
  throw new JobError(`job ${id} kept changing, try again`);
}
