/**
 * Wrapper 2 of the data key (client/crypto/data_key.ts): the data key under a key derived
 * through HKDF-SHA256 from the WebAuthn PRF output of the device's passkey. Loaded only where
 * passkeys are used (the unlock screen when one is registered, Options): not in the first load.
 * The PRF output is an argument here and nowhere else: never stored, logged or sent.
 */
import {
  checkBytes,
  fromBase64Url,
  isBytes,
  IV_BYTES,
  SALT_BYTES,
  toBase64Url,
  wrongKey,
} from "./device_key.ts";
import { WRAPPED_BYTES } from "./data_key.ts";
import { unwrapDataKey } from "./data_key_ops.ts";
import type { PasskeyWrap } from "../db/qcdb.ts";

export type { PasskeyWrap };

/**
 * The PRF extension's input (`eval.first`): fixed, so each unlock gets the same output from
 * the passkey. The browser hashes it with its own "WebAuthn PRF" context before use.
 */
export const PRF_INPUT = new TextEncoder().encode("QCard passkey PRF input v1");
/** HKDF `info`: versioned, so a later scheme derives unrelated keys from the same output. */
export const HKDF_INFO = new TextEncoder().encode("QCard data-key wrap/passkey-prf/v1");

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
    { name: "AES-GCM", length: 256 },
    false,
    ["wrapKey", "unwrapKey"],
  );
}

/**
 * Wrapper 2 for `extractableDataKey` (from data_key_ops.ts unwrapDataKey, `extractable`) under the key
 * derived from `prfOutput`, with a fresh random HKDF salt.
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

/**
 * The data key from wrapper 2 and the PRF output (non-extractable), with the wrapping key
 * (kept while unlocked, to let Options rewrap). WrongKeyError for any other output.
 */
export async function openPasskeyWrap(
  wrap: PasskeyWrap,
  prfOutput: BufferSource,
): Promise<{ dataKey: CryptoKey; kek: CryptoKey }> {
  if (!isPasskeyWrap(wrap)) throw new TypeError("malformed passkey wrapper");
  const kek = await passkeyWrappingKey(prfOutput, checkBytes(wrap.salt, 16, 16, "salt"));
  return { dataKey: await unwrapDataKey(kek, wrap).catch(wrongKey), kek };
}

/** Whether a value read from QCDB is a usable {@link PasskeyWrap}. */
export function isPasskeyWrap(w: unknown): w is PasskeyWrap {
  const p = w as PasskeyWrap;
  return !!p && p.v === 1 && typeof p.credentialId === "string" &&
    /^[A-Za-z0-9_-]{16,1364}$/.test(p.credentialId) && fromBase64Url(p.credentialId) !== null &&
    isBytes(p.salt, SALT_BYTES, SALT_BYTES) && isBytes(p.iv, IV_BYTES, IV_BYTES) &&
    isBytes(p.ct, WRAPPED_BYTES, WRAPPED_BYTES);
}
