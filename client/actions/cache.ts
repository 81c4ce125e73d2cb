import type * as z from "zod/mini";
import { NetworkError } from "../api/http.ts";
import { decryptJson, encryptJson } from "../crypto/device_key.ts";
import { type CachedStore, getCached, putCached } from "../db/qcdb.ts";
import { t } from "../i18n/index.ts";
import { dropBanners } from "../state/ui.ts";
import { currentKey } from "./device.ts";

/** Reads a cached value, decrypted with the device key and parsed with its schema. */
export async function readCache<S extends z.ZodMiniType>(
  store: CachedStore,
  key: string,
  schema: S,
): Promise<z.infer<S> | null> {
  const k = currentKey();
  if (!k) return null;
  try {
    const blob = await getCached(store, key);
    if (!blob) return null;
    const r = schema.safeParse(await decryptJson(k, blob));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

/** Stores a value encrypted with the device key (never in clear, spec §8). */
export async function writeCache(store: CachedStore, key: string, value: unknown): Promise<void> {
  const k = currentKey();
  if (!k) return;
  try {
    await putCached(store, key, await encryptJson(k, value));
  } catch (err) {
    console.warn("cache write failed", err);
  }
}

/**
 * The data layer's one pattern (spec §1, §8; GUIDE "local first"): show the cached copy at
 * once, fetch, store and show the fresh copy; when the network fails keep the cached one.
 * `show` is called once or twice; the result says where the last shown data came from.
 */
export async function cacheFirst<S extends z.ZodMiniType>(opts: {
  store: CachedStore;
  key: string;
  schema: S;
  fetch: () => Promise<z.infer<S>>;
  show: (data: z.infer<S>, from: "cache" | "network") => void;
  /** After a write the screen is newer than the cache: do not show the cached copy first. */
  networkFirst?: boolean;
}): Promise<"network" | "cache" | "none"> {
  let cached: z.infer<S> | null = null;
  const readCached = async () => {
    cached = await readCache(opts.store, opts.key, opts.schema);
    if (cached) opts.show(cached, "cache");
  };
  if (!opts.networkFirst) await readCached();
  try {
    const fresh = await opts.fetch();
    // The server answers again: 'offline' and 'could not be reached' messages are stale.
    dropBanners([t("common.offline"), t("common.networkError")]);
    opts.show(fresh, "network");
    await writeCache(opts.store, opts.key, fresh);
    return "network";
  } catch (err) {
    if (!(err instanceof NetworkError)) throw err;
    if (opts.networkFirst) await readCached();
    return cached ? "cache" : "none";
  }
}
