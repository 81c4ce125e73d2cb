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
 * The data key held in memory is non-extractable; only unwrapDataKey (data_key_ops.ts) with
 * `extractable` (to add wrapper 2 right after an unlock) ever makes it exportable, and that
 * copy is used once for wrapping and dropped. This module only parses and serializes (first
 * load); the operations are in data_key_ops.ts (its own chunk).
 */
import {
  type EncryptedJson,
  isBytes,
  IV_BYTES,
  type KdfParams,
  MAX_ITERATIONS,
  SALT_BYTES,
  type Sealed,
} from "./device_key.ts";

const TAG_BYTES = 16;
/** A 256-bit key wrapped with AES-GCM: 32 bytes plus the tag. */
export const WRAPPED_BYTES = 32 + TAG_BYTES;

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
 * Cookie-safe text, `v2.<iterations>.<salt>.<wrapIv>.<wrapCt>.<iv>.<ct>` (spec §3: the
 * encrypted token is a stored cookie; base64url has no `.`, `;`, `,`, `=` or spaces). Only
 * v2 is ever written, always from values data_key_ops.ts made.
 */
export function serializeV2(s: SealedV2): string {
  return `v2.${s.kdf.iterations}.${s.kdf.salt}.${s.wrap.iv}.${s.wrap.ct}.${s.iv}.${s.ct}`;
}

/**
 * Reads either format back (v1: `v1.<iterations>.<salt>.<iv>.<ct>`); `null` for anything
 * else. Cookie values are outside input, so every part is checked rather than trusted.
 */
export function parseAny(str: string): AnySealed | null {
  const p = typeof str === "string" && str.length <= 4096 ? str.split(".") : [];
  const v2 = p[0] === "v2";
  // Byte sizes of the parts after the iterations: salt, (wrapped key's IV and ciphertext,) IV,
  // and the ciphertext, which has at least the GCM tag.
  const sizes = v2 ? [SALT_BYTES, IV_BYTES, WRAPPED_BYTES, IV_BYTES] : [SALT_BYTES, IV_BYTES];
  if (
    (!v2 && p[0] !== "v1") || p.length !== sizes.length + 3 ||
    !/^[1-9][0-9]{0,7}$/.test(p[1]) || Number(p[1]) > MAX_ITERATIONS ||
    sizes.some((n, i) => !isBytes(p[i + 2], n, n)) || !isBytes(p[p.length - 1], TAG_BYTES, Infinity)
  ) {
    return null;
  }
  const kdf: KdfParams = { alg: "PBKDF2-SHA256", iterations: Number(p[1]), salt: p[2] };
  const [iv, ct] = p.slice(-2);
  return v2 ? { v: 2, kdf, wrap: { iv: p[3], ct: p[4] }, iv, ct } : { v: 1, kdf, iv, ct };
}
