/**
 * Deno KV keys as bytes whose byte order is Deno KV's key order, so PostgreSQL's `bytea`
 * comparison (memcmp, then length) sorts and ranges them exactly as Deno KV does. The
 * layout is Deno KV's own (denokv_proto's codec, FoundationDB's tuple layer): one tag byte a
 * part — Uint8Array 0x01 < string 0x02 < bigint 0x0b–0x1d < number 0x21 < false 0x26 <
 * true 0x27 — so parts order by type first, then by value; a key sorts after its prefixes.
 */

import { Buffer } from "node:buffer";

const BYTES = 0x01;
const STRING = 0x02;
const NEGINTSTART = 0x0b;
const INTZERO = 0x14;
const POSINTEND = 0x1d;
const DOUBLE = 0x21;
const FALSE = 0x26;
const TRUE = 0x27;

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Deno KV's limit on an encoded key (denokv_proto: 2 KiB). */
export const MAX_KEY_BYTES = 2048;

/** Writes bytes ending in 0x00; a 0x00 inside becomes 0x00 0xff (order kept, end unique). */
function pushEscaped(out: number[], bytes: Uint8Array) {
  for (const b of bytes) {
    out.push(b);
    if (b === 0) out.push(0xff);
  }
  out.push(0);
}

function bigintBytes(n: bigint): number[] {
  const out: number[] = [];
  while (n > 0n) {
    out.unshift(Number(n & 0xffn));
    n >>= 8n;
  }
  return out;
}

function pushBigint(out: number[], n: bigint) {
  if (n === 0n) return void out.push(INTZERO);
  const neg = n < 0n;
  const mag = bigintBytes(neg ? -n : n);
  const len = mag.length;
  // Negative numbers are written as one's complement so larger magnitudes sort first.
  const body = neg ? mag.map((b) => b ^ 0xff) : mag;
  if (len <= 8) {
    out.push(neg ? INTZERO - len : INTZERO + len, ...body);
  } else {
    out.push(neg ? NEGINTSTART : POSINTEND, neg ? len ^ 0xff : len, ...body);
  }
}

function pushDouble(out: number[], x: number) {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setFloat64(0, x, false);
  // IEEE 754 bits ordered as numbers: positive → flip the sign bit, negative → flip all.
  if (b[0] & 0x80) { for (let i = 0; i < 8; i++) b[i] ^= 0xff; }
  else b[0] ^= 0x80;
  out.push(DOUBLE, ...b);
}

/** The key's bytes; throws TypeError for a part Deno KV refuses, or a key too large to write. */
export function encodeKey(key: Deno.KvKey): Uint8Array {
  const out = encodeKeyBytes(key);
  if (out.length > MAX_KEY_BYTES) throw new TypeError("Key too large for write (max 2048 bytes)");
  return out;
}

/** The key's bytes, whatever their length (kv_ops.ts checks read and write sizes itself). */
export function encodeKeyBytes(key: Deno.KvKey, badPart = "Invalid key part"): Uint8Array {
  const out: number[] = [];
  for (const part of key) {
    if (part instanceof Uint8Array) {
      out.push(BYTES);
      pushEscaped(out, part);
    } else if (typeof part === "string") {
      out.push(STRING);
      pushEscaped(out, utf8.encode(part));
    } else if (typeof part === "bigint") pushBigint(out, part);
    else if (typeof part === "number") pushDouble(out, part);
    else if (typeof part === "boolean") out.push(part ? TRUE : FALSE);
    else throw new TypeError(`${badPart}: ${typeof part}`);
  }
  return Uint8Array.from(out);
}

function readEscaped(b: Uint8Array, i: number): [Uint8Array, number] {
  const out: number[] = [];
  for (;;) {
    const x = b[i++];
    if (x === undefined) throw new Error("Truncated key");
    if (x === 0) {
      if (b[i] === 0xff) {
        out.push(0);
        i++;
        continue;
      }
      return [Uint8Array.from(out), i];
    }
    out.push(x);
  }
}

/** The key back from its bytes (what list() hands out). */
export function decodeKey(b: Uint8Array): Deno.KvKey {
  const key: Deno.KvKeyPart[] = [];
  let i = 0;
  while (i < b.length) {
    const tag = b[i++];
    if (tag === BYTES || tag === STRING) {
      const [bytes, next] = readEscaped(b, i);
      key.push(tag === BYTES ? bytes : fromUtf8.decode(bytes));
      i = next;
    } else if (tag >= NEGINTSTART && tag <= POSINTEND) {
      let len: number;
      const neg = tag < INTZERO;
      if (tag === NEGINTSTART) len = b[i++] ^ 0xff;
      else if (tag === POSINTEND) len = b[i++];
      else len = Math.abs(tag - INTZERO);
      let n = 0n;
      for (let j = 0; j < len; j++) n = (n << 8n) | BigInt(neg ? b[i + j] ^ 0xff : b[i + j]);
      i += len;
      key.push(neg ? -n : n);
    } else if (tag === DOUBLE) {
      const d = b.slice(i, i + 8);
      if (d[0] & 0x80) d[0] ^= 0x80;
      else for (let j = 0; j < 8; j++) d[j] ^= 0xff;
      key.push(new DataView(d.buffer).getFloat64(0, false));
      i += 8;
    } else if (tag === FALSE || tag === TRUE) key.push(tag === TRUE);
    else throw new Error(`Unknown key tag ${tag}`);
  }
  return key;
}

/** The parts one after another. */
export function concatBytes(...parts: (Uint8Array | number[])[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** `a` then one byte. */
export function withByte(a: Uint8Array, byte: number): Uint8Array {
  const out = new Uint8Array(a.length + 1);
  out.set(a);
  out[a.length] = byte;
  return out;
}

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/**
 * Lowercase hex of `b`, encoded natively: a string built a byte at a time costs ~0.1 s and
 * tens of megabytes of garbage for a 720 KB write, blocking the event loop meanwhile.
 */
export function hex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
}

export function base64url(b: Uint8Array): string {
  // URL-safe alphabet with padding, as Deno KV writes its cursors.
  return btoa(String.fromCharCode(...b)).replace(/\+/g, "-").replace(/\//g, "_");
}

export function fromBase64url(s: string): Uint8Array {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}
