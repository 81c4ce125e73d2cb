/**
 * Leases in KV (scale out on one store, docs/stores.md): a named duty — the blob sweep, the message
 * sweep, the overdue-receipt check, the first-start seeding — that several processes on one
 * store would otherwise all carry out. The holder is decided by a checked atomic write of
 * ["lease", name], never by anything in one process's memory: whoever commits against the
 * entry it read owns the lease until `until`; the others see a live lease and skip.
 *
 * A holder renews its lease at each run (and every ttl/3 while a run lasts), so the duty
 * stays with one process while it lives; a process that stops releases its leases
 * (releaseHeld), and one that dies loses them when `until` passes: another process takes
 * over at its next tick. The jobs themselves stay safe to run twice (their writes are
 * checked): the lease saves the work of N processes doing it N times, it is not what keeps
 * them correct.
 */

/** What ["lease", name] holds. */
export interface LeaseRecord {
  /** The holding process (PROCESS_ID of that process). */
  holder: string;
  /** When this holder took the lease (epoch ms). */
  since: number;
  /** The lease is the holder's until then (epoch ms); anyone may take it after. */
  until: number;
  /** Runs this holder started since it took the lease (a figure for operators and tests). */
  runs: number;
}

/**
 * This process's holder id: its pid (to find it in a process list) and a random part (pids
 * repeat across machines and restarts). Every lease this process takes carries it.
 */
export const PROCESS_ID = `${pid()}-${crypto.randomUUID().slice(0, 8)}`;

function pid(): number | string {
  try {
    return Deno.pid;
  } catch {
    return "x";
  }
}

export const leaseKey = (name: string): Deno.KvKey => ["lease", name];

/**
 * The lease length for a duty run every `periodMs`: two periods and a margin, so the holder
 * renews it well before it ends, and a dead holder's duty moves within ~2 periods.
 */
export function leaseTtl(periodMs: number): number {
  return 2 * periodMs + 5_000;
}

export interface LeaseOptions {
  ttlMs: number;
  holder?: string;
  now?: () => number;
}

/** Reads the lease (null when nobody holds it, or its holder's time is up). */
export async function currentLease(
  kv: Deno.Kv,
  name: string,
  now = Date.now(),
): Promise<LeaseRecord | null> {
  const v = (await kv.get<LeaseRecord>(leaseKey(name))).value;
  return v && v.until > now ? v : null;
}

/**
 * Takes the lease, or renews it when it is already ours: true when we hold it now. One
 * checked write against the entry just read: of N processes trying at once, one wins.
 */
export async function acquire(kv: Deno.Kv, name: string, o: LeaseOptions): Promise<boolean> {
  const holder = o.holder ?? PROCESS_ID;
  const key = leaseKey(name);
  // A lost write is re-read: it may have lost to our own renewal, or to another process.
  for (let i = 0; i < 3; i++) {
    const cur = await kv.get<LeaseRecord>(key);
    const now = (o.now ?? Date.now)();
    const v = cur.value;
    const ours = v?.holder === holder && v.until > now;
    if (v && v.until > now && !ours) return false;
    const next: LeaseRecord = ours
      ? { ...v!, until: now + o.ttlMs, runs: v!.runs + 1 }
      : { holder, since: now, until: now + o.ttlMs, runs: 1 };
    // expireIn only tidies the key away later: `until` is what decides.
    const op = kv.atomic().check(cur).set(key, next, { expireIn: o.ttlMs + 60_000 });
    if ((await op.commit()).ok) return true;
  }
  return false;
}

/** Extends our lease without counting a run; false when it is not ours (any more). */
export async function renew(kv: Deno.Kv, name: string, o: LeaseOptions): Promise<boolean> {
  const holder = o.holder ?? PROCESS_ID;
  const key = leaseKey(name);
  const cur = await kv.get<LeaseRecord>(key);
  const now = (o.now ?? Date.now)();
  if (cur.value?.holder !== holder || cur.value.until <= now) return false;
  const next = { ...cur.value, until: now + o.ttlMs };
  return (await kv.atomic().check(cur).set(key, next, { expireIn: o.ttlMs + 60_000 }).commit())
    .ok;
}

/** Gives the lease up if it is ours (checked: a lease someone else took is left alone). */
export async function release(kv: Deno.Kv, name: string, holder = PROCESS_ID): Promise<void> {
  const cur = await kv.get<LeaseRecord>(leaseKey(name));
  if (cur.value?.holder !== holder) return;
  await kv.atomic().check(cur).delete(cur.key).commit();
}

/** Releases every lease this process holds on `kv` (a graceful stop hands its duties on). */
export async function releaseHeld(kv: Deno.Kv, holder = PROCESS_ID): Promise<number> {
  let n = 0;
  for await (const e of kv.list<LeaseRecord>({ prefix: ["lease"] })) {
    if (e.value.holder !== holder) continue;
    if ((await kv.atomic().check(e).delete(e.key).commit()).ok) n++;
  }
  return n;
}

/**
 * Runs `job` if this process holds (or can take) the lease `name`, renewing it every ttl/3
 * while the job lasts; `{ ran: false }` when another process holds it. For periodic loops:
 * call it at every tick instead of the job.
 */
export async function runLeased<T>(
  kv: Deno.Kv,
  name: string,
  ttlMs: number,
  job: () => Promise<T>,
  o: Omit<LeaseOptions, "ttlMs"> = {},
): Promise<{ ran: true; value: T } | { ran: false }> {
  const opts = { ...o, ttlMs };
  if (!(await acquire(kv, name, opts))) return { ran: false };
  const beat = setInterval(() => {
    renew(kv, name, opts).catch(() => {}); // a lost renewal: the next tick tries again
  }, Math.max(50, Math.floor(ttlMs / 3)));
  try {
    return { ran: true, value: await job() };
  } finally {
    clearInterval(beat);
  }
}

/**
 * For a duty that Deno.cron ticks every minute but whose own period is longer (the blob
 * sweep, the overdue check): true when its last cron run started `periodMs` ago or more, and
 * this caller claimed the run (one checked write: of N isolates ticking at once, one wins).
 */
export async function claimPeriod(
  kv: Deno.Kv,
  name: string,
  periodMs: number,
  now = Date.now(),
): Promise<boolean> {
  const key = ["periodic", name];
  const cur = await kv.get<number>(key);
  if (cur.value !== null && now - cur.value < periodMs) return false;
  const op = kv.atomic().check(cur).set(key, now, { expireIn: 2 * periodMs + 60_000 });
  return (await op.commit()).ok;
}
