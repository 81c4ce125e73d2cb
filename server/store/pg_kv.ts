/**
 * The part of the Deno.Kv interface QCard uses, on PostgreSQL: one table of
 * (key bytes, value bytes, versionstamp, expiry), keys in Deno KV's order-preserving encoding
 * (pg_keys.ts) so a bytea range is a Deno KV range. Every write is one SERIALIZABLE
 * transaction retried on serialization failure: checks (absent keys too — SSI locks the
 * index range it read), sums and sets are all-or-nothing, and of concurrent checked writes on
 * one key exactly one wins, as on Deno KV. The domain code runs unchanged on either store.
 */
import postgres from "postgres";
import { deserialize, serialize } from "node:v8";
import { base64url, decodeKey, encodeKey, fromBase64url, hex, withByte } from "./pg_keys.ts";
import { migrate, TABLE } from "./pg_schema.ts";

/** How a value is stored: V8 serialisation, raw bytes (a top-level Uint8Array), or a U64. */
const ENC_V8 = 1, ENC_BYTES = 2, ENC_U64 = 3;
/** SQLSTATEs after which the whole transaction is simply tried again. */
const RETRY = new Set(["40001", "40P01", "23505"]);
/** A commit still failing to serialise after this long is let through. */
const RETRY_MS = 30_000;
/** Expired rows are invisible at once and deleted at most this often (by any write). */
const SWEEP_MS = 60_000;
const U64_MOD = 1n << 64n;
const NOT_EXPIRED = `(expires_at IS NULL OR expires_at > qcard_now_ms())`;

type Row = { k: Uint8Array; v: Uint8Array; enc: number; vs: string };
type Stored = { v: Uint8Array; enc: number };
type Mutation =
  | { type: "set"; key: Deno.KvKey; value: unknown; expireIn?: number }
  | { type: "delete"; key: Deno.KvKey }
  | { type: "sum" | "min" | "max"; key: Deno.KvKey; value: Deno.KvU64 };

export interface PgKvOptions {
  /** Connections at most (PG_POOL_SIZE). */
  poolSize?: number;
}

/** Opens the pool, creates or migrates the schema, and returns the store as a Deno.Kv. */
export async function openPgKv(url: string, opts: PgKvOptions = {}): Promise<Deno.Kv> {
  // TLS follows the URL's sslmode (postgres.js: require = encrypted, verify-full = checked).
  const sql = postgres(url, {
    max: opts.poolSize ?? 10,
    onnotice: () => {},
    fetch_types: false,
    idle_timeout: 60,
    connection: { application_name: "qcard" },
  });
  try {
    await migrate(sql);
  } catch (e) {
    await sql.end({ timeout: 1 });
    throw e;
  }
  return new PgKv(sql) as unknown as Deno.Kv;
}

function encodeValue(value: unknown): Stored {
  if (value instanceof Deno.KvU64) return { v: u64Bytes(value.value), enc: ENC_U64 };
  if (value instanceof Uint8Array && value.constructor === Uint8Array) {
    return { v: value, enc: ENC_BYTES };
  }
  return { v: serialize(value), enc: ENC_V8 };
}

function decodeValue(s: Stored): unknown {
  const bytes = new Uint8Array(s.v.buffer, s.v.byteOffset, s.v.byteLength);
  if (s.enc === ENC_U64) return new Deno.KvU64(readU64(bytes));
  if (s.enc === ENC_BYTES) return Uint8Array.from(bytes);
  // A copy: node:v8 misreads typed arrays inside a view on a larger (pooled) buffer.
  return deserialize(new Uint8Array(bytes));
}

function u64Bytes(n: bigint): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, n, false);
  return b;
}

function readU64(b: Uint8Array): bigint {
  return new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0, false);
}

/** Deno KV's versionstamp: 10 bytes as 20 hex digits, increasing with each commit. */
function stamp(n: string | bigint): string {
  return BigInt(n).toString(16).padStart(16, "0") + "0000";
}

function entry<T>(key: Deno.KvKey, r: Row): Deno.KvEntry<T> {
  return { key, value: decodeValue(r) as T, versionstamp: stamp(r.vs) };
}

export class PgKv {
  #lastSweep = Date.now();
  constructor(readonly sql: postgres.Sql) {}

  async get<T = unknown>(key: Deno.KvKey): Promise<Deno.KvEntryMaybe<T>> {
    const rows = await this.sql<Row[]>`SELECT v, enc, vs FROM ${this.sql(TABLE)}
      WHERE k = ${encodeKey(key)} AND ${this.sql.unsafe(NOT_EXPIRED)}`;
    return rows[0] ? entry<T>(key, rows[0]) : { key, value: null, versionstamp: null };
  }

  async getMany<T extends readonly unknown[]>(
    keys: readonly [...{ [K in keyof T]: Deno.KvKey }],
  ): Promise<{ [K in keyof T]: Deno.KvEntryMaybe<T[K]> }> {
    const hexes = keys.map((k) => hex(encodeKey(k)));
    const rows = hexes.length === 0 ? [] : await this.sql<(Row & { h: string })[]>`
      SELECT encode(k, 'hex') AS h, v, enc, vs FROM ${this.sql(TABLE)}
      WHERE k IN (SELECT decode(x, 'hex') FROM unnest(string_to_array(${
      list(hexes)
    }, ',')::text[]) AS x)
        AND ${this.sql.unsafe(NOT_EXPIRED)}`;
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
  async page(start: Uint8Array, end: Uint8Array, reverse: boolean, n: number): Promise<Row[]> {
    const t = this.sql(TABLE);
    return reverse
      ? await this.sql<Row[]>`SELECT k, v, enc, vs FROM ${t}
          WHERE k >= ${start} AND k < ${end} AND ${this.sql.unsafe(NOT_EXPIRED)}
          ORDER BY k DESC LIMIT ${n}`
      : await this.sql<Row[]>`SELECT k, v, enc, vs FROM ${t}
          WHERE k >= ${start} AND k < ${end} AND ${this.sql.unsafe(NOT_EXPIRED)}
          ORDER BY k LIMIT ${n}`;
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

  /** Runs `fn` in a SERIALIZABLE transaction, again after a serialisation failure. */
  async serializable<R>(fn: (tx: postgres.TransactionSql) => Promise<R>): Promise<R> {
    const until = Date.now() + RETRY_MS;
    for (let i = 0;; i++) {
      try {
        return await this.sql.begin("isolation level serializable", fn) as R;
      } catch (e) {
        const code = (e as { code?: string }).code ?? "";
        if (!RETRY.has(code) || Date.now() > until) throw e;
        await new Promise((ok) => setTimeout(ok, Math.random() * Math.min(100, 2 + 2 ** i)));
      }
    }
  }

  /** Deletes expired rows now and then (reads already skip them). */
  async sweep(force = false): Promise<void> {
    if (!force && Date.now() - this.#lastSweep < SWEEP_MS) return;
    this.#lastSweep = Date.now();
    await this.sql`DELETE FROM ${this.sql(TABLE)}
      WHERE expires_at IS NOT NULL AND expires_at <= qcard_now_ms()`.catch(() => {});
  }

  close(): Promise<void> {
    return this.sql.end({ timeout: 5 });
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

/** Hex strings or numbers as one text parameter (split in SQL: no array type lookups). */
function list(xs: readonly (string | number)[]): string {
  return xs.join(",");
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

/** Deno.AtomicOperation: checks and mutations collected, applied in one commit. */
export class PgAtomic {
  #checks: Deno.AtomicCheck[] = [];
  #muts: Mutation[] = [];
  constructor(private kv: PgKv) {}

  check(...checks: Deno.AtomicCheck[]): this {
    for (const c of checks) encodeKey(c.key);
    this.#checks.push(...checks);
    return this;
  }

  mutate(...muts: Deno.KvMutation[]): this {
    for (const m of muts) {
      if (m.type === "set") this.set(m.key, m.value, { expireIn: m.expireIn });
      else if (m.type === "delete") this.delete(m.key);
      else if (m.type === "sum" || m.type === "min" || m.type === "max") {
        this.#u64(m.type, m.key, m.value);
      } else throw new TypeError(`Unsupported mutation: ${(m as { type: string }).type}`);
    }
    return this;
  }

  set(key: Deno.KvKey, value: unknown, options: { expireIn?: number } = {}): this {
    encodeKey(key);
    this.#muts.push({ type: "set", key, value, expireIn: options.expireIn });
    return this;
  }

  delete(key: Deno.KvKey): this {
    encodeKey(key);
    this.#muts.push({ type: "delete", key });
    return this;
  }

  sum(key: Deno.KvKey, n: bigint): this {
    return this.#u64("sum", key, new Deno.KvU64(n));
  }

  min(key: Deno.KvKey, n: bigint): this {
    return this.#u64("min", key, new Deno.KvU64(n));
  }

  max(key: Deno.KvKey, n: bigint): this {
    return this.#u64("max", key, new Deno.KvU64(n));
  }

  #u64(type: "sum" | "min" | "max", key: Deno.KvKey, value: Deno.KvU64): this {
    encodeKey(key);
    this.#muts.push({ type, key, value });
    return this;
  }

  enqueue(): never {
    throw new TypeError("Queues are not supported by the PostgreSQL store");
  }

  async commit(): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
    const r = await commit(this.kv, this.#checks, this.#muts);
    if (r.ok) await this.kv.sweep();
    return r;
  }
}

async function commit(
  kv: PgKv,
  checks: Deno.AtomicCheck[],
  muts: Mutation[],
): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
  const checked = checks.map((c) => ({ h: hex(encodeKey(c.key)), vs: c.versionstamp }));
  const steps = muts.map((m) => ({ ...m, h: hex(encodeKey(m.key)) }));
  const reads = [
    ...new Set([
      ...checked.map((c) => c.h),
      ...steps.flatMap((m) => m.type === "set" || m.type === "delete" ? [] : [m.h]),
    ]),
  ];
  const values = steps.map((m) => m.type === "set" ? encodeValue(m.value) : undefined);
  return await kv.serializable(async (tx) => {
    const table = tx(TABLE);
    // Point lookups through the key index: SSI then locks only these keys' index ranges.
    await tx`SET LOCAL enable_seqscan = off`;
    const rows = reads.length === 0 ? [] : await tx<(Row & { h: string })[]>`
      SELECT encode(k, 'hex') AS h, v, enc, vs FROM ${table}
      WHERE k IN (SELECT decode(x, 'hex') FROM unnest(string_to_array(${
      list(reads)
    }, ',')::text[]) AS x)
        AND ${tx.unsafe(NOT_EXPIRED)}`;
    const current = new Map<string, Stored | null>(rows.map((r) => [r.h, r]));
    const found = new Map(rows.map((r) => [r.h, stamp(r.vs)]));
    for (const c of checked) {
      if ((found.get(c.h) ?? null) !== c.vs) return { ok: false } as Deno.KvCommitError;
    }
    // The final state of each key, mutations applied in order (a key written twice ends as
    // the last write left it); U64 mutations read what the earlier ones wrote.
    const last = new Map<string, { s: Stored; exp: number } | null>();
    steps.forEach((m, i) => {
      if (m.type === "set") {
        last.set(m.h, {
          s: values[i]!,
          exp: m.expireIn === undefined ? -1 : Math.max(0, Math.round(m.expireIn)),
        });
      } else if (m.type === "delete") last.set(m.h, null);
      else {
        const prev = last.has(m.h) ? last.get(m.h)?.s : current.get(m.h);
        if (prev && prev.enc !== ENC_U64) {
          throw new TypeError(`Failed to perform '${m.type}' mutation on a non-U64 value`);
        }
        const a = prev ? readU64(new Uint8Array(prev.v)) : undefined;
        const b = m.value.value;
        const n = a === undefined
          ? b
          : m.type === "sum"
          ? (a + b) % U64_MOD
          : m.type === "min"
          ? (a < b ? a : b)
          : (a > b ? a : b);
        last.set(m.h, { s: { v: u64Bytes(n), enc: ENC_U64 }, exp: -1 });
      }
    });
    const [{ n }] = await tx<{ n: string }[]>`SELECT nextval('qcard_kv_versionstamp') AS n`;
    const sets = [...last].filter((e): e is [string, { s: Stored; exp: number }] => !!e[1]);
    const dels = [...last].filter(([, v]) => !v).map(([h]) => h);
    if (sets.length > 0) {
      await tx`INSERT INTO ${table} (k, v, enc, vs, expires_at)
        SELECT decode(k, 'hex'), decode(v, 'hex'), e, ${n},
          CASE WHEN x < 0 THEN NULL ELSE qcard_now_ms() + x END
        FROM unnest(string_to_array(${list(sets.map(([h]) => h))}, ',')::text[],
          string_to_array(${list(sets.map(([, w]) => hex(w.s.v)))}, ',')::text[],
          string_to_array(${list(sets.map(([, w]) => String(w.s.enc)))}, ',')::int[],
          string_to_array(${list(sets.map(([, w]) => String(w.exp)))}, ',')::bigint[])
          AS t(k, v, e, x)
        ON CONFLICT (k) DO UPDATE SET v = excluded.v, enc = excluded.enc, vs = excluded.vs,
          expires_at = excluded.expires_at`;
    }
    if (dels.length > 0) {
      await tx`DELETE FROM ${table}
        WHERE k IN (SELECT decode(x, 'hex') FROM unnest(string_to_array(${
        list(dels)
      }, ',')::text[]) AS x)`;
    }
    return { ok: true, versionstamp: stamp(n) } as Deno.KvCommitResult;
  });
}
