import { isPostgresUrl } from "../config.ts";

/**
 * Opens the store: a Deno KV file by default, `:memory:` in tests, the managed KV on Deno
 * Deploy (no path), or PostgreSQL for a postgres:// URL (on Deploy too, where an assigned
 * Postgres database replaces KV) through the Deno.Kv-compatible pg_kv.ts. Repositories take
 * the `Deno.Kv` and own their key prefixes.
 */
export async function openKv(
  path: string,
  onDeploy: boolean,
  opts: { poolSize?: number } = {},
): Promise<Deno.Kv> {
  if (isPostgresUrl(path)) {
    // Loaded only here: a KV deployment never loads the PostgreSQL client.
    const { openPgKv } = await import("./pg_kv.ts");
    return await openPgKv(path, opts);
  }
  if (onDeploy) return await Deno.openKv();
  // `:memory:`, or KV Connect to a managed store (`deno task import` into Deploy's KV).
  if (path === ":memory:" || /^https?:\/\//.test(path)) return await Deno.openKv(path);
  const dir = path.replace(/[/\\][^/\\]*$/, "");
  if (dir && dir !== path) await Deno.mkdir(dir, { recursive: true });
  // Opening sets the file up (schema, journal mode): a process starting beside another one
  // on the same file can meet its lock there too, and waits as every later call does.
  return waitWhileLocked(await retryLocked(() => Deno.openKv(path)));
}

/** What SQLite says when another process holds the file's write lock. */
const LOCKED = /database is locked|database is busy|SQLITE_BUSY/i;
/** How long one operation waits for the lock before its error is let through. */
export const LOCK_WAIT_MS = 10_000;

/**
 * Scale-out (docs/stores.md), several processes on one KV file: SQLite lets one process write at a
 * time and Deno KV sets no busy timeout, so a write (or, rarely, a read) that meets another
 * process's lock fails at once with "database is locked" — nothing was written. This retries such
 * calls on this handle (atomic commits, get, getMany, set, delete) with a short growing random
 * pause, for LOCK_WAIT_MS at most; every other error passes unchanged. A checked commit retried
 * this way is still checked: it fails if its entries changed meanwhile.
 */
export function waitWhileLocked(kv: Deno.Kv): Deno.Kv {
  const k = kv as unknown as Record<string, unknown>;
  for (const name of ["get", "getMany", "set", "delete"] as const) {
    const f = (kv[name] as (...a: unknown[]) => Promise<unknown>).bind(kv);
    k[name] = (...a: unknown[]) => retryLocked(() => f(...a));
  }
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const commit = op.commit.bind(op);
    op.commit = () => retryLocked(commit);
    return op;
  };
  return kv;
}

async function retryLocked<T>(f: () => Promise<T>): Promise<T> {
  const until = Date.now() + LOCK_WAIT_MS;
  for (let i = 0;; i++) {
    try {
      return await f();
    } catch (err) {
      if (!LOCKED.test(String(err)) || Date.now() >= until) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 + 2 * i)));
    }
  }
}

/**
 * Writes one mutation per item (`add` returns false to skip one) in atomic operations of `per`
 * (Deno KV takes at most 1000 mutations in one): for sweeps and indexes over many records,
 * where each write stands alone. Answers how many items were written.
 */
export async function writeInBatches<T>(
  kv: Deno.Kv,
  items: AsyncIterable<T> | Iterable<T>,
  add: (op: Deno.AtomicOperation, item: T) => boolean | void,
  per = 500,
): Promise<number> {
  let op = kv.atomic();
  let n = 0, inOp = 0;
  for await (const item of items) {
    if (add(op, item) === false) continue;
    n++;
    if (++inOp === per) {
      await op.commit();
      op = kv.atomic();
      inOp = 0;
    }
  }
  if (inOp) await op.commit();
  return n;
}

/** Reads every value under a prefix (lookups, a user's devices or requests). */
export async function listValues<T>(kv: Deno.Kv, prefix: Deno.KvKey): Promise<T[]> {
  const out: T[] = [];
  // Large batches: a user's 2,000 requests come in two round trips instead of twenty.
  for await (const e of kv.list<T>({ prefix }, { batchSize: 1000 })) out.push(e.value);
  return out;
}
