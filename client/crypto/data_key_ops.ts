/**
 * The data key's operations (client/crypto/data_key.ts): making one, unwrapping it, sealing
 * and opening the token under it, moving a cache to it. Its own chunk, fetched when a PIN is
 * entered (in parallel with PBKDF2's ~100 ms) and precached by the service worker, so the
 * first load carries only the parsing. It imports only types (a value import would split the
 * first load's shared chunks). Authentication failures reject with WebCrypto's
 * OperationError; callers turn it into WrongKeyError (device_key.ts wrongKey).
 */
import type { EncryptedJson, KdfParams } from "./device_key.ts";
import type { SealedV2 } from "./data_key.ts";
import type { IDBPDatabase } from "idb";
import type { QCDBSchema } from "../db/qcdb.ts";
import { rewriteCached } from "../db/rewrite.ts";

const AES = { name: "AES-GCM", length: 256 } as const;
const USES: KeyUsage[] = ["encrypt", "decrypt"];

/**
 * A new random data key, wrapped by `pinKey` (wrapper 1), with the token sealed under it.
 * Returns the non-extractable key to use while unlocked; the raw bytes are zeroed.
 */
export async function sealNew(
  pinKey: CryptoKey,
  kdf: KdfParams,
  token: string,
): Promise<{ sealed: SealedV2; dataKey: CryptoKey }> {
  const raw = crypto.getRandomValues(new Uint8Array(32));
  try {
    const wrap = await encrypt(pinKey, raw);
    const dataKey = await crypto.subtle.importKey("raw", raw, AES, false, USES);
    const { iv, ct } = await encrypt(dataKey, new TextEncoder().encode(token));
    return { sealed: { v: 2, kdf: { ...kdf }, wrap, iv, ct }, dataKey };
  } finally {
    raw.fill(0);
  }
}

/**
 * Moves a device sealed before data keys (its token under `pinKey` itself) to a new data key
 * wrapped by `pinKey`: the new sealed token is stored first (`store`: durably, QCDB then the
 * cookie), then every cached blob is re-encrypted from `pinKey` to the data key (a blob a
 * kill leaves behind is a cache miss). Returns the new sealed token and data key.
 */
export async function moveToDataKey(
  pinKey: CryptoKey,
  kdf: KdfParams,
  token: string,
  store: (sealed: SealedV2) => Promise<void>,
  db: () => Promise<IDBPDatabase<QCDBSchema>>,
): Promise<{ sealed: SealedV2; dataKey: CryptoKey }> {
  const next = await sealNew(pinKey, kdf, token);
  await store(next.sealed);
  try {
    await rewriteCached(await db(), (blob) => reencrypt(pinKey, next.dataKey, blob));
  } catch { /* QCDB unavailable: nothing cached to move */ }
  return next;
}

/** The token sealed again under the same data key and wrapper (token rotation). */
export async function reseal(dataKey: CryptoKey, sealed: SealedV2, token: string) {
  const { iv, ct } = await encrypt(dataKey, new TextEncoder().encode(token));
  return { ...sealed, iv, ct } satisfies SealedV2;
}

/**
 * Unwraps a data key with the key of one of its wrappers (the PIN key, or the passkey's);
 * non-extractable unless `extractable` (to wrap it once more, right after an unlock).
 */
export async function unwrapDataKey(
  wrappingKey: CryptoKey,
  wrap: EncryptedJson,
  extractable = false,
): Promise<CryptoKey> {
  const iv = fromB64(wrap.iv);
  return await crypto.subtle.unwrapKey(
    "raw",
    fromB64(wrap.ct),
    wrappingKey,
    { name: "AES-GCM", iv },
    AES,
    extractable,
    USES,
  );
}

/** Opens a v2 sealed token with the data key. */
export async function openWithDataKey(dataKey: CryptoKey, sealed: SealedV2): Promise<string> {
  const iv = fromB64(sealed.iv);
  const clear = await crypto.subtle.decrypt({ name: "AES-GCM", iv }, dataKey, fromB64(sealed.ct));
  return new TextDecoder().decode(clear);
}

/**
 * Re-encrypts one cached blob from `from` to `to`, bytes for bytes (moving a v1 device's
 * cache to its new data key). Rejects when `from` does not open it.
 */
export async function reencrypt(
  from: CryptoKey,
  to: CryptoKey,
  blob: EncryptedJson,
): Promise<EncryptedJson> {
  const iv = fromB64(blob.iv);
  const clear = await crypto.subtle.decrypt({ name: "AES-GCM", iv }, from, fromB64(blob.ct));
  return await encrypt(to, new Uint8Array(clear));
}

/** spec §9: AES-GCM under a fresh random 12-byte IV. */
async function encrypt(key: CryptoKey, data: Uint8Array<ArrayBuffer>): Promise<EncryptedJson> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, data);
  return { iv: toB64(iv), ct: toB64(new Uint8Array(ct)) };
}

function toB64(b: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < b.length; i += 0x8000) {
    bin += String.fromCharCode(...b.subarray(i, i + 0x8000));
  }
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromB64(s: string): Uint8Array<ArrayBuffer> {
  const b64 = s.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(
    atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4)),
    (c) => c.charCodeAt(0),
  );
}
