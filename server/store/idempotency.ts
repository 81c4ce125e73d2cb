import { AsyncLocalStorage } from "node:async_hooks";

/**
 * The idempotency key's part in the write itself (the offline queue's replays, engineering.md §5:
 * every replayable write idempotent). The middleware (server/middleware/idempotency.ts) holds the
 * key with a lease while the handler runs and stores the answer afterwards; a crash between the
 * write and that answer would otherwise leave only the lease, and a repeat after it expired would
 * write again (a second comment, a second receipt).
 *
 * So a write that must not happen twice commits through `commitOnce`: when it runs under an
 * idempotency key, the same atomic operation checks that the key is still this request's
 * (a first request that outlived its lease cannot write after a repeat took over) and marks
 * it `committed`. A repeat that finds `committed` without an answer knows the write was
 * done and says so (409 `idempotency_replay_unavailable`), instead of doing it again.
 */

/** The key's record while its request runs, once it wrote, and once it was answered. */
export type IdemRecord =
  | { state: "pending"; fp: string; until: number }
  /** `until`: the lease's end; a repeat before it waits for the answer, after it is told. */
  | { state: "committed"; fp: string; until: number; expiresAt: number }
  | {
    state: "done";
    fp: string;
    status: number;
    headers: [string, string][];
    /** The answer's text; null when it was too large to keep. */
    body: string | null;
    expiresAt: number;
  };

/** The key a request runs under, as the middleware took it. */
export interface HeldKey {
  key: Deno.KvKey;
  fp: string;
  /** The record's current version: the lease, then each committed write's. */
  versionstamp: string;
  /** The lease's end. */
  until: number;
  /** How long a committed mark is kept (as long as an answer). */
  ttlMs: number;
  now: () => number;
  /** A write went through commitOnce. */
  committed: boolean;
  /** Cleared when the handler has returned: later writes are not this request's. */
  open: boolean;
}

const held = new AsyncLocalStorage<HeldKey>();

/** Runs the handler with `h` as the request's key (the middleware). */
export function underKey<T>(h: HeldKey, fn: () => Promise<T>): Promise<T> {
  return held.run(h, fn);
}

/**
 * Commits `op`, a write that must happen once: under an idempotency key, checked against the
 * key's record and marking it committed, in the same operation. A request whose lease was
 * taken over fails the check as a lost race does (the caller re-reads and, failing again,
 * answers its conflict). Without a key, a plain commit.
 */
export async function commitOnce(
  op: Deno.AtomicOperation,
): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
  const h = held.getStore();
  if (!h || !h.open) return await op.commit();
  const r = await markCommitted(op, h).commit();
  if (r.ok) {
    h.versionstamp = r.versionstamp;
    h.committed = true;
  }
  return r;
}

/**
 * Adds to `op`: the key checked at the version `h` last saw, and marked committed with its
 * lease ending at `until` (the request's lease, or now once the request has ended).
 */
export function markCommitted(
  op: Deno.AtomicOperation,
  h: HeldKey,
  until = h.until,
): Deno.AtomicOperation {
  const mark: IdemRecord = { state: "committed", fp: h.fp, until, expiresAt: h.now() + h.ttlMs };
  return op.check({ key: h.key, versionstamp: h.versionstamp })
    .set(h.key, mark, { expireIn: h.ttlMs });
}
