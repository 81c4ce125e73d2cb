import type * as z from "zod/mini";
import { NetworkError } from "../api/http.ts";
import { decryptJson, encryptJson } from "../crypto/device_key.ts";
import { type CachedStore, getCached, putCached } from "../db/qcdb.ts";
import { t } from "../i18n/index.ts";
import { dropBanners } from "../state/ui.ts";
import { currentKey } from "./device.ts";

declare const QC_SOURCE_HASH: string | undefined;

/**
 * The build's source fingerprint (build.ts `sourceHash`); none outside a build. A value is
 * cached with it: what this very code cached was checked against its schema when it arrived
 * (every answer is, api/http.ts) and AES-GCM proves it unchanged since, so reading it back
 * skips the schema check (2,000 requests: a large share of the start from cache). A value
 * cached by another build, or before stamps, is checked as before.
 */
const STAMP = typeof QC_SOURCE_HASH === "string" ? QC_SOURCE_HASH : null;

/** What is encrypted: the value and the fingerprint of the code that cached it. */
interface Stamped {
  qcSource: string;
  value: unknown;
}

const isStamped = (v: unknown): v is Stamped =>
  typeof v === "object" && v !== null && typeof (v as Stamped).qcSource === "string" &&
  "value" in v;

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
    const plain = await decryptJson(k, blob);
    if (isStamped(plain) && STAMP !== null && plain.qcSource === STAMP) {
      return plain.value as z.infer<S>;
    }
    const r = schema.safeParse(isStamped(plain) ? plain.value : plain);
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

/**
 * Stores a value encrypted with the device key (never in clear, spec §8). `value` must be
 * what `readCache`'s schema accepts: it is read back unchecked by the same build.
 */
export async function writeCache(store: CachedStore, key: string, value: unknown): Promise<void> {
  const k = currentKey();
  if (!k) return;
  try {
    const stored: unknown = STAMP === null ? value : { qcSource: STAMP, value } satisfies Stamped;
    await putCached(store, key, await encryptJson(k, stored));
  } catch (err) {
    console.warn("cache write failed", err);
  }
}

/**
 * The data layer's one pattern (spec §1, §8; engineering.md §1 "local first"): show the cached copy
 * at once, fetch, store and show the fresh copy; when the network fails keep the cached one. `show`
 * is called once or twice; the result says where the last shown data came from.
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
