/**
 * Atomic operations of the PostgreSQL store (pg_kv.ts) and how values are stored: a commit is
 * one SERIALIZABLE transaction that reads the checked and summed keys, refuses the whole
 * operation when a check fails, and writes each key's final state with one versionstamp.
 */
import type postgres from "postgres";
import { deserialize, serialize } from "node:v8";
import { encodeKey, hex } from "./pg_keys.ts";
import { TABLE } from "./pg_schema.ts";

/** How a value is stored: V8 serialisation, raw bytes (a top-level Uint8Array), or a U64. */
const ENC_V8 = 1, ENC_U64 = 3;
export const ENC_BYTES = 2;
const U64_MOD = 1n << 64n;
/** The condition that hides expired rows from every read. */
export const NOT_EXPIRED = `(expires_at IS NULL OR expires_at > qcard_now_ms())`;

export type Row = { k: Uint8Array; v: Uint8Array; enc: number; vs: string };
type Stored = { v: Uint8Array; enc: number };
type Mutation =
  | { type: "set"; key: Deno.KvKey; value: unknown; expireIn?: number }
  | { type: "delete"; key: Deno.KvKey }
  | { type: "sum" | "min" | "max"; key: Deno.KvKey; value: Deno.KvU64 };

/** A promise whose rejection is handled later (by whoever awaits it), never "unhandled". */
export function quiet<T>(p: Promise<T>): Promise<T> {
  p.catch(() => {});
  return p;
}

/** A transaction of PgKv.transaction: its connection, its BEGIN, and COMMIT sent on demand. */
export interface PgTxn {
  sql: postgres.ReservedSql;
  /** Settles with BEGIN: awaited before the first write (with the reads, in one round trip). */
  begun: Promise<unknown>;
  /** Sends COMMIT without waiting; the runner awaits it. Called once, after the last write. */
  commit(): Promise<unknown>;
}

/** What a commit needs of the store: a retried SERIALIZABLE transaction, the expiry sweep. */
export interface PgTx {
  transaction<R>(fn: (tx: PgTxn) => Promise<R>): Promise<R>;
  sweep(): Promise<void>;
}

export function encodeValue(value: unknown): Stored {
  if (value instanceof Deno.KvU64) return { v: u64Bytes(value.value), enc: ENC_U64 };
  if (value instanceof Uint8Array && value.constructor === Uint8Array) {
    return { v: value, enc: ENC_BYTES };
  }
  return { v: serialize(value), enc: ENC_V8 };
}

export function decodeValue(s: Stored): unknown {
  const bytes = new Uint8Array(s.v.buffer, s.v.byteOffset, s.v.byteLength);
  if (s.enc === ENC_U64) return new Deno.KvU64(readU64(bytes));
  if (s.enc === ENC_BYTES) return Uint8Array.from(bytes);
  // A copy: node:v8 misreads typed arrays inside a view on a larger (pooled) buffer.
  return deserialize(new Uint8Array(bytes));
}

export function u64Bytes(n: bigint): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, n, false);
  return b;
}

export function readU64(b: Uint8Array): bigint {
  return new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0, false);
}

/** Deno KV's versionstamp: 10 bytes as 20 hex digits, increasing with each commit. */
export function stamp(n: string | bigint): string {
  return BigInt(n).toString(16).padStart(16, "0") + "0000";
}

/** The sequence number behind a versionstamp of stamp(); null when `vs` is not one of ours. */
export function versionOf(vs: string): bigint | null {
  return /^[0-9a-f]{16}0000$/.test(vs) ? BigInt(`0x${vs.slice(0, 16)}`) : null;
}

export function entry<T>(key: Deno.KvKey, r: Row): Deno.KvEntry<T> {
  return { key, value: decodeValue(r) as T, versionstamp: stamp(r.vs) };
}

/** Hex strings or numbers as one text parameter (split in SQL: no array type lookups). */
export function list(xs: readonly (string | number)[]): string {
  return xs.join(",");
}

/** Deno.AtomicOperation: checks and mutations collected, applied in one commit. */
export class PgAtomic {
  #checks: Deno.AtomicCheck[] = [];
  #muts: Mutation[] = [];
  constructor(private kv: PgTx) {}

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
  kv: PgTx,
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
  // Encoded once, before the transaction: not again on a retry, nor while it holds a connection.
  const values = steps.map((m) => {
    if (m.type !== "set") return undefined;
    const s = encodeValue(m.value);
    return { ...s, x: hex(s.v) };
  });
  return await kv.transaction(async ({ sql: tx, begun, commit }) => {
    const table = tx(TABLE);
    // Point lookups through the key index: SSI then locks only these keys' index ranges. BEGIN,
    // this setting and the read go out together (postgres.js pipelines them): one round trip.
    // Each awaited below: BEGIN's and the setting's failures are the commit's.
    const local = quiet(tx`SET LOCAL enable_seqscan = off`.execute());
    const read = reads.length === 0 ? Promise.resolve([]) : quiet(tx<(Row & { h: string })[]>`
      SELECT encode(k, 'hex') AS h, v, enc, vs FROM ${table}
      WHERE k IN (SELECT decode(x, 'hex') FROM unnest(string_to_array(${
      list(reads)
    }, ',')::text[]) AS x)
        AND ${tx.unsafe(NOT_EXPIRED)}`.execute());
    await begun;
    await local;
    const rows = await read;
    const current = new Map<string, Stored | null>(rows.map((r) => [r.h, r]));
    const found = new Map(rows.map((r) => [r.h, stamp(r.vs)]));
    for (const c of checked) {
      if ((found.get(c.h) ?? null) !== c.vs) return { ok: false } as Deno.KvCommitError;
    }
    // The final state of each key, mutations applied in order (a key written twice ends as
    // the last write left it); U64 mutations read what the earlier ones wrote.
    const last = new Map<string, { s: Stored & { x?: string }; exp: number } | null>();
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
    const sets = [...last].filter((e): e is [string, { s: Stored & { x?: string }; exp: number }] =>
      !!e[1]
    );
    const dels = [...last].filter(([, v]) => !v).map(([h]) => h);
    // One statement for the versionstamp, the sets and the deletes, with COMMIT right behind
    // it: one round trip.
    const write = quiet(tx<{ n: string }[]>`
      WITH n AS MATERIALIZED (SELECT nextval('qcard_kv_versionstamp') AS n),
      ins AS (
        INSERT INTO ${table} (k, v, enc, vs, expires_at)
        SELECT decode(k, 'hex'), decode(v, 'hex'), e, (SELECT n FROM n),
          CASE WHEN x < 0 THEN NULL ELSE qcard_now_ms() + x END
        FROM unnest(string_to_array(${list(sets.map(([h]) => h))}, ',')::text[],
          string_to_array(${list(sets.map(([, w]) => w.s.x ?? hex(w.s.v)))}, ',')::text[],
          string_to_array(${list(sets.map(([, w]) => String(w.s.enc)))}, ',')::int[],
          string_to_array(${list(sets.map(([, w]) => String(w.exp)))}, ',')::bigint[])
          AS t(k, v, e, x)
        ON CONFLICT (k) DO UPDATE SET v = excluded.v, enc = excluded.enc, vs = excluded.vs,
          expires_at = excluded.expires_at
        RETURNING 1),
      del AS (
        DELETE FROM ${table}
        WHERE k IN (SELECT decode(x, 'hex') FROM unnest(string_to_array(${
      list(dels)
    }, ',')::text[]) AS x)
        RETURNING 1)
      SELECT n FROM n`.execute());
    const committed = commit(); // right behind the write, before its answer
    const [{ n }] = await write;
    await committed;
    return { ok: true, versionstamp: stamp(n) } as Deno.KvCommitResult;
  });
}
