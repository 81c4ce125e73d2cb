/**
 * The PostgreSQL store: a Deno.Kv (kv_front.ts: Deno KV's own JavaScript layer and checks, so
 * it answers and refuses as Deno KV does; tests/kv_suite runs Deno's own KV tests on it) over
 * one table of (key bytes, value bytes, versionstamp, expiry), keys in Deno KV's
 * order-preserving encoding (pg_keys.ts) so a bytea range is a Deno KV range. Every write is
 * one SERIALIZABLE transaction retried on serialization failure: checks (absent keys too — SSI
 * locks the index range it read), sums and sets are all-or-nothing, and of concurrent checked
 * writes on one key exactly one wins, as on Deno KV. watch() is LISTEN/NOTIFY: each commit
 * names the keys it wrote (pg_notify, delivered at commit) on the schema's channel, and a
 * watcher re-reads its keys when one of them is named. The domain code runs unchanged on
 * either store.
 */
import { fnv1a } from "./fnv.ts";
import postgres from "postgres";
import { encodeKey, hex } from "./pg_keys.ts";
import { migrate, TABLE } from "./pg_schema.ts";
import {
  list,
  NOT_EXPIRED,
  type PgTxn,
  quiet,
  rawOf,
  type Row,
  stamp,
  storedOf,
  writeAtomic,
} from "./pg_atomic.ts";
import { Outage, reachFailure, type StoreState } from "./pg_outage.ts";
import { copyBlobBatch } from "./pg_blob_copy.ts";
import { StoreUnavailableError } from "./unavailable.ts";
import type { BlobBatch, BlobBatchWriter } from "./blobs.ts";
import type { LogFields } from "../log.ts";
import { FrontKv } from "./kv_front.ts";
import type { BackendEntry, KvBackend, ReadRange, WriteCheck, WriteMutation } from "./kv_ops.ts";
import { serializeValue } from "./kv_values.ts";

/** SQLSTATEs after which the whole transaction is simply tried again. */
const RETRY = new Set(["40001", "40P01", "23505"]);
/**
 * Tries of a transaction at most, and for how long: a write still failing to serialise is
 * answered 503 (try again later) instead of retrying forever. Writes are small here (blob
 * chunks go outside these transactions), so a retry is cheap: 50 concurrent creates by one
 * user need up to a few dozen tries each (12 tries / 5 s answered a third of them 503).
 */
const MAX_TRIES = 60;
const RETRY_MS = 15_000;
/**
 * Seconds to establish a connection (postgres.js waits 30 by default): past it the database
 * counts as unreachable (pg_outage.ts) and calls fail at once until it answers again.
 */
const CONNECT_TIMEOUT_S = 2;
/** Expired rows are invisible at once and deleted at most this often (by any write). */
const SWEEP_MS = 60_000;

export interface PgKvOptions {
  /** Connections at most (PG_POOL_SIZE). */
  poolSize?: number;
  /** Where "store unreachable" and "reachable again" are told (JSON log lines by default). */
  log?: (level: "warn" | "info", msg: string, fields?: LogFields) => void;
}

/** What the store counts of its transactions (tests and benchmarks read it). */
export interface PgKvStats {
  /** Serialisable transactions begun, retries included. */
  tries: number;
  /** Tries after a serialisation failure, deadlock or key race. */
  retries: number;
  /** Transactions given up after MAX_TRIES or RETRY_MS (answered 503). */
  gaveUp: number;
  /** Blob batches written without a serialisable transaction (blobs.ts BlobBatchWriter). */
  blobBatches: number;
}

/** Opens the pool, creates or migrates the schema, and returns the store as a Deno.Kv. */
export async function openPgKv(url: string, opts: PgKvOptions = {}): Promise<Deno.Kv> {
  // TLS follows the URL's sslmode (postgres.js: require = encrypted, verify-full = checked).
  const sql = postgres(url, {
    max: opts.poolSize ?? 10,
    onnotice: () => {},
    fetch_types: false,
    idle_timeout: 60,
    connect_timeout: CONNECT_TIMEOUT_S,
    // No growing pause between connection attempts (postgres.js waits up to 20 s): while the
    // database is away pg_outage.ts answers for it, and once it is back calls go through.
    backoff: () => 0,
    connection: { application_name: "qcard" },
  });
  let schema: string;
  try {
    schema = await migrate(sql);
  } catch (e) {
    await sql.end({ timeout: 1 });
    throw e;
  }
  return new PgStore(new PgKv(sql, schema, opts)) as unknown as Deno.Kv;
}

/** How a commit names a key to watchers: the FNV-1a of its bytes. */
const keyTag = fnv1a;
/** NOTIFY payloads stay under PostgreSQL's 8,000 bytes; more keys say "*" (re-read all). */
const MAX_NOTE = 7_900;

/**
 * The store as the app sees it: a Deno.Kv (FrontKv) that also writes blob batches itself
 * (blobs.ts) and tells /healthz whether the database is reachable. Inspecting it prints what
 * Deno KV prints (`Kv {}`): the connection's options, password included, never reach a log.
 */
export class PgStore extends FrontKv implements BlobBatchWriter {
  readonly #pg: PgKv;
  constructor(pg: PgKv) {
    super(pg);
    this.#pg = pg;
  }
  writeBlobBatch(batch: BlobBatch): Promise<string | null> {
    return this.#pg.writeBlobBatch(batch);
  }
  /** Reachable, or down since when and why (/healthz). */
  get state(): StoreState {
    return this.#pg.state;
  }
  get stats(): PgKvStats {
    return this.#pg.stats;
  }
  /** The pool (tests look at its connections). */
  get sql(): postgres.Sql {
    return this.#pg.sql;
  }
}

export class PgKv implements KvBackend {
  #lastSweep = Date.now();
  #outage: Outage;
  #channel: string;
  /** Every watcher (a reconnection wakes them all), and the watchers of each key's tag. */
  #watchers = new Set<() => void>();
  #byTag = new Map<string, Set<() => void>>();
  #listening: Promise<{ unlisten(): Promise<void> }> | null = null;
  readonly stats: PgKvStats = { tries: 0, retries: 0, gaveUp: 0, blobBatches: 0 };

  constructor(readonly sql: postgres.Sql, schema: string, opts: PgKvOptions = {}) {
    this.#outage = new Outage(() => this.sql`SELECT 1`.execute(), opts.log);
    // One channel a schema (tests share a database, one schema each).
    this.#channel = `qcard_kv_${keyTag(new TextEncoder().encode(schema))}`;
  }

  /** Reachable, or down since when and why (/healthz). */
  get state(): StoreState {
    return this.#outage.state;
  }

  /**
   * Runs a call: at once StoreUnavailableError while the database is known to be away. A read
   * (`retry`) whose connection was lost under it goes once more, on a new connection.
   */
  async #run<T>(f: () => Promise<T>, retry = false): Promise<T> {
    this.#outage.check();
    try {
      return await f();
    } catch (err) {
      const lost = reachFailure(err);
      if (!retry || !lost || lost.down) throw this.#outage.failed(err);
    }
    return await this.#run(f);
  }

  /**
   * Ranges read together: exact keys (a get or getMany) in one statement, a list's page with
   * its own; each row's value as Deno KV's raw value.
   */
  async read(ranges: ReadRange[]): Promise<BackendEntry[][]> {
    const point = (r: ReadRange) =>
      r.end.length === r.start.length + 1 && r.end[r.end.length - 1] === 0 &&
      r.start.every((b, i) => r.end[i] === b);
    if (ranges.length === 1 && point(ranges[0])) {
      // A get: the plain key lookup.
      const rows = await this.#run(
        () =>
          this.sql<Row[]>`SELECT k, v, enc, vs FROM ${this.sql(TABLE)}
          WHERE k = ${ranges[0].start} AND ${this.sql.unsafe(NOT_EXPIRED)}`.execute(),
        true,
      );
      return [rows.map((r) => this.#entry(r))];
    }
    const exact = ranges.filter(point).map((r) => hex(r.start));
    const rows = exact.length === 0 ? [] : await this.#run(() =>
      this.sql<(Row & { h: string })[]>`
      SELECT encode(k, 'hex') AS h, k, v, enc, vs FROM ${this.sql(TABLE)}
      WHERE k IN (SELECT decode(x, 'hex') FROM unnest(string_to_array(${
        list(exact)
      }, ',')::text[]) AS x)
        AND ${this.sql.unsafe(NOT_EXPIRED)}`.execute(), true);
    const by = new Map(rows.map((r) => [r.h, r]));
    const out: BackendEntry[][] = [];
    for (const r of ranges) {
      if (point(r)) {
        const row = by.get(hex(r.start));
        out.push(row ? [this.#entry(row)] : []);
      } else {
        out.push((await this.#page(r.start, r.end, r.reverse, r.limit)).map((x) => this.#entry(x)));
      }
    }
    return out;
  }

  #entry(r: Row): BackendEntry {
    return { k: new Uint8Array(r.k), value: rawOf(r), versionstamp: stamp(r.vs) };
  }

  #page(start: Uint8Array, end: Uint8Array, reverse: boolean, n: number): Promise<Row[]> {
    const t = this.sql(TABLE);
    return this.#run(async () =>
      reverse
        ? await this.sql<Row[]>`SELECT k, v, enc, vs FROM ${t}
          WHERE k >= ${start} AND k < ${end} AND ${this.sql.unsafe(NOT_EXPIRED)}
          ORDER BY k DESC LIMIT ${n}`
        : await this.sql<Row[]>`SELECT k, v, enc, vs FROM ${t}
          WHERE k >= ${start} AND k < ${end} AND ${this.sql.unsafe(NOT_EXPIRED)}
          ORDER BY k LIMIT ${n}`, true);
  }

  /** One checked write (pg_atomic.ts), its keys named to watchers at commit. */
  async write(checks: WriteCheck[], mutations: WriteMutation[]): Promise<string | null> {
    const vs = await writeAtomic(this, checks, mutations, (keys) => {
      if (keys.length === 0) return null;
      const tags = keys.map(keyTag).join(",");
      return [this.#channel, tags.length > MAX_NOTE ? "*" : tags];
    });
    if (vs !== null) await this.sweep();
    return vs;
  }

  /**
   * Yields at once, then whenever a commit names one of `keys` (or after the listening
   * connection was re-established: a note may have been missed), until `signal` aborts.
   */
  async *changes(keys: Uint8Array[], signal: AbortSignal): AsyncGenerator<void> {
    const tags = new Set(keys.map(keyTag));
    let pending = true;
    let wake: (() => void) | null = null;
    const hear = () => {
      pending = true;
      wake?.();
    };
    const stop = () => wake?.();
    // Filed by tag: a commit's note wakes the watchers of its keys, whatever the number of
    // other open watchers (a server with thousands of open change streams).
    this.#watchers.add(hear);
    for (const t of tags) {
      const set = this.#byTag.get(t) ?? new Set();
      this.#byTag.set(t, set.add(hear));
    }
    signal.addEventListener("abort", stop);
    try {
      await this.#listen();
      while (!signal.aborted) {
        if (!pending) await new Promise<void>((ok) => (wake = ok));
        wake = null;
        if (signal.aborted) return;
        pending = false;
        yield;
      }
    } finally {
      this.#watchers.delete(hear);
      for (const t of tags) {
        const set = this.#byTag.get(t);
        if (set?.delete(hear) && set.size === 0) this.#byTag.delete(t);
      }
      signal.removeEventListener("abort", stop);
    }
  }

  /** One LISTEN a store, shared by its watchers; a (re)connection wakes them all. */
  #listen(): Promise<unknown> {
    this.#listening ??= this.sql.listen(
      this.#channel,
      (note) => {
        if (note === "*") return this.#watchers.forEach((w) => w());
        const woken = new Set<() => void>();
        for (const t of note.split(",")) for (const w of this.#byTag.get(t) ?? []) woken.add(w);
        woken.forEach((w) => w());
      },
      () => this.#watchers.forEach((w) => w()),
    );
    return this.#listening;
  }

  /**
   * Runs `fn` in a SERIALIZABLE transaction on one reserved connection, again after a
   * serialisation failure. postgres.js pipelines a connection's queries, so nothing here waits
   * for a round trip of its own: BEGIN travels with `fn`'s first statements (which must await
   * `tx.begun` before any write), and `tx.commit()` sends COMMIT behind the last write. A checked
   * write thus costs two round trips (read, write + commit), not four. Ended without
   * `tx.commit()` (a failed check, an error), the transaction is rolled back.
   */
  transaction<R>(fn: (tx: PgTxn) => Promise<R>): Promise<R> {
    return this.#run(() => this.#transaction(fn));
  }

  async #transaction<R>(fn: (tx: PgTxn) => Promise<R>): Promise<R> {
    const until = Date.now() + RETRY_MS;
    for (let i = 0;; i++) {
      if (i > 0) this.stats.retries++;
      this.stats.tries++;
      const sql = await this.sql.reserve();
      let end: Promise<unknown> | null = null;
      let failure: unknown;
      let lost = false;
      try {
        const begun = quiet(sql.unsafe("BEGIN ISOLATION LEVEL SERIALIZABLE").execute());
        const tx: PgTxn = {
          sql,
          begun,
          commit: () => (end ??= quiet(sql.unsafe("COMMIT").execute())),
        };
        const result = await fn(tx);
        await begun;
        // COMMIT in a transaction a statement failed answers ROLLBACK: the error is the statement's.
        await (end ?? sql.unsafe("ROLLBACK").execute());
        return result;
      } catch (e) {
        failure = e;
        // A lost connection is not used again: postgres.js has taken it back among its closed
        // ones, and a ROLLBACK or a release on it would write to a socket that is gone (an
        // uncaught TypeError that ends the process; pg_blob_copy.ts).
        lost = reachFailure(e) !== null;
        // The transaction ends before the connection goes back to the pool.
        if (!lost) await (end ?? sql.unsafe("ROLLBACK").execute()).catch(() => {});
      } finally {
        if (!lost) sql.release();
      }
      const code = (failure as { code?: string } | undefined)?.code ?? "";
      if (!RETRY.has(code)) throw failure;
      if (i + 1 >= MAX_TRIES || Date.now() > until) {
        this.stats.gaveUp++;
        throw new StoreUnavailableError("too many conflicting writes", 1, { cause: failure });
      }
      await new Promise((ok) => setTimeout(ok, Math.random() * Math.min(100, 2 + 2 ** i)));
    }
  }

  /** A pending blob's batch (blobs.ts): its marker moved on and its chunks COPYed in. */
  writeBlobBatch(batch: BlobBatch): Promise<string | null> {
    return this.#run(() => {
      this.stats.blobBatches++;
      const marker = storedOf(serializeValue(batch.marker.value));
      return copyBlobBatch(this.sql, {
        marker: {
          key: encodeKey(batch.marker.key),
          ...marker,
          versionstamp: batch.marker.versionstamp,
        },
        chunks: batch.chunks.map(([k, v]) => [encodeKey(k), v]),
      });
    });
  }

  /** Deletes expired rows now and then (reads already skip them). */
  async sweep(force = false): Promise<void> {
    if (!force && Date.now() - this.#lastSweep < SWEEP_MS) return;
    if (!this.state.up) return;
    this.#lastSweep = Date.now();
    await this.sql`DELETE FROM ${this.sql(TABLE)}
      WHERE expires_at IS NOT NULL AND expires_at <= qcard_now_ms()`.catch(() => {});
  }

  /**
   * Ends the pool, letting calls in flight finish for `timeoutS` at most. (After a lost
   * connection postgres.js may wait out the whole bound: it keeps the failed query on it.)
   */
  async close(timeoutS = 5): Promise<void> {
    this.#outage.close();
    this.#watchers.clear();
    this.#byTag.clear();
    // The listening connection is postgres.js's own (outside the pool): it would reconnect.
    const listening = this.#listening;
    this.#listening = null;
    if (listening) await listening.then((l) => l.unlisten(), () => {});
    await this.sql.end({ timeout: timeoutS });
  }

  [Symbol.for("Deno.customInspect")](): string {
    return "PgKv {}";
  }
}
