/**
 * 32-bit FNV-1a of bytes, as 8 hex digits: a short, fast, stable tag — how a PostgreSQL commit
 * names a key to its watchers (pg_kv.ts), and the stamp of what an export said of a
 * transaction (server/export/rows.ts). Not a cryptographic hash: nothing secret goes in.
 */
export function fnv1a(bytes: Uint8Array): string {
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0");
}
