/**
 * Reading a whole store for backups and moves (copy.ts): every live record in key order,
 * with its expiry where the store can give it. A KV file is read in one SQLite statement
 * (its `kv` table, read-only), PostgreSQL in one REPEATABLE READ transaction; a remote KV
 * (KV Connect) through the Deno.Kv API, entry by entry, without expiries.
 */
import postgres from "postgres";
import { isPostgresUrl } from "../config.ts";
import { openKv } from "./kv.ts";
import { encodeKey } from "./pg_keys.ts";
import { NOT_EXPIRED, readU64 } from "./pg_atomic.ts";
import { TABLE } from "./pg_schema.ts";
import { deserializeValue, serializeValue } from "./kv_values.ts";

/** A value as stored: V8-serialised, raw bytes (a top-level Uint8Array), or a Deno.KvU64. */
export type StoredValue =
  | { t: "v8"; v: Uint8Array }
  | { t: "bytes"; v: Uint8Array }
  | { t: "u64"; v: bigint };

export interface StoreRecord {
  /** The key in Deno KV's encoding: the same bytes, and the same order, on both stores. */
  key: Uint8Array;
  value: StoredValue;
  /** ms since epoch; null: never expires (or, from a remote KV, not known). */
  expiresAt: number | null;
}

/** How a store was read. */
export interface ReadInfo {
  from: "kv-file" | "postgres" | "kv";
  /** Every record from one consistent view of the store. */
  snapshot: boolean;
  /** Expiries were readable (not through a remote KV's API). */
  expiries: boolean;
}

/** What kind of store a KV_PATH names (the rule server/store/kv.ts opens it by). */
export function storeKind(path: string): ReadInfo["from"] {
  if (isPostgresUrl(path)) return "postgres";
  if (path === ":memory:" || /^https?:\/\//.test(path)) return "kv";
  return "kv-file";
}

/** A store's every live record in key order, and how they were read. */
export async function readStore(
  path: string,
): Promise<{ info: ReadInfo; records: AsyncGenerator<StoreRecord> }> {
  const kind = storeKind(path);
  if (kind === "postgres") {
    return { info: { from: kind, snapshot: true, expiries: true }, records: readPg(path) };
  }
  if (kind === "kv-file") {
    if (!(await Deno.stat(path).then((s) => s.isFile, () => false))) {
      throw new Error(`No KV store at ${path}`);
    }
    const sqlite = await openKvFile(path);
    if (sqlite) {
      return {
        info: { from: kind, snapshot: true, expiries: true },
        records: readKvFile(sqlite),
      };
    }
    // A KV file whose SQLite layout this code does not know: through the API instead.
  }
  const kv = await openKv(path, false);
  return { info: { from: kind, snapshot: false, expiries: false }, records: readApi(kv) };
}

type Db = import("node:sqlite").DatabaseSync;

/** The KV file's SQLite database, read-only; null when it has no `kv` table as expected. */
async function openKvFile(path: string): Promise<Db | null> {
  const { DatabaseSync } = await import("node:sqlite");
  const db = new DatabaseSync(path, { readOnly: true });
  const cols = db.prepare("SELECT name FROM pragma_table_info('kv')").all().map((r) => r.name);
  if (["k", "v", "v_encoding", "expiration_ms"].every((c) => cols.includes(c))) return db;
  db.close();
  return null;
}

/** Deno KV's value encodings in its SQLite file: V8, little-endian U64, raw bytes. */
const KV_V8 = 1, KV_LE64 = 2, KV_BYTES = 3;

async function* readKvFile(db: Db): AsyncGenerator<StoreRecord> {
  try {
    // One statement: one read transaction, so one snapshot of the whole store.
    const rows = db.prepare(
      `SELECT k, v, v_encoding AS e, expiration_ms AS x FROM kv
       WHERE expiration_ms < 0 OR expiration_ms > ? ORDER BY k`,
    ).iterate(Date.now());
    for (const r of rows) {
      const v = new Uint8Array(r.v as Uint8Array);
      const e = Number(r.e);
      const value: StoredValue = e === KV_V8
        ? { t: "v8", v }
        : e === KV_BYTES
        ? { t: "bytes", v }
        : e === KV_LE64
        ? { t: "u64", v: new DataView(v.buffer, v.byteOffset, 8).getBigUint64(0, true) }
        : unknownEncoding(e);
      const x = Number(r.x);
      yield { key: new Uint8Array(r.k as Uint8Array), value, expiresAt: x < 0 ? null : x };
    }
  } finally {
    db.close();
  }
}

function unknownEncoding(e: number): never {
  throw new Error(`Unknown value encoding ${e} in the KV file`);
}

/**
 * The PostgreSQL store's encodings (pg_atomic.ts): V8 as Deno KV serialises it (4), raw bytes,
 * big-endian U64, and V8 by node:v8 (1, an earlier version's rows): both V8 kinds are "v8"
 * here, as fromStored reads either.
 */
const PG_NODE_V8 = 1, PG_BYTES = 2, PG_U64 = 3, PG_V8 = 4;

async function* readPg(url: string): AsyncGenerator<StoreRecord> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, fetch_types: false });
  let conn: postgres.ReservedSql | undefined;
  try {
    // A query first: postgres.js's reserve() waits forever on a pool that has no connection.
    const [{ t }] = await sql<{ t: string | null }[]>`SELECT to_regclass(${TABLE})::text AS t`;
    if (!t) throw new Error("No QCard store in this PostgreSQL database (no qcard_kv table)");
    conn = await sql.reserve();
    await conn`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`;
    const rows = conn<{ k: Uint8Array; v: Uint8Array; enc: number; x: string | null }[]>`
      SELECT k, v, enc, expires_at AS x FROM ${conn(TABLE)}
      WHERE ${conn.unsafe(NOT_EXPIRED)} ORDER BY k`.cursor(500);
    for await (const page of rows) {
      for (const r of page) {
        const v = new Uint8Array(r.v);
        const value: StoredValue = r.enc === PG_V8 || r.enc === PG_NODE_V8
          ? { t: "v8", v }
          : r.enc === PG_BYTES
          ? { t: "bytes", v }
          : r.enc === PG_U64
          ? { t: "u64", v: readU64(v) }
          : unknownEncoding(r.enc);
        yield { key: new Uint8Array(r.k), value, expiresAt: r.x === null ? null : Number(r.x) };
      }
    }
    await conn`COMMIT`;
  } finally {
    conn?.release();
    await sql.end({ timeout: 5 });
  }
}

async function* readApi(kv: Deno.Kv): AsyncGenerator<StoreRecord> {
  try {
    for await (const e of kv.list({ prefix: [] }, { batchSize: 1000 })) {
      yield { key: encodeKey(e.key), value: toStored(e.value), expiresAt: null };
    }
  } finally {
    await (kv.close() as void | Promise<void>);
  }
}

/** A value read through the Deno.Kv API, as stored (serialised as Deno KV does). */
export function toStored(value: unknown): StoredValue {
  const raw = serializeValue(value);
  if (raw.kind === "u64") return { t: "u64", v: raw.value };
  return { t: raw.kind === "bytes" ? "bytes" : "v8", v: raw.value as Uint8Array };
}

/**
 * The value to hand to Deno.Kv's set. "v8" bytes are Deno KV's serialisation (a KV file's, the
 * PostgreSQL store's); bytes node:v8 wrote (that store's earlier rows, typed arrays inside)
 * Deno's reader refuses, and node:v8's reads them.
 */
export function fromStored(s: StoredValue): unknown {
  if (s.t === "u64") return new Deno.KvU64(s.v);
  if (s.t === "bytes") return Uint8Array.from(s.v);
  try {
    return deserializeValue({ kind: "v8", value: Uint8Array.from(s.v) });
  } catch {
    return deserializeValue({ kind: "node-v8", value: Uint8Array.from(s.v) });
  }
}
