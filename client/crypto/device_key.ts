/**
 * Device encryption: a key derived from the activation PIN encrypts the
 * access token (spec §3: stored cookies hold only the encrypted token) and
 * the cached lists (spec §8: offline fallback is encrypted when encryption is
 * in use). WebCrypto only, so the same module runs in browsers and in Deno
 * tests.
 *
 * Deliberate departure from spec §9 ("PBKDF2 with SHA-256, 1000 iterations …
 * fixed salt label"): a 6-digit PIN has only 10^6 values, so whoever copies the
 * sealed token off the device can try them all offline. With 1000 iterations
 * and a salt shared by every device that costs seconds, and one precomputed
 * table breaks every device at once. A random 16-byte per-device salt removes
 * the shared table and {@link DEFAULT_ITERATIONS} (OWASP 2023 figure for
 * PBKDF2-SHA256) makes each guess cost ~100 ms in a browser, so the whole PIN
 * space costs about a CPU-day per device. That is a cost, not a wall: a
 * GPU still searches 10^6 PINs in minutes, so a stolen sealed token is only
 * as safe as the server's revocation (spec §7: pwacheckregistered,
 * pwaunregister). The parameters travel with the ciphertext
 * ({@link Sealed}), so they can be raised later without breaking devices
 * that already hold a sealed token. Kept from spec §9: SHA-256, AES-GCM with
 * a 256-bit key and a fresh random 12-byte IV per encryption.
 */
import type { EncryptedJson } from "../db/qcdb.ts";

/** OWASP's 2023 recommendation for PBKDF2-HMAC-SHA256. */
export const DEFAULT_ITERATIONS = 600_000;
/**
 * Upper bound accepted from stored parameters, so a corrupted or planted
 * cookie cannot freeze the unlock screen in key derivation.
 */
export const MAX_ITERATIONS = 10_000_000;
/** Per-device salt length in bytes (NIST SP 800-132 asks for at least 16). */
export const SALT_BYTES = 16;
/** spec §9: 12-byte random IV, the size AES-GCM is designed for. */
export const IV_BYTES = 12;
/** AES-GCM appends a 16-byte tag, so no valid ciphertext is shorter. */
const TAG_BYTES = 16;

/** Key-derivation parameters, stored next to what they protect. */
export type KdfParams = {
  alg: "PBKDF2-SHA256";
  iterations: number;
  /** base64url, {@link SALT_BYTES} bytes. */
  salt: string;
};

/** A sealed secret with everything needed to open it except the PIN. */
export type Sealed = {
  v: 1;
  kdf: KdfParams;
  /** base64url, {@link IV_BYTES} bytes. */
  iv: string;
  /** base64url ciphertext including the GCM tag. */
  ct: string;
};

/** An encrypted cache value: its shape is QCDB's (client/db/qcdb.ts), made here. */
export type { EncryptedJson };

/**
 * Decryption failed authentication: wrong PIN (hence wrong key) or data that
 * was altered. AES-GCM cannot tell the two apart, and the caller treats both
 * as a failed PIN attempt (spec §4, §8: five failures wipe local data).
 */
export class WrongKeyError extends Error {
  override name = "WrongKeyError";
  constructor(message = "Wrong key or tampered data", options?: ErrorOptions) {
    super(message, options);
  }
}

/** Parameters each key was derived with, to catch sealing under the wrong ones. */
const keyParams = new WeakMap<CryptoKey, KdfParams>();

/**
 * Fresh parameters for a newly activated device (spec §4: needsConfirming).
 * Generate once per device and keep them: every later seal must reuse them or
 * the next unlock derives a different key.
 */
export function newKdfParams(iterations = DEFAULT_ITERATIONS): KdfParams {
  assertIterations(iterations);
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  return { alg: "PBKDF2-SHA256", iterations, salt: toBase64Url(salt) };
}

/**
 * Derives the device's AES-GCM key from the PIN. The key is non-extractable:
 * script running later in the page can use it while it is held, but cannot
 * read it out and send it away.
 */
export async function deriveDeviceKey(
  pin: string,
  params: KdfParams,
): Promise<CryptoKey> {
  if (typeof pin !== "string" || pin.length === 0) {
    throw new TypeError("PIN must be a non-empty string");
  }
  const salt = checkKdf(params);
  const base = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(pin),
    "PBKDF2",
    false,
    ["deriveKey"],
  );
  const key = await crypto.subtle.deriveKey(
    { name: "PBKDF2", hash: "SHA-256", salt, iterations: params.iterations },
    base,
    { name: "AES-GCM", length: 256 },
    false, // never extractable
    // wrap/unwrap: since data keys (client/crypto/data_key.ts) it wraps the data key; a
    // device sealed before them still has its token under this key (encrypt/decrypt).
    ["encrypt", "decrypt", "unwrapKey"],
  );
  keyParams.set(key, { ...params });
  return key;
}

/**
 * Encrypts `plaintext` (the access token) and records the KDF parameters with
 * it, so unlocking needs only the stored value and the PIN.
 */
export async function seal(
  key: CryptoKey,
  kdf: KdfParams,
  plaintext: string,
): Promise<Sealed> {
  checkKdf(kdf);
  const derivedWith = keyParams.get(key);
  if (
    derivedWith &&
    (derivedWith.salt !== kdf.salt ||
      derivedWith.iterations !== kdf.iterations)
  ) {
    // Storing other parameters would make the next unlock derive another key.
    throw new TypeError("seal: key was derived with different KDF parameters");
  }
  const { iv, ct } = await encryptBytes(
    key,
    new TextEncoder().encode(plaintext),
  );
  return { v: 1, kdf: { ...kdf }, iv, ct };
}

/**
 * Decrypts a sealed value. Throws {@link WrongKeyError} when authentication
 * fails (wrong PIN or altered data), TypeError when `sealed` is malformed.
 */
export async function open(key: CryptoKey, sealed: Sealed): Promise<string> {
  if (sealed?.v !== 1) throw new TypeError("open: unsupported sealed version");
  checkKdf(sealed.kdf);
  return new TextDecoder().decode(await decryptBytes(key, sealed));
}

/**
 * Encrypts any JSON value for the local cache (spec §8: offline fallback),
 * each time under a fresh IV.
 */
export async function encryptJson(
  key: CryptoKey,
  value: unknown,
): Promise<EncryptedJson> {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError("encryptJson: not JSON-able");
  return await encryptBytes(key, new TextEncoder().encode(json));
}

/**
 * Decrypts a cached value. Returns `unknown` on purpose: cached data crossed a
 * storage boundary and is parsed with the API schema before use.
 */
export async function decryptJson(
  key: CryptoKey,
  blob: EncryptedJson,
): Promise<unknown> {
  return JSON.parse(new TextDecoder().decode(await decryptBytes(key, blob)));
}

/**
 * Compact, cookie-safe form `v1.<iterations>.<salt>.<iv>.<ct>`: base64url
 * never contains `.`, `;`, `,`, `=` or spaces, so no quoting is needed (spec
 * §3: the encrypted token is a stored cookie).
 */
export function serializeSealed(s: Sealed): string {
  if (s.v !== 1) throw new TypeError("serializeSealed: unsupported version");
  checkKdf(s.kdf);
  checkBytes(s.iv, IV_BYTES, IV_BYTES, "iv");
  checkBytes(s.ct, TAG_BYTES, Infinity, "ct");
  return `v1.${s.kdf.iterations}.${s.kdf.salt}.${s.iv}.${s.ct}`;
}

/** Cookies are capped near 4 KB; anything longer is not ours. */
const MAX_SERIALIZED = 4096;

/**
 * Reads {@link serializeSealed} output back; `null` for anything else. Cookie
 * values are outside input (other code on the domain, extensions, truncation),
 * so every part is checked rather than trusted.
 */
export function parseSealed(str: string): Sealed | null {
  if (typeof str !== "string" || str.length > MAX_SERIALIZED) return null;
  const parts = str.split(".");
  if (parts.length !== 5 || parts[0] !== "v1") return null;
  const [, iterText, salt, iv, ct] = parts;
  if (!/^[1-9][0-9]{0,7}$/.test(iterText)) return null;
  const iterations = Number(iterText);
  if (iterations > MAX_ITERATIONS) return null;
  if (
    !isBytes(salt, SALT_BYTES, SALT_BYTES) ||
    !isBytes(iv, IV_BYTES, IV_BYTES) ||
    !isBytes(ct, TAG_BYTES, Infinity)
  ) {
    return null;
  }
  return { v: 1, kdf: { alg: "PBKDF2-SHA256", iterations, salt }, iv, ct };
}

// ---- internals -------------------------------------------------------------

/** AES-GCM under a fresh random IV (shared with client/crypto/data_key.ts). */
export async function encryptBytes(
  key: CryptoKey,
  data: Uint8Array<ArrayBuffer>,
): Promise<EncryptedJson> {
  // spec §9: 12-byte random IV, new for every encryption (GCM breaks on reuse).
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const ct = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, data);
  return { iv: toBase64Url(iv), ct: toBase64Url(new Uint8Array(ct)) };
}

/** AES-GCM decryption; WrongKeyError when the tag does not verify. */
export async function decryptBytes(
  key: CryptoKey,
  blob: EncryptedJson,
): Promise<ArrayBuffer> {
  const iv = checkBytes(blob?.iv, IV_BYTES, IV_BYTES, "iv");
  const ct = checkBytes(blob?.ct, TAG_BYTES, Infinity, "ct");
  return await crypto.subtle.decrypt({ name: "AES-GCM", iv }, key, ct).catch(wrongKey);
}

/**
 * WebCrypto reports a failed GCM tag check (wrong key, altered data) as OperationError: that
 * becomes WrongKeyError; anything else (wrong key type, …) is a bug and is rethrown as is.
 */
export function wrongKey(e: unknown): never {
  if (e instanceof DOMException && e.name === "OperationError") {
    throw new WrongKeyError(undefined, { cause: e });
  }
  throw e;
}

function assertIterations(n: number): void {
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_ITERATIONS) {
    throw new RangeError(`PBKDF2 iterations must be 1..${MAX_ITERATIONS}`);
  }
}

function checkKdf(p: KdfParams): Uint8Array<ArrayBuffer> {
  if (p?.alg !== "PBKDF2-SHA256") throw new TypeError("unsupported KDF");
  assertIterations(p.iterations);
  return checkBytes(p.salt, SALT_BYTES, SALT_BYTES, "salt");
}

/** base64url of `min`..`max` bytes, or TypeError naming `what`. */
export function checkBytes(
  s: unknown,
  min: number,
  max: number,
  what: string,
): Uint8Array<ArrayBuffer> {
  const bytes = typeof s === "string" ? fromBase64Url(s) : null;
  if (!bytes || bytes.length < min || bytes.length > max) {
    throw new TypeError(`malformed ${what}`);
  }
  return bytes;
}

/** Whether `s` is base64url of `min`..`max` bytes. */
export function isBytes(s: string, min: number, max: number): boolean {
  const bytes = fromBase64Url(s);
  return bytes !== null && bytes.length >= min && bytes.length <= max;
}

/** base64url without padding (RFC 4648 §5); btoa exists in browsers and Deno. */
export function toBase64Url(bytes: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * Strict base64url decoding: `null` on any character outside the alphabet,
 * padding, impossible lengths or non-canonical trailing bits, so one stored
 * value has exactly one spelling.
 */
export function fromBase64Url(s: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]*$/.test(s) || s.length % 4 === 1) return null;
  // Canonical: the bits after the last whole byte must be zero. Checked on the last
  // character instead of re-encoding (cache blobs are megabytes).
  const rest = s.length % 4;
  if (rest) {
    const last = B64URL.indexOf(s[s.length - 1]);
    if (last & (rest === 2 ? 0x0f : 0x03)) return null;
  }
  // Native where the browser has it (Chromium 140, Safari 18.2, Firefox 133): a cached list
  // of 2,000 requests is ~1 MB of base64url, ~20 ms through atob and a loop, ~1 ms here.
  // Alphabet, padding and trailing bits were checked above; this never skips a character.
  const native = (Uint8Array as unknown as {
    fromBase64?: (s: string, o: { alphabet: "base64url" }) => Uint8Array<ArrayBuffer>;
  }).fromBase64;
  if (native) {
    try {
      return native(s, { alphabet: "base64url" });
    } catch {
      return null;
    }
  }
  const b64 = s.replace(/-/g, "+").replace(/_/g, "/");
  let bin: string;
  try {
    bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  } catch {
    return null;
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
