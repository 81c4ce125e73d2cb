/**
 * Backups and moves between stores (`deno task export`, `deno task import-store`): a whole
 * store — every key, value and expiry — as a file of JSON lines, read from and written to
 * either store through the same key encoding (pg_keys.ts, Deno KV's own). Versionstamps are
 * not portable (each store numbers its own commits) and are not copied.
 *
 * Reading is one snapshot where the store allows it: a KV file is read in one SQLite
 * statement (its `kv` table, read-only), PostgreSQL in one REPEATABLE READ transaction; both
 * give each entry's expiry, which the Deno.Kv API does not expose. A remote KV (KV Connect)
 * is read through that API, entry by entry, without expiries (said in the file's header).
 *
 * The file: a header line, one line a record, and a trailer with the count and the SHA-256 of
 * the record lines, so a truncated or edited file is refused before anything is written.
 */
import * as z from "zod";
import { isDeepStrictEqual } from "node:util";
import { compareBytes, decodeKey } from "./pg_keys.ts";
import {
  fromStored,
  type ReadInfo,
  readStore,
  type StoredValue,
  type StoreRecord,
} from "./copy_read.ts";

export {
  fromStored,
  type ReadInfo,
  readStore,
  type StoredValue,
  storeKind,
  type StoreRecord,
  toStored,
} from "./copy_read.ts";

export const FORMAT = "qcard-store";
export const FORMAT_VERSION = 1;

// --- The file.

const Header = z.object({
  format: z.literal(FORMAT),
  version: z.literal(FORMAT_VERSION),
  exportedAt: z.string(),
  from: z.enum(["kv-file", "postgres", "kv"]),
  snapshot: z.boolean(),
  expiries: z.boolean(),
});
export type Header = z.infer<typeof Header>;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const Line = z.object({
  k: z.string().regex(BASE64),
  t: z.enum(["v8", "bytes", "u64"]),
  v: z.string().regex(/^(\d+|[A-Za-z0-9+/]*={0,2})$/),
  x: z.number().int().nullable(),
});
const Trailer = z.object({
  end: z.literal(true),
  records: z.number().int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

/** Standard base64, converted in slices (a 60 KB blob chunk is too many arguments at once). */
function toBase64(b: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < b.length; i += 0x8000) {
    bin += String.fromCharCode(...b.subarray(i, i + 0x8000));
  }
  return btoa(bin);
}

function fromBase64(s: string): Uint8Array {
  return Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
}

function recordLine(r: StoreRecord): string {
  const v = r.value.t === "u64" ? r.value.v.toString() : toBase64(r.value.v);
  return JSON.stringify({ k: toBase64(r.key), t: r.value.t, v, x: r.expiresAt });
}

function parseRecord(line: string): StoreRecord {
  const l = Line.parse(JSON.parse(line));
  const value: StoredValue = l.t === "u64"
    ? { t: "u64", v: BigInt(l.v) }
    : { t: l.t, v: fromBase64(l.v) };
  const key = fromBase64(l.k);
  decodeKey(key); // refuses bytes that are no key
  return { key, value, expiresAt: l.x };
}

const enc = new TextEncoder();

/** Writes a store to `out` as the file above; the record count. */
export async function exportStore(
  path: string,
  out: WritableStream<Uint8Array>,
): Promise<{ info: ReadInfo; records: number; expiring: number }> {
  const { info, records } = await readStore(path);
  const w = out.getWriter();
  const digest = new Sha256Lines();
  let n = 0, expiring = 0;
  try {
    const exportedAt = new Date().toISOString();
    const header: Header = { format: FORMAT, version: FORMAT_VERSION, exportedAt, ...info };
    await w.write(enc.encode(JSON.stringify(header) + "\n"));
    let chunk = "";
    for await (const r of records) {
      const line = recordLine(r);
      digest.add(line);
      chunk += line + "\n";
      n++;
      if (r.expiresAt !== null) expiring++;
      if (chunk.length > 256 * 1024) {
        await w.write(enc.encode(chunk));
        chunk = "";
      }
    }
    const trailer = { end: true, records: n, sha256: await digest.hex() };
    await w.write(enc.encode(chunk + JSON.stringify(trailer) + "\n"));
    await w.close();
  } catch (e) {
    await w.abort(e).catch(() => {});
    throw e;
  }
  return { info, records: n, expiring };
}

/**
 * A digest of the record lines: Web Crypto has no streaming SHA-256, so the lines are hashed
 * in blocks of about 1 MB, each block's hash chained into the next — the same lines give the
 * same digest, a truncated or edited file another.
 */
class Sha256Lines {
  #buf: string[] = [];
  #size = 0;
  #chain: Promise<Uint8Array> = Promise.resolve(new Uint8Array(32));
  add(line: string) {
    this.#buf.push(line);
    this.#size += line.length;
    if (this.#size > 1 << 20) this.#flush();
  }
  #flush() {
    const block = enc.encode(this.#buf.map((l) => l + "\n").join(""));
    this.#buf = [];
    this.#size = 0;
    this.#chain = this.#chain.then(async (prev) => {
      const joined = new Uint8Array(prev.length + block.length);
      joined.set(prev);
      joined.set(block, prev.length);
      return new Uint8Array(await crypto.subtle.digest("SHA-256", joined));
    });
  }
  async hex(): Promise<string> {
    this.#flush();
    const d = await this.#chain;
    return Array.from(d, (b) => b.toString(16).padStart(2, "0")).join("");
  }
}

/** The lines of a file, one at a time. */
async function* lines(file: string): AsyncGenerator<string> {
  const f = await Deno.open(file);
  let buf = "";
  for await (const chunk of f.readable.pipeThrough(new TextDecoderStream())) {
    buf += chunk;
    let i;
    let from = 0;
    while ((i = buf.indexOf("\n", from)) >= 0) {
      yield buf.slice(from, i);
      from = i + 1;
    }
    buf = buf.slice(from);
  }
  if (buf) yield buf;
}

/** An export file, checked whole (header, every record line, count and digest). */
export async function checkFile(file: string): Promise<{ header: Header; records: number }> {
  let header: Header | undefined;
  let trailer: z.infer<typeof Trailer> | undefined;
  const digest = new Sha256Lines();
  let n = 0;
  for await (const line of lines(file)) {
    if (!header) {
      header = Header.parse(JSON.parse(line));
      continue;
    }
    if (trailer) throw new Error(`${file}: lines after the end`);
    if (line.startsWith('{"end"')) {
      trailer = Trailer.parse(JSON.parse(line));
      continue;
    }
    parseRecord(line);
    digest.add(line);
    n++;
  }
  if (!header) throw new Error(`${file}: not a QCard store export`);
  if (!trailer) throw new Error(`${file}: truncated (no end line)`);
  if (trailer.records !== n || trailer.sha256 !== await digest.hex()) {
    throw new Error(`${file}: damaged (${n} records read, ${trailer.records} exported)`);
  }
  return { header, records: n };
}

/** The records of a checked export file, in key order. */
export async function* fileRecords(file: string): AsyncGenerator<StoreRecord> {
  let first = true;
  for await (const line of lines(file)) {
    if (first) {
      first = false;
      continue;
    }
    if (line.startsWith('{"end"')) return;
    yield parseRecord(line);
  }
}

/** Mutations and bytes an atomic operation carries at most (Deno KV: 1000 and 800 KiB). */
const BATCH_MUTATIONS = 200;
const BATCH_BYTES = 512 * 1024;

/**
 * Writes records into `kv`, many to an atomic operation. An expiry is kept as the time left
 * when its batch commits (expireIn); a record already expired is skipped.
 */
export async function writeStore(
  kv: Deno.Kv,
  records: AsyncIterable<StoreRecord>,
): Promise<{ written: number; expired: number }> {
  let batch: StoreRecord[] = [];
  let bytes = 0, written = 0, expired = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const op = kv.atomic();
    const now = Date.now();
    for (const r of batch) {
      const left = r.expiresAt === null ? undefined : r.expiresAt - now;
      if (left !== undefined && left <= 0) {
        expired++;
        continue;
      }
      op.set(decodeKey(r.key), fromStored(r.value), left === undefined ? {} : { expireIn: left });
      written++;
    }
    const res = await op.commit();
    if (!res.ok) throw new Error("A batch of the import did not commit");
    batch = [];
    bytes = 0;
  };
  for await (const r of records) {
    const size = r.key.length + (r.value.t === "u64" ? 8 : r.value.v.length);
    if (batch.length >= BATCH_MUTATIONS || bytes + size > BATCH_BYTES) await flush();
    batch.push(r);
    bytes += size;
  }
  await flush();
  return { written, expired };
}

/** True when the store holds no live record. */
export async function isEmpty(kv: Deno.Kv): Promise<boolean> {
  for await (const _ of kv.list({ prefix: [] }, { limit: 1 })) return false;
  return true;
}

/** How two record streams compare. */
export interface Comparison {
  /** Records of `expected` found in `actual` with an equal value. */
  equal: number;
  missing: string[];
  different: string[];
  /** Records of `actual` that `expected` does not have. */
  extra: number;
  /** Records whose expiries differ by more than the tolerance (when both are known). */
  expiry: string[];
}

/**
 * Compares two stores' records, both in key order: every key, its value (deep equality of
 * the decoded values, so the two stores' serialisers need not agree byte for byte) and its
 * expiry (when both sides know it), to within `toleranceMs`. Lists at most 20 of each kind.
 */
export async function compareRecords(
  expected: AsyncIterable<StoreRecord>,
  actual: AsyncIterable<StoreRecord>,
  toleranceMs: number,
  actualKnowsExpiry = true,
): Promise<Comparison> {
  const c: Comparison = { equal: 0, missing: [], different: [], extra: 0, expiry: [] };
  const note = (list: string[], r: StoreRecord) => {
    if (list.length < 20) list.push(JSON.stringify(decodeKey(r.key), keyJson));
  };
  const it = actual[Symbol.asyncIterator]();
  let a = await it.next();
  const now = Date.now();
  for await (const e of expected) {
    if (e.expiresAt !== null && e.expiresAt <= now) continue; // expired since
    while (!a.done && compareBytes(a.value.key, e.key) < 0) {
      c.extra++;
      a = await it.next();
    }
    if (a.done || compareBytes(a.value.key, e.key) > 0) {
      note(c.missing, e);
      continue;
    }
    const got = a.value;
    a = await it.next();
    if (!(await sameValue(got.value, e.value))) {
      note(c.different, e);
      continue;
    }
    c.equal++;
    if (!actualKnowsExpiry) continue;
    const off = e.expiresAt === null || got.expiresAt === null
      ? (e.expiresAt === got.expiresAt ? 0 : Infinity)
      : Math.abs(e.expiresAt - got.expiresAt);
    if (off > toleranceMs) note(c.expiry, e);
  }
  while (!a.done) {
    c.extra++;
    a = await it.next();
  }
  return c;
}

/**
 * The same stored value: the same bytes, or equal once read — deep-equal, and a Blob or a File
 * (whose V8 bytes carry a random id, and whose data a deep comparison cannot see) by its type,
 * name, date and content.
 */
async function sameValue(a: StoredValue, b: StoredValue): Promise<boolean> {
  if (a.t === b.t && a.t !== "u64" && b.t !== "u64" && compareBytes(a.v, b.v) === 0) return true;
  const x = fromStored(a), y = fromStored(b);
  if (x instanceof Blob && y instanceof Blob) {
    const meta = (v: Blob) =>
      v instanceof File ? [v.type, v.name, v.lastModified, v.size] : [v.type, v.size];
    if (!isDeepStrictEqual(meta(x), meta(y))) return false;
    // Deno KV keeps a Blob's data in the process that wrote it ("Blob part not found" in any
    // other): two such copies are equal when neither can be read.
    const [p, q] = await Promise.all([x.bytes().catch(() => null), y.bytes().catch(() => null)]);
    return p === null || q === null ? p === q : compareBytes(p, q) === 0;
  }
  return isDeepStrictEqual(x, y);
}

function keyJson(_: string, v: unknown) {
  if (typeof v === "bigint") return `${v}n`;
  if (v instanceof Uint8Array) return `bytes:${toBase64(v)}`;
  return v;
}
