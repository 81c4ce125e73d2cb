/**
 * The data key (spec §8, §9 encryption, extended): a random AES-GCM key encrypts the access
 * token and every cached list. It is never stored in clear; it is stored *wrapped*:
 *
 * - wrapper 1, always: under the key derived from the PIN (PBKDF2, client/crypto/device_key.ts),
 *   inside the sealed token (`v2.…`, cookie and QCDB);
 * - wrapper 2, when the user turns on passkey unlock: under a key derived through HKDF from the
 *   passkey's WebAuthn PRF output ({@link PasskeyWrap}, QCDB only).
 *
 * Both wrap the same key, so either unlocks the same cache: a second way in, not a second
 * cache, and the PIN always keeps working (the WebAuthn spec's editors warn against a passkey
 * being the only key to encrypted data). Devices sealed before this (`v1.…`: the token under
 * the PIN key itself) are still read and are moved to this format at the next PIN unlock.
 *
 * The data key held in memory is non-extractable; only {@link unwrapDataKey} with
 * `extractable` (to add wrapper 2 right after an unlock) ever makes it exportable, and that
 * copy is used once for wrapping and dropped.
 */
import {
  checkKdfParams,
  type EncryptedJson,
  fromBase64Url,
  IV_BYTES,
  type KdfParams,
  MAX_ITERATIONS,
  parseSealed,
  SALT_BYTES,
  type Sealed,
  serializeSealed,
  toBase64Url,
  WrongKeyError,
} from "./device_key.ts";

const TAG_BYTES = 16;
/** A 256-bit key wrapped with AES-GCM: 32 bytes plus the tag. */
const WRAPPED_BYTES = 32 + TAG_BYTES;
const AES = { name: "AES-GCM", length: 256 } as const;
const DATA_USES: KeyUsage[] = ["encrypt", "decrypt"];

/** The token under the data key, the data key under the PIN key (wrapper 1). */
export type SealedV2 = {
  v: 2;
  kdf: KdfParams;
  /** The data key wrapped by the PIN key. */
  wrap: EncryptedJson;
  /** base64url IV of the token's encryption under the data key. */
  iv: string;
  /** base64url ciphertext (with tag) of the token. */
  ct: string;
};

/** Either format a device may hold: v1 (before data keys) is read, only v2 is written. */
export type AnySealed = Sealed | SealedV2;

/**
 * Wrapper 2: the data key under a key derived from the passkey's PRF output. Stored in QCDB
 * next to the sealed token; the PRF output itself is never stored.
 */
export type PasskeyWrap = {
  v: 1;
  /** base64url WebAuthn credential id, to ask the browser for this very passkey. */
  credentialId: string;
  /** base64url HKDF salt, random per wrapper. */
  salt: string;
  iv: string;
  ct: string;
};

/**
 * The PRF extension's input (`eval.first`): fixed, so each unlock gets the same output from
 * the passkey. The browser hashes it with its own "WebAuthn PRF" context before use.
 */
export const PRF_INPUT = new TextEncoder().encode("QCard passkey PRF input v1");
/** HKDF `info`: versioned, so a later scheme derives unrelated keys from the same output. */
export const HKDF_INFO = new TextEncoder().encode("QCard data-key wrap/passkey-prf/v1");

/**
 * A new data key, wrapped by `pinKey`, with the token sealed under it (activation, or moving a
 * v1 device to this format). Returns the non-extractable key to use while unlocked.
 */
export async function sealNew(
  pinKey: CryptoKey,
  kdf: KdfParams,
  token: string,
): Promise<{ sealed: SealedV2; dataKey: CryptoKey }> {
  checkKdfParams(kdf);
  const raw = crypto.getRandomValues(new Uint8Array(32));
  try {
    const wrap = await encrypt(pinKey, raw);
    const dataKey = await crypto.subtle.importKey("raw", raw, AES, false, DATA_USES);
    const { iv, ct } = await encrypt(dataKey, new TextEncoder().encode(token));
    return { sealed: { v: 2, kdf: { ...kdf }, wrap, iv, ct }, dataKey };
  } finally {
    raw.fill(0);
  }
}

/** The token sealed again under the same data key and wrapper (token rotation). */
export async function reseal(dataKey: CryptoKey, sealed: SealedV2, token: string) {
  const { iv, ct } = await encrypt(dataKey, new TextEncoder().encode(token));
  return { ...sealed, iv, ct } satisfies SealedV2;
}

/**
 * Unwraps a data key with the key of one of its wrappers. WrongKeyError when the wrapping key
 * is not the right one (wrong PIN, other passkey) or the wrapper was altered.
 */
export async function unwrapDataKey(
  wrappingKey: CryptoKey,
  wrap: EncryptedJson,
  extractable = false,
): Promise<CryptoKey> {
  const iv = bytes(wrap?.iv, IV_BYTES, IV_BYTES, "iv");
  const ct = bytes(wrap?.ct, WRAPPED_BYTES, WRAPPED_BYTES, "wrapped key");
  try {
    return await crypto.subtle.unwrapKey(
      "raw",
      ct,
      wrappingKey,
      { name: "AES-GCM", iv },
      AES,
      extractable,
      DATA_USES,
    );
  } catch (e) {
    if (e instanceof DOMException && e.name === "OperationError") {
      throw new WrongKeyError(undefined, { cause: e });
    }
    throw e;
  }
}

/** Opens a v2 sealed token with the data key. */
export async function openWithDataKey(dataKey: CryptoKey, sealed: SealedV2): Promise<string> {
  return new TextDecoder().decode(await decrypt(dataKey, sealed));
}

/**
 * The wrapping key of wrapper 2: HKDF-SHA256 over the PRF output, with the wrapper's salt and
 * {@link HKDF_INFO}. Non-extractable; the caller drops the PRF output right after.
 */
export async function passkeyWrappingKey(
  prfOutput: BufferSource,
  salt: Uint8Array<ArrayBuffer>,
): Promise<CryptoKey> {
  const ikm = await crypto.subtle.importKey("raw", prfOutput, "HKDF", false, ["deriveKey"]);
  return await crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt, info: HKDF_INFO },
    ikm,
    AES,
    false,
    ["wrapKey", "unwrapKey", "encrypt", "decrypt"],
  );
}

/**
 * Wrapper 2 for `extractableDataKey` (from {@link unwrapDataKey} with `extractable`) under
 * the key derived from `prfOutput`.
 */
export async function newPasskeyWrap(
  extractableDataKey: CryptoKey,
  prfOutput: BufferSource,
  credentialId: string,
): Promise<PasskeyWrap> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const kek = await passkeyWrappingKey(prfOutput, salt);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const ct = await crypto.subtle.wrapKey("raw", extractableDataKey, kek, { name: "AES-GCM", iv });
  return {
    v: 1,
    credentialId,
    salt: toBase64Url(salt),
    iv: toBase64Url(iv),
    ct: toBase64Url(new Uint8Array(ct)),
  };
}

/** The data key from wrapper 2 and the PRF output; WrongKeyError for any other output. */
export async function openPasskeyWrap(wrap: PasskeyWrap, prfOutput: BufferSource) {
  if (!isPasskeyWrap(wrap)) throw new TypeError("malformed passkey wrapper");
  const kek = await passkeyWrappingKey(prfOutput, fromBase64Url(wrap.salt)!);
  return await unwrapDataKey(kek, wrap);
}

/** Whether a value read from QCDB is a usable {@link PasskeyWrap}. */
export function isPasskeyWrap(w: unknown): w is PasskeyWrap {
  const p = w as PasskeyWrap;
  return !!p && p.v === 1 && typeof p.credentialId === "string" &&
    /^[A-Za-z0-9_-]{16,1364}$/.test(p.credentialId) &&
    isBytes(p.salt, SALT_BYTES, SALT_BYTES) && isBytes(p.iv, IV_BYTES, IV_BYTES) &&
    isBytes(p.ct, WRAPPED_BYTES, WRAPPED_BYTES);
}

/**
 * Re-encrypts one cached blob from `from` to `to`, bytes for bytes (moving a v1 device's
 * cache to its new data key). WrongKeyError when `from` does not open it.
 */
export async function reencrypt(
  from: CryptoKey,
  to: CryptoKey,
  blob: EncryptedJson,
): Promise<EncryptedJson> {
  return await encrypt(to, new Uint8Array(await decrypt(from, blob)));
}

/**
 * Cookie-safe text, `v2.<iterations>.<salt>.<wrapIv>.<wrapCt>.<iv>.<ct>` (spec §3: the
 * encrypted token is a stored cookie); v1 values are written as they always were.
 */
export function serializeAny(s: AnySealed): string {
  if (s.v === 1) return serializeSealed(s);
  checkKdfParams(s.kdf);
  bytes(s.wrap.iv, IV_BYTES, IV_BYTES, "wrap iv");
  bytes(s.wrap.ct, WRAPPED_BYTES, WRAPPED_BYTES, "wrap ct");
  bytes(s.iv, IV_BYTES, IV_BYTES, "iv");
  bytes(s.ct, TAG_BYTES, Infinity, "ct");
  return `v2.${s.kdf.iterations}.${s.kdf.salt}.${s.wrap.iv}.${s.wrap.ct}.${s.iv}.${s.ct}`;
}

/** Reads either format back; `null` for anything else (cookies are outside input). */
export function parseAny(str: string): AnySealed | null {
  if (typeof str !== "string" || str.length > 4096) return null;
  if (!str.startsWith("v2.")) return parseSealed(str);
  const parts = str.split(".");
  if (parts.length !== 7) return null;
  const [, iterText, salt, wiv, wct, iv, ct] = parts;
  if (!/^[1-9][0-9]{0,7}$/.test(iterText)) return null;
  const iterations = Number(iterText);
  if (iterations > MAX_ITERATIONS) return null;
  if (
    !isBytes(salt, SALT_BYTES, SALT_BYTES) || !isBytes(wiv, IV_BYTES, IV_BYTES) ||
    !isBytes(wct, WRAPPED_BYTES, WRAPPED_BYTES) || !isBytes(iv, IV_BYTES, IV_BYTES) ||
    !isBytes(ct, TAG_BYTES, Infinity)
  ) {
    return null;
  }
  return {
    v: 2,
    kdf: { alg: "PBKDF2-SHA256", iterations, salt },
    wrap: { iv: wiv, ct: wct },
    iv,
    ct,
  };
}

// ---- internals -------------------------------------------------------------

async function encrypt(key: CryptoKey, data: Uint8Array<ArrayBuffer>): Promise<EncryptedJson> {
  // spec §9: a fresh random 12-byte IV for every encryption.
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const ct = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, data);
  return { iv: toBase64Url(iv), ct: toBase64Url(new Uint8Array(ct)) };
}

async function decrypt(key: CryptoKey, blob: EncryptedJson): Promise<ArrayBuffer> {
  const iv = bytes(blob?.iv, IV_BYTES, IV_BYTES, "iv");
  const ct = bytes(blob?.ct, TAG_BYTES, Infinity, "ct");
  try {
    return await crypto.subtle.decrypt({ name: "AES-GCM", iv }, key, ct);
  } catch (e) {
    if (e instanceof DOMException && e.name === "OperationError") {
      throw new WrongKeyError(undefined, { cause: e });
    }
    throw e;
  }
}

function bytes(s: unknown, min: number, max: number, what: string): Uint8Array<ArrayBuffer> {
  const b = typeof s === "string" ? fromBase64Url(s) : null;
  if (!b || b.length < min || b.length > max) throw new TypeError(`malformed ${what}`);
  return b;
}

function isBytes(s: unknown, min: number, max: number): boolean {
  const b = typeof s === "string" ? fromBase64Url(s) : null;
  return !!b && b.length >= min && b.length <= max;
}
