/**
 * Atomic writes of the PostgreSQL store (pg_kv.ts) and how values are stored: a commit is
 * one SERIALIZABLE transaction that reads the checked and summed keys, refuses the whole
 * operation when a check fails, and writes each key's final state with one versionstamp.
 * Values are stored as Deno KV serialises them (kv_values.ts).
 */
import type postgres from "postgres";
import { concatBytes, encodeKeyBytes, hex } from "./pg_keys.ts";
import { TABLE } from "./pg_schema.ts";
import type { WriteCheck, WriteMutation } from "./kv_ops.ts";
import { type RawValue, typeName } from "./kv_values.ts";

/**
 * How a value is stored: raw bytes (a top-level Uint8Array), a U64, or V8's serialisation for
 * storage as Deno KV makes it (ENC_CORE). ENC_V8 (1) rows were written by node:v8's serialiser
 * before: still read, never written.
 */
const ENC_U64 = 3, ENC_CORE = 4;
export const ENC_BYTES = 2;
const U64_MOD = 1n << 64n;
/** The condition that hides expired rows from every read. */
export const NOT_EXPIRED = `(expires_at IS NULL OR expires_at > qcard_now_ms())`;

export type Row = { k: Uint8Array; v: Uint8Array; enc: number; vs: string };
export type Stored = { v: Uint8Array; enc: number };

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

/** Hex strings or numbers as one text parameter (split in SQL: no array type lookups). */
export function list(xs: readonly (string | number)[]): string {
  return xs.join(",");
}

/** The rows' `enc` of a value as Deno KV serialises it (kv_values.ts). */
export function storedOf(v: RawValue): Stored {
  if (v.kind === "u64") return { v: u64Bytes(v.value), enc: ENC_U64 };
  if (v.kind === "bytes") return { v: v.value, enc: ENC_BYTES };
  if (v.kind === "v8") return { v: v.value, enc: ENC_CORE };
  throw new TypeError("Invalid value type");
}

/** A row's value as Deno KV's raw value (rows of ENC_V8 are an earlier version's: read only). */
export function rawOf(s: Stored): RawValue {
  const bytes = new Uint8Array(s.v.buffer, s.v.byteOffset, s.v.byteLength);
  if (s.enc === ENC_U64) return { kind: "u64", value: readU64(bytes) };
  if (s.enc === ENC_BYTES) return { kind: "bytes", value: Uint8Array.from(bytes) };
  if (s.enc === ENC_CORE) return { kind: "v8", value: Uint8Array.from(bytes) };
  return { kind: "node-v8", value: Uint8Array.from(bytes) };
}

/** A string key part as Deno KV encodes it (the committed versionstamp appended to a key). */
function stringPart(s: string): Uint8Array {
  return encodeKeyBytes([s]);
}

/**
 * One checked write (kv_ops.ts has validated it): in one SERIALIZABLE transaction, reads the
 * checked and U64-mutated keys, refuses the whole operation when a check fails, and writes
 * each key's final state with one versionstamp; `notify` names the written keys to watchers
 * (pg_notify, delivered at commit). Null: a check failed.
 */
export async function writeAtomic(
  kv: PgTx,
  checks: WriteCheck[],
  muts: WriteMutation[],
  notify: (keys: Uint8Array[]) => [string, string] | null,
): Promise<string | null> {
  const checked = checks.map((c) => ({ h: hex(c.key), vs: c.versionstamp }));
  const suffixed = muts.some((m) => m.kind === "setSuffixVersionstampedKey");
  const reads = [
    ...new Set([
      ...checked.map((c) => c.h),
      ...muts.flatMap((m) => ["sum", "min", "max"].includes(m.kind) ? [hex(m.key)] : []),
    ]),
  ];
  // Encoded once, before the transaction: not again on a retry, nor while it holds a connection.
  const values = muts.map((m) => m.value ? storedOf(m.value) : undefined);
  const now = Date.now();
  return await kv.transaction(async ({ sql: tx, begun, commit }) => {
    const table = tx(TABLE);
    const local = quiet(tx`SET LOCAL enable_seqscan = off`.execute());
    const read = reads.length === 0 ? Promise.resolve([]) : quiet(tx<(Row & { h: string })[]>`
      SELECT encode(k, 'hex') AS h, v, enc, vs FROM ${table}
      WHERE k IN (SELECT decode(x, 'hex') FROM unnest(string_to_array(${
      list(reads)
    }, ',')::text[]) AS x)
        AND ${tx.unsafe(NOT_EXPIRED)}`.execute());
    // A key ending in the commit's own versionstamp needs it before the write.
    const next = suffixed
      ? quiet(tx<{ n: string }[]>`SELECT nextval('qcard_kv_versionstamp') AS n`.execute())
      : null;
    await begun;
    await local;
    const rows = await read;
    const given = next ? (await next)[0].n : null;
    const current = new Map<string, Stored | null>(rows.map((r) => [r.h, r]));
    const found = new Map(rows.map((r) => [r.h, stamp(r.vs)]));
    for (const c of checked) {
      if ((found.get(c.h) ?? null) !== c.vs) return null;
    }
    // The final state of each key, mutations applied in order (a key written twice ends as
    // the last write left it); U64 mutations read what the earlier ones wrote.
    const last = new Map<string, { k: Uint8Array; s: Stored; exp: number } | null>();
    muts.forEach((m, i) => {
      const key = m.kind === "setSuffixVersionstampedKey"
        ? concatBytes(m.key, stringPart(stamp(given!)))
        : m.key;
      const h = hex(key);
      if (m.kind === "set" || m.kind === "setSuffixVersionstampedKey") {
        const exp = m.expireAt === null ? -1 : Math.max(0, m.expireAt - now);
        last.set(h, { k: key, s: values[i]!, exp });
      } else if (m.kind === "delete") last.set(h, null);
      else {
        const operand = m.value!;
        if (operand.kind !== "u64") {
          throw new TypeError(
            m.kind === "sum"
              ? `Cannot sum KvU64 with ${typeName(operand)}`
              : `Failed to perform '${m.kind}' mutation on a non-U64 operand`,
          );
        }
        const prev = last.has(h) ? last.get(h)?.s : current.get(h);
        if (prev && prev.enc !== ENC_U64) {
          throw new TypeError(
            `Failed to perform '${m.kind}' mutation on a non-U64 value in the database`,
          );
        }
        const a = prev ? readU64(new Uint8Array(prev.v)) : undefined;
        const b = operand.value;
        const n = a === undefined
          ? b
          : m.kind === "sum"
          ? (a + b) % U64_MOD
          : m.kind === "min"
          ? (a < b ? a : b)
          : (a > b ? a : b);
        last.set(h, { k: key, s: { v: u64Bytes(n), enc: ENC_U64 }, exp: -1 });
      }
    });
    const sets = [...last].filter((e): e is [string, { k: Uint8Array; s: Stored; exp: number }] =>
      !!e[1]
    );
    const dels = [...last].filter(([, v]) => !v).map(([h]) => h);
    const touched = [...last.keys()].map((h) => fromHex(h));
    const note = notify(touched);
    // One statement for the versionstamp, the sets, the deletes and the watchers' note, with
    // COMMIT right behind it: one round trip.
    const write = quiet(tx<{ n: string }[]>`
      WITH n AS MATERIALIZED (SELECT ${
      given === null ? tx`nextval('qcard_kv_versionstamp')` : tx`${given}::bigint`
    } AS n),
      ins AS (
        INSERT INTO ${table} (k, v, enc, vs, expires_at)
        SELECT decode(k, 'hex'), decode(v, 'hex'), e, (SELECT n FROM n),
          CASE WHEN x < 0 THEN NULL ELSE qcard_now_ms() + x END
        FROM unnest(string_to_array(${list(sets.map(([h]) => h))}, ',')::text[],
          string_to_array(${list(sets.map(([, w]) => hex(w.s.v)))}, ',')::text[],
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
      SELECT n, ${note ? tx`pg_notify(${note[0]}, ${note[1]})` : tx`NULL`} AS note FROM n`
      .execute());
    const committed = commit(); // right behind the write, before its answer
    const [{ n }] = await write;
    await committed;
    return stamp(n);
  });
}

function fromHex(h: string): Uint8Array {
  const out = new Uint8Array(h.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(h.slice(2 * i, 2 * i + 2), 16);
  return out;
}
