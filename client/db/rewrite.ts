/**
 * Rewriting every cached blob of QCDB (client/db/qcdb.ts) at once: a device moving its cache
 * to a new key (client/crypto/data_key.ts). Its own module, loaded only when that happens.
 */
import type { EncryptedJson } from "./qcdb.ts";
import type { IDBPDatabase } from "idb";
import type { CachedBlob, CachedStore, QCDBSchema } from "./qcdb.ts";

/** Every store holding {@link CachedBlob}s. */
export const CACHED_STORES: CachedStore[] = [
  "ledgercodes",
  "projectcodes",
  "costcenters",
  "types",
  "currencylist",
  "lists",
  "approvals",
];

/**
 * Rewrites every cached blob through `change` (a device moving to a new key): all are read,
 * changed outside any transaction (IndexedDB transactions end while crypto is awaited), then
 * written back; a blob `change` answers `null` for is deleted. `db` is QCDB's connection
 * (passed in, so this chunk shares no module with the first load). A blob written meanwhile under
 * the same id is overwritten only if it still holds what was read.
 */
export async function rewriteCached(
  db: IDBPDatabase<QCDBSchema>,
  change: (blob: EncryptedJson) => Promise<EncryptedJson | null>,
): Promise<number> {
  let n = 0;
  for (const store of CACHED_STORES) {
    const recs = await db.getAll(store);
    const out: { rec: CachedBlob; next: EncryptedJson | null }[] = [];
    for (const rec of recs) out.push({ rec, next: await change(rec).catch(() => null) });
    const tx = db.transaction(store, "readwrite");
    const write = async () => {
      for (const { rec, next } of out) {
        const now = await tx.store.get(rec.id!);
        if (!now || now.iv !== rec.iv || now.ct !== rec.ct) continue;
        if (next) await tx.store.put({ ...now, iv: next.iv, ct: next.ct });
        else await tx.store.delete(rec.id!);
        n++;
      }
    };
    await Promise.all([write(), tx.done]);
  }
  return n;
}
