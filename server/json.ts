/**
 * JSON text of answers, with the bytes of values that never change kept (cache what is
 * immutable per process). A list's rows are built once per list version from frozen records
 * (server/store/list_cache.ts, domain/request_views.ts): their UTF-8 JSON is made once too,
 * and an answer that holds that very array splices those bytes in instead of serialising and
 * encoding 2,000 rows again.
 */
const immutable = new WeakSet<object>();
const kept = new WeakMap<object, Uint8Array<ArrayBuffer>>();
const enc = new TextEncoder();

/** Marks `value` as never changed from now on: its JSON may be kept and reused. */
export function immutableJson<T extends object>(value: T): T {
  immutable.add(value);
  return value;
}

/**
 * The UTF-8 bytes of JSON.stringify(value) for answers (plain objects, arrays, primitives;
 * no toJSON at the levels above a kept value), with the kept bytes of values marked with
 * immutableJson spliced in. `undefined` at the top gives `null`, like an empty answer.
 */
export function answerJson(value: unknown): Uint8Array<ArrayBuffer> {
  const parts: (string | Uint8Array<ArrayBuffer>)[] = [];
  write(value, parts);
  if (parts.length === 1 && typeof parts[0] === "string") return enc.encode(parts[0]);
  const bytes = parts.map((p) => typeof p === "string" ? enc.encode(p) : p);
  const out = new Uint8Array(bytes.reduce((n, b) => n + b.length, 0));
  bytes.reduce((at, b) => (out.set(b, at), at + b.length), 0);
  return out;
}

/** What JSON.stringify leaves out of an object. */
const omitted = (v: unknown) => v === undefined || typeof v === "function" || typeof v === "symbol";

/** Appends value's JSON to parts. */
function write(value: unknown, parts: (string | Uint8Array<ArrayBuffer>)[]): void {
  if (typeof value !== "object" || value === null) {
    push(parts, JSON.stringify(value) ?? "null");
  } else if (immutable.has(value)) {
    let bytes = kept.get(value);
    if (!bytes) kept.set(value, bytes = enc.encode(JSON.stringify(value)));
    parts.push(bytes);
  } else if (Array.isArray(value) || Object.getPrototypeOf(value) !== Object.prototype) {
    push(parts, JSON.stringify(value));
  } else {
    let sep = "{";
    for (const [k, v] of Object.entries(value)) {
      if (omitted(v)) continue;
      push(parts, `${sep}${JSON.stringify(k)}:`);
      write(v, parts);
      sep = ",";
    }
    push(parts, sep === "{" ? "{}" : "}");
  }
}

/** Adds text, joined to the last part when that is text too (fewer, longer strings). */
function push(parts: (string | Uint8Array<ArrayBuffer>)[], text: string): void {
  const last = parts.length - 1;
  if (last >= 0 && typeof parts[last] === "string") parts[last] += text;
  else parts.push(text);
}
