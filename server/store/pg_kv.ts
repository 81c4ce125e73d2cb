/**
 * The part of the Deno.Kv interface QCard uses, on PostgreSQL: one table of
 * (key bytes, value bytes, versionstamp, expiry), keys in Deno KV's order-preserving encoding
 * (pg_keys.ts) so a bytea range is a Deno KV range. Every write is one SERIALIZABLE
 * transaction retried on serialization failure: checks (absent keys too — SSI locks the
 * index range it read), sums and sets are all-or-nothing, and of concurrent checked writes on
 * one key exactly one wins, as on Deno KV. The domain code runs unchanged on either store.
 */
import postgres from "postgres";
import { base64url, decodeKey, encodeKey, fromBase64url, hex, withByte } from "./pg_keys.ts";
import { migrate, TABLE } from "./pg_schema.ts";
import {
  encodeValue,
  entry,
  list,
  NOT_EXPIRED,
  PgAtomic,
  type PgTxn,
  quiet,
  type Row,
} from "./pg_atomic.ts";
import { Outage, reachFailure, type StoreState } from "./pg_outage.ts";
import { copyBlobBatch } from "./pg_blob_copy.ts";
import { StoreUnavailableError } from "./unavailable.ts";
import type { BlobBatch, BlobBatchWriter } from "./blobs.ts";
import type { LogFields } from "../log.ts";

/** SQLSTATEs after which the whole transaction is simply tried again. */
const RETRY = new Set(["40001", "40P01", "23505"]);
/**
 * Tries of a transaction at most, and for how long: a write still failing to serialise is
 * answered 503 (try again later) instead of holding a connection while others queue for it.
 */
const MAX_TRIES = 12;
const RETRY_MS = 5_000;
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
  try {
    await migrate(sql);
  } catch (e) {
    await sql.end({ timeout: 1 });
    throw e;
  }
  return new PgKv(sql, opts) as unknown as Deno.Kv;
}

export class PgKv implements BlobBatchWriter {
  #lastSweep = Date.now();
  #outage: Outage;
  readonly stats: PgKvStats = { tries: 0, retries: 0, gaveUp: 0, blobBatches: 0 };

  constructor(readonly sql: postgres.Sql, opts: PgKvOptions = {}) {
    this.#outage = new Outage(() => this.sql`SELECT 1`.execute(), opts.log);
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

  get<T = unknown>(key: Deno.KvKey): Promise<Deno.KvEntryMaybe<T>> {
    return this.#run(async () => {
      const rows = await this.sql<Row[]>`SELECT v, enc, vs FROM ${this.sql(TABLE)}
        WHERE k = ${encodeKey(key)} AND ${this.sql.unsafe(NOT_EXPIRED)}`;
      return rows[0] ? entry<T>(key, rows[0]) : { key, value: null, versionstamp: null };
    }, true);
  }

  async getMany<T extends readonly unknown[]>(
    keys: readonly [...{ [K in keyof T]: Deno.KvKey }],
  ): Promise<{ [K in keyof T]: Deno.KvEntryMaybe<T[K]> }> {
    const hexes = keys.map((k) => hex(encodeKey(k)));
    const rows = hexes.length === 0 ? [] : await this.#run(() =>
      this.sql<(Row & { h: string })[]>`
      SELECT encode(k, 'hex') AS h, v, enc, vs FROM ${this.sql(TABLE)}
      WHERE k IN (SELECT decode(x, 'hex') FROM unnest(string_to_array(${
        list(hexes)
      }, ',')::text[]) AS x)
        AND ${this.sql.unsafe(NOT_EXPIRED)}`.execute(), true);
    const by = new Map(rows.map((r) => [r.h, r]));
    return keys.map((key, i) => {
      const r = by.get(hexes[i]);
      return r ? entry(key, r) : { key, value: null, versionstamp: null };
    }) as { [K in keyof T]: Deno.KvEntryMaybe<T[K]> };
  }

  list<T = unknown>(selector: Deno.KvListSelector, options: Deno.KvListOptions = {}) {
    return new PgListIterator<T>(this, selector, options);
  }

  /** One page of a range, for the iterator. */
  page(start: Uint8Array, end: Uint8Array, reverse: boolean, n: number): Promise<Row[]> {
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

  async set(key: Deno.KvKey, value: unknown, options: { expireIn?: number } = {}) {
    const r = await this.atomic().set(key, value, options).commit();
    return r as Deno.KvCommitResult;
  }

  async delete(key: Deno.KvKey): Promise<void> {
    await this.atomic().delete(key).commit();
  }

  atomic(): PgAtomic {
    return new PgAtomic(this);
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
        // The transaction ends before the connection goes back to the pool.
        await (end ?? sql.unsafe("ROLLBACK").execute()).catch(() => {});
      } finally {
        sql.release();
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
      const marker = encodeValue(batch.marker.value);
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
  close(timeoutS = 5): Promise<void> {
    this.#outage.close();
    return this.sql.end({ timeout: timeoutS });
  }

  [Symbol.dispose]() {
    void this.close();
  }

  enqueue(): never {
    throw new TypeError("Queues are not supported by the PostgreSQL store");
  }

  listenQueue(): never {
    throw new TypeError("Queues are not supported by the PostgreSQL store");
  }

  watch(): never {
    throw new TypeError("watch() is not supported by the PostgreSQL store");
  }
}

/** Deno.KvListIterator over pages of the range, `batchSize` rows a query. */
export class PgListIterator<T> implements AsyncIterableIterator<Deno.KvEntry<T>> {
  #start: Uint8Array;
  #end: Uint8Array;
  #base: Uint8Array;
  #buf: Row[] = [];
  #done = false;
  #count = 0;
  #last: Uint8Array | undefined;
  #limit: number;
  #batch: number;
  #reverse: boolean;

  constructor(private kv: PgKv, sel: Deno.KvListSelector, opts: Deno.KvListOptions) {
    const s = sel as { prefix?: Deno.KvKey; start?: Deno.KvKey; end?: Deno.KvKey };
    const prefix = s.prefix ? encodeKey(s.prefix) : undefined;
    this.#start = s.start ? encodeKey(s.start) : withByte(prefix ?? new Uint8Array(), 0x00);
    this.#end = s.end ? encodeKey(s.end) : withByte(prefix ?? new Uint8Array(), 0xff);
    // The cursor is the last key after the selector's common part, as on Deno KV.
    this.#base = prefix ?? commonPrefix(this.#start, this.#end);
    this.#reverse = !!opts.reverse;
    this.#limit = opts.limit ?? Infinity;
    this.#batch = Math.max(1, Math.min(opts.batchSize ?? 100, 1000));
    if (opts.cursor) {
      const at = concat(this.#base, fromBase64url(opts.cursor));
      if (this.#reverse) this.#end = at;
      else this.#start = withByte(at, 0x00);
    }
  }

  get cursor(): string {
    if (!this.#last) return "";
    return base64url(this.#last.subarray(this.#base.length));
  }

  async next(): Promise<IteratorResult<Deno.KvEntry<T>, undefined>> {
    if (this.#count >= this.#limit) return { done: true, value: undefined };
    if (this.#buf.length === 0 && !this.#done) {
      const n = Math.min(this.#batch, this.#limit - this.#count);
      this.#buf = await this.kv.page(this.#start, this.#end, this.#reverse, n);
      if (this.#buf.length < n) this.#done = true;
      const lastRow = this.#buf.at(-1);
      if (lastRow) {
        const k = new Uint8Array(lastRow.k);
        if (this.#reverse) this.#end = k;
        else this.#start = withByte(k, 0x00);
      }
    }
    const r = this.#buf.shift();
    if (!r) {
      // The range is exhausted: nothing to resume, and Deno KV's cursor is then empty.
      this.#last = undefined;
      return { done: true, value: undefined };
    }
    this.#count++;
    this.#last = new Uint8Array(r.k);
    return { done: false, value: entry<T>(decodeKey(this.#last), r) };
  }

  [Symbol.asyncIterator]() {
    return this;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function commonPrefix(a: Uint8Array, b: Uint8Array): Uint8Array {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return a.slice(0, i);
}
