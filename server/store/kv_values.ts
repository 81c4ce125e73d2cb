/**
 * Values as Deno KV stores them (ext/kv/01_db.ts serializeValue/deserializeValue): a top-level
 * Uint8Array as bytes, a Deno.KvU64 as a u64, everything else by V8's structured serialisation
 * for storage through Deno's own serialiser (`core.serialize(value, {forStorage: true})`, the
 * call Deno KV makes), so Blob, File, CryptoKey and DOMException round-trip exactly where Deno
 * KV's do, and what it cannot store is refused with its DataCloneError. Rows an earlier
 * version wrote with node:v8's serialiser ("node-v8") are still read.
 */
import { deserialize as nodeDeserialize } from "node:v8";

export type RawValue =
  | { kind: "v8"; value: Uint8Array }
  | { kind: "bytes"; value: Uint8Array }
  | { kind: "u64"; value: bigint }
  /** Written by the PostgreSQL store before it serialised as Deno KV does: read only. */
  | { kind: "node-v8"; value: Uint8Array };

interface Core {
  serialize(value: unknown, opts: { forStorage: boolean }): Uint8Array;
  deserialize(bytes: Uint8Array, opts: { forStorage: boolean; deserializers?: unknown }): unknown;
  getCloneableDeserializers?(): unknown;
}

const internal = (Deno as unknown as Record<symbol, { core?: Core }>)[
  (Deno as unknown as { internal: symbol }).internal
];
const core = internal?.core;
if (!core?.serialize || !core?.deserialize) {
  throw new Error("This Deno has no storage serialiser (Deno[Deno.internal].core)");
}
const deserializers = core.getCloneableDeserializers?.();

export function serializeValue(value: unknown): RawValue {
  if (
    ArrayBuffer.isView(value) &&
    Object.prototype.toString.call(value) === "[object Uint8Array]"
  ) {
    return { kind: "bytes", value: value as Uint8Array };
  }
  if (value instanceof Deno.KvU64) return { kind: "u64", value: value.value };
  return { kind: "v8", value: core!.serialize(value, { forStorage: true }) };
}

export function deserializeValue(raw: RawValue): unknown {
  switch (raw.kind) {
    case "v8":
      return core!.deserialize(raw.value, { forStorage: true, deserializers });
    case "bytes":
      return raw.value;
    case "u64":
      return new Deno.KvU64(raw.value);
    case "node-v8":
      // A copy: node:v8 misreads typed arrays inside a view on a larger (pooled) buffer.
      return nodeDeserialize(new Uint8Array(raw.value));
    default:
      throw new TypeError("Invalid value type");
  }
}

/** The JavaScript type a value's error messages name ("Number", "String", "Object"…). */
export function typeName(raw: RawValue): string {
  if (raw.kind === "u64") return "KvU64";
  if (raw.kind === "bytes") return "Uint8Array";
  let v: unknown;
  try {
    v = deserializeValue(raw);
  } catch {
    return "Unknown";
  }
  if (v === null) return "Null";
  if (v === undefined) return "Undefined";
  const t = typeof v;
  if (t !== "object") return t === "bigint" ? "BigInt" : t[0].toUpperCase() + t.slice(1);
  return (v as object).constructor?.name ?? "Object";
}
