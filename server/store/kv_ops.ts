/**
 * What Deno KV's native ops check before they touch the database (a port of Deno v2.9.5's
 * ext/kv/lib.rs: op_kv_snapshot_read, op_kv_atomic_write, op_kv_watch, op_kv_encode_cursor,
 * with KvConfig's default limits), over a backend that only reads ranges of encoded keys and
 * applies checked writes (the PostgreSQL store). Every refusal has Deno KV's error type and
 * message; nothing is sent to the backend until the whole operation passed. After close(),
 * every operation is refused with Deno.errors.BadResource, as Deno KV's closed resource is;
 * operations already in flight settle first, then the backend is closed.
 */
import { concatBytes, decodeKey, encodeKeyBytes } from "./pg_keys.ts";
import type { RawValue } from "./kv_values.ts";
export type { RawValue } from "./kv_values.ts";

/** KvConfig's defaults (ext/kv/config.rs), which Deno KV and Deno Deploy apply. */
export const KV_LIMITS = {
  maxWriteKeySize: 2048,
  /** A read's range end may be one byte longer than the longest key (the key plus 0x00). */
  maxReadKeySize: 2049,
  maxValueSize: 65536,
  maxReadRanges: 10,
  maxReadEntries: 1000,
  maxChecks: 100,
  maxMutations: 1000,
  maxWatchedKeys: 10,
  maxTotalMutationSize: 800 * 1024,
  maxTotalKeySize: 80 * 1024,
} as const;

/** The latest instant chrono (Deno KV's clock type) can hold, in ms since the epoch. */
const MAX_EXPIRE_AT = 8_210_266_876_799_999;

export type MutationKind = "set" | "delete" | "sum" | "min" | "max" | "setSuffixVersionstampedKey";

export interface ReadRange {
  start: Uint8Array;
  end: Uint8Array;
  limit: number;
  reverse: boolean;
}
/** An entry as the backend reads it: the encoded key. */
export interface BackendEntry {
  k: Uint8Array;
  value: RawValue;
  versionstamp: string;
}
export interface RawEntry {
  key: Deno.KvKey;
  value: RawValue;
  versionstamp: string;
}
export interface WriteCheck {
  key: Uint8Array;
  versionstamp: string | null;
}
export interface WriteMutation {
  key: Uint8Array;
  kind: MutationKind;
  value: RawValue | null;
  /** ms since the epoch; null: never expires. */
  expireAt: number | null;
}

/** A store's own part: ranges read in one snapshot, checked writes applied at once. */
export interface KvBackend {
  read(ranges: ReadRange[]): Promise<BackendEntry[][]>;
  /** The new versionstamp, or null when a check failed. */
  write(checks: WriteCheck[], mutations: WriteMutation[]): Promise<string | null>;
  /**
   * Yields once at once, then whenever one of `keys` may have changed, until `signal` aborts
   * (then it returns).
   */
  changes(keys: Uint8Array[], signal: AbortSignal): AsyncIterable<void>;
  close(): Promise<void>;
}

type Range = [
  Deno.KvKey | null,
  Deno.KvKey | null,
  Deno.KvKey | null,
  number,
  boolean,
  string | null,
];

const KEY_PART = "expected string, number, bigint, ArrayBufferView, boolean";

/** Deno KV's key encoding, refusing what serde refuses (not an array, a part of no key type). */
function encodeKey(key: unknown): Uint8Array {
  if (!Array.isArray(key)) throw new TypeError(`Invalid key: ${KEY_PART} array expected`);
  return encodeKeyBytes(key, KEY_PART);
}

const startsWith = (a: Uint8Array, p: Uint8Array) =>
  a.length >= p.length && p.every((x, i) => a[i] === x);
const concat = concatBytes;
function compare(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

type Selector =
  | { type: "prefixed"; prefix: Uint8Array; start?: Uint8Array; end?: Uint8Array }
  | { type: "range"; start: Uint8Array; end: Uint8Array };

function selectorOf(
  prefix: Deno.KvKey | null,
  start: Deno.KvKey | null,
  end: Deno.KvKey | null,
): Selector {
  const p = prefix === null ? null : encodeKey(prefix);
  const s = start === null ? null : encodeKey(start);
  const e = end === null ? null : encodeKey(end);
  if (p && !s && !e) return { type: "prefixed", prefix: p };
  if (p && s && !e) {
    if (!startsWith(s, p) || s.length === p.length) {
      throw new TypeError("Start key is not in the keyspace defined by prefix");
    }
    return { type: "prefixed", prefix: p, start: s };
  }
  if (p && !s && e) {
    if (!startsWith(e, p) || e.length === p.length) {
      throw new TypeError("End key is not in the keyspace defined by prefix");
    }
    return { type: "prefixed", prefix: p, end: e };
  }
  if (!p && s && e) {
    if (compare(s, e) > 0) throw new TypeError("Start key is greater than end key");
    return { type: "range", start: s, end: e };
  }
  if (!p && s && !e) return { type: "range", start: s, end: concat(s, [0]) };
  throw new TypeError("Invalid range");
}

function commonPrefix(sel: Selector): Uint8Array {
  if (sel.type === "prefixed") return sel.prefix;
  let i = 0;
  while (i < sel.start.length && i < sel.end.length && sel.start[i] === sel.end[i]) i++;
  return sel.start.subarray(0, i);
}
const rangeStart = (sel: Selector) =>
  sel.start ?? concat((sel as { prefix: Uint8Array }).prefix, [0]);
const rangeEnd = (sel: Selector) =>
  sel.end ?? concat((sel as { prefix: Uint8Array }).prefix, [0xff]);

/** base64 URL-safe alphabet with padding, as the Rust `base64` crate's URL_SAFE engine. */
function toBase64Url(b: Uint8Array): string {
  let bin = "";
  for (const x of b) bin += String.fromCharCode(x);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_");
}
function fromBase64Url(s: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(s) || s.length % 4 !== 0) {
    throw new TypeError("invalid cursor");
  }
  try {
    return Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
  } catch {
    throw new TypeError("invalid cursor");
  }
}

function rangeWithCursor(sel: Selector, reverse: boolean, cursor: string | null) {
  if (cursor === null) return [rangeStart(sel), rangeEnd(sel)];
  const prefix = commonPrefix(sel);
  const c = fromBase64Url(cursor);
  const [first, last] = reverse
    ? [rangeStart(sel), concat(prefix, c)]
    : [concat(prefix, c, [0]), rangeEnd(sel)];
  if (sel.start && compare(first, sel.start) < 0) throw new TypeError("cursor out of bounds");
  if (sel.end && compare(last, sel.end) > 0) throw new TypeError("cursor out of bounds");
  return [first, last];
}

function readKeySize(k: Uint8Array): void {
  if (k.length > KV_LIMITS.maxReadKeySize) {
    throw new TypeError(`Key too large for read (max ${KV_LIMITS.maxReadKeySize} bytes)`);
  }
}
function writeKeySize(k: Uint8Array): number {
  if (k.length > KV_LIMITS.maxWriteKeySize) {
    throw new TypeError(`Key too large for write (max ${KV_LIMITS.maxWriteKeySize} bytes)`);
  }
  return k.length;
}
function valueSize(v: RawValue): number {
  if (v.kind === "u64") return 8;
  if (v.value.length > KV_LIMITS.maxValueSize) {
    throw new TypeError(`Value too large (max ${KV_LIMITS.maxValueSize} bytes)`);
  }
  return v.value.length;
}

const badResource = () => new Deno.errors.BadResource("Bad resource ID");

export class KvOps {
  #closed = false;
  #inflight = new Set<Promise<unknown>>();
  #watchers = new Set<AbortController>();
  #closing: Promise<void> | null = null;

  constructor(private backend: KvBackend) {}

  /** Runs `fn` unless closed, counted as in flight until it settles. */
  #op<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(badResource());
    const p = fn();
    this.#inflight.add(p);
    const done = () => this.#inflight.delete(p);
    p.then(done, done);
    return p;
  }

  snapshotRead(ranges: Range[]): Promise<RawEntry[][]> {
    return this.#op(async () => {
      if (ranges.length > KV_LIMITS.maxReadRanges) {
        throw new TypeError(`Too many ranges (max ${KV_LIMITS.maxReadRanges})`);
      }
      let total = 0;
      const read = ranges.map(([prefix, start, end, limit, reverse, cursor]) => {
        const sel = selectorOf(prefix, start, end);
        const [s, e] = rangeWithCursor(sel, reverse, cursor);
        readKeySize(s);
        readKeySize(e);
        total += limit;
        if (!(limit > 0)) throw new TypeError("limit must be greater than 0");
        return { start: s, end: e, limit, reverse };
      });
      if (total > KV_LIMITS.maxReadEntries) {
        throw new TypeError(`Too many entries (max ${KV_LIMITS.maxReadEntries})`);
      }
      const out = await this.backend.read(read);
      return out.map((entries) =>
        entries.map((e) => ({ key: decodeKey(e.k), value: e.value, versionstamp: e.versionstamp }))
      );
    });
  }

  atomicWrite(
    checks: [Deno.KvKey, string | null][],
    mutations: [Deno.KvKey, string, RawValue | null, number | undefined][],
  ): Promise<string | null> {
    return this.#op(async () => {
      const now = Date.now();
      if (checks.length > KV_LIMITS.maxChecks) {
        throw new TypeError(`Too many checks (max ${KV_LIMITS.maxChecks})`);
      }
      if (mutations.length > KV_LIMITS.maxMutations) {
        throw new TypeError(`Too many mutations (max ${KV_LIMITS.maxMutations})`);
      }
      const cs: WriteCheck[] = checks.map(([key, vs]) => {
        if (vs !== null && (typeof vs !== "string" || !/^[0-9a-fA-F]{20}$/.test(vs))) {
          throw new TypeError("Invalid check");
        }
        return { key: encodeKey(key), versionstamp: vs === null ? null : vs.toLowerCase() };
      });
      const ms: WriteMutation[] = mutations.map(([key, type, value, expireIn]) => {
        const k = encodeKey(key);
        const known = ["set", "sum", "min", "max", "setSuffixVersionstampedKey"];
        if (value !== null && !known.includes(type)) {
          throw new TypeError(`Invalid mutation: Invalid mutation '${type}' with value`);
        }
        if (value === null && type !== "delete") {
          throw new TypeError(`Invalid mutation: Invalid mutation '${type}' without value`);
        }
        let expireAt: number | null = null;
        if (expireIn !== undefined && expireIn !== null) {
          expireAt = now + expireIn;
          if (!(expireAt <= MAX_EXPIRE_AT)) {
            throw new TypeError(`Invalid mutation: expireIn is too large: ${expireIn}`);
          }
        }
        return { key: k, kind: type as MutationKind, value, expireAt };
      });
      let total = 0;
      let totalKeys = 0;
      for (const k of [...cs.map((c) => c.key), ...ms.map((m) => m.key)]) {
        if (k.length === 0) throw new TypeError("key cannot be empty");
        total += writeKeySize(k);
      }
      for (const m of ms) {
        if (!m.value) continue;
        const keySize = writeKeySize(m.key);
        total += valueSize(m.value) + keySize;
        totalKeys += keySize;
      }
      if (total > KV_LIMITS.maxTotalMutationSize) {
        throw new TypeError(
          `Total mutation size too large (max ${KV_LIMITS.maxTotalMutationSize} bytes)`,
        );
      }
      if (totalKeys > KV_LIMITS.maxTotalKeySize) {
        throw new TypeError(`Total key size too large (max ${KV_LIMITS.maxTotalKeySize} bytes)`);
      }
      return await this.backend.write(cs, ms);
    });
  }

  /** op_kv_encode_cursor: the cursor after `boundary` for a list with this selector. */
  encodeCursor(
    [prefix, start, end]: [Deno.KvKey | null, Deno.KvKey | null, Deno.KvKey | null],
    boundary: Deno.KvKey,
  ): string {
    const sel = selectorOf(prefix, start, end);
    const key = encodeKey(boundary);
    const common = commonPrefix(sel);
    if (!startsWith(key, common)) throw new TypeError("Invalid boundary key");
    return toBase64Url(key.subarray(common.length));
  }

  /** The watched keys' entries, each time one of them may have changed (first: at once). */
  async *watch(keys: Deno.KvKey[]): AsyncGenerator<(RawEntry | null)[], void> {
    if (this.#closed) throw badResource();
    if (keys.length > KV_LIMITS.maxWatchedKeys) {
      throw new TypeError(`Too many keys (max ${KV_LIMITS.maxWatchedKeys})`);
    }
    const encoded = keys.map(encodeKey);
    const stop = new AbortController();
    this.#watchers.add(stop);
    try {
      for await (const _ of this.backend.changes(encoded, stop.signal)) {
        if (stop.signal.aborted) return;
        let ranges: BackendEntry[][];
        try {
          ranges = await this.backend.read(
            encoded.map((k) => ({ start: k, end: concat(k, [0]), limit: 1, reverse: false })),
          );
        } catch (err) {
          if (stop.signal.aborted) return; // closed meanwhile: the stream ends, as on Deno KV
          throw err;
        }
        if (stop.signal.aborted) return;
        yield ranges.map((r, i) =>
          r[0] ? { key: keys[i], value: r[0].value, versionstamp: r[0].versionstamp } : null
        );
      }
    } finally {
      stop.abort();
      this.#watchers.delete(stop);
    }
  }

  /** Deno KV's close: a second one throws BadResource. */
  close(): void {
    if (this.#closed) throw badResource();
    this.tryClose();
  }

  tryClose(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const w of this.#watchers) w.abort();
    const settle = Promise.allSettled([...this.#inflight]);
    this.#closing = settle.then(() => this.backend.close()).catch(() => {});
  }

  /** Settles once everything in flight settled and the backend is closed. */
  closed(): Promise<void> {
    return this.#closing ?? Promise.resolve();
  }
}
