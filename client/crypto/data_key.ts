/**
 * The data key (spec §8, §9 encryption, extended): a random AES-GCM key encrypts the access
 * token and every cached list. It is never stored in clear; it is stored *wrapped*:
 *
 * - wrapper 1, always: under the key derived from the PIN (PBKDF2, client/crypto/device_key.ts),
 *   inside the sealed token (`v2.…`, cookie and QCDB);
 * - wrapper 2, when the user turns on passkey unlock: under a key derived through HKDF from the
 *   passkey's WebAuthn PRF output (client/crypto/passkey_wrap.ts, QCDB only, loaded only when
 *   a passkey is in use).
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
  checkBytes,
  decryptBytes,
  encryptBytes,
  type EncryptedJson,
  isBytes,
  IV_BYTES,
  type KdfParams,
  MAX_ITERATIONS,
  SALT_BYTES,
  type Sealed,
  WrongKeyError,
} from "./device_key.ts";

const TAG_BYTES = 16;
/** A 256-bit key wrapped with AES-GCM: 32 bytes plus the tag. */
export const WRAPPED_BYTES = 32 + TAG_BYTES;
/** The data key's algorithm and uses (client/crypto/data_key_new.ts makes new ones). */
export const AES = { name: "AES-GCM", length: 256 } as const;
export const DATA_USES: KeyUsage[] = ["encrypt", "decrypt"];

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

/** The token sealed again under the same data key and wrapper (token rotation). */
export async function reseal(dataKey: CryptoKey, sealed: SealedV2, token: string) {
  const { iv, ct } = await encryptBytes(dataKey, new TextEncoder().encode(token));
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
  const iv = checkBytes(wrap?.iv, IV_BYTES, IV_BYTES, "iv");
  const ct = checkBytes(wrap?.ct, WRAPPED_BYTES, WRAPPED_BYTES, "wrapped key");
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
  return new TextDecoder().decode(await decryptBytes(dataKey, sealed));
}

/**
 * Cookie-safe text, `v2.<iterations>.<salt>.<wrapIv>.<wrapCt>.<iv>.<ct>` (spec §3: the
 * encrypted token is a stored cookie; base64url has no `.`, `;`, `,`, `=` or spaces). Only
 * v2 is ever written, always from values this module or data_key_new.ts made.
 */
export function serializeV2(s: SealedV2): string {
  return `v2.${s.kdf.iterations}.${s.kdf.salt}.${s.wrap.iv}.${s.wrap.ct}.${s.iv}.${s.ct}`;
}

/**
 * Reads either format back (v1: `v1.<iterations>.<salt>.<iv>.<ct>`); `null` for anything
 * else. Cookie values are outside input, so every part is checked rather than trusted.
 */
export function parseAny(str: string): AnySealed | null {
  if (typeof str !== "string" || str.length > 4096) return null;
  const parts = str.split(".");
  const v = parts[0] === "v1" && parts.length === 5
    ? 1
    : parts[0] === "v2" && parts.length === 7
    ? 2
    : 0;
  if (!v) return null;
  const [, iterText, salt] = parts;
  const [iv, ct] = parts.slice(-2);
  if (!/^[1-9][0-9]{0,7}$/.test(iterText) || Number(iterText) > MAX_ITERATIONS) return null;
  const kdf: KdfParams = { alg: "PBKDF2-SHA256", iterations: Number(iterText), salt };
  if (
    !isBytes(salt, SALT_BYTES, SALT_BYTES) || !isBytes(iv, IV_BYTES, IV_BYTES) ||
    !isBytes(ct, TAG_BYTES, Infinity)
  ) {
    return null;
  }
  if (v === 1) return { v, kdf, iv, ct };
  const wrap = { iv: parts[3], ct: parts[4] };
  if (!isBytes(wrap.iv, IV_BYTES, IV_BYTES) || !isBytes(wrap.ct, WRAPPED_BYTES, WRAPPED_BYTES)) {
    return null;
  }
  return { v, kdf, wrap, iv, ct };
}
