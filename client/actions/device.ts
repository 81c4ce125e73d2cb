import { credentials } from "../api/http.ts";
import {
  deriveDeviceKey,
  type EncryptedJson,
  newKdfParams,
  wrongKey,
} from "../crypto/device_key.ts";
import { type AnySealed, parseAny, serializeV2 } from "../crypto/data_key.ts";
import {
  closeQCDB,
  getDeviceId,
  getToken,
  openQCDB,
  type PasskeyWrap,
  putDeviceId,
  putToken,
  qcdbExists,
  wipeQCDB,
} from "../db/qcdb.ts";
import {
  clearAllQcCookies,
  COOKIE_NAMES,
  getCookie,
  newDeviceId,
  refreshQcCookies,
  setCookie,
} from "../lib/cookies.ts";
import { dropRevealed } from "../state/wallet.ts";
import { cookieCopy, type TokenCopy, validLength } from "./token_cookie.ts";

/**
 * The unlocked data key (client/crypto/data_key.ts; a device sealed before data keys: its PIN
 * key until the next PIN unlock moves it): non-extractable, in memory only, gone on lock or
 * reload.
 */
let deviceKey: CryptoKey | null = null;
export const currentKey = () => deviceKey;

/**
 * The wrapper this session unlocked through and its wrapping key (PIN key or passkey key):
 * what lets Options add the passkey wrapper without asking for the PIN again. Dropped on lock.
 */
export type Unwrapper = { key: CryptoKey; wrap: EncryptedJson };
let unwrapper: Unwrapper | null = null;

const PIN_FAILS = "qc_pinfail";

/** The device id (QCDB first, then the cookie), created once per installation. */
export function ensureDeviceId(): Promise<string> {
  // One at a time: boot starts it without waiting (the first screen does not need the id),
  // and every call that sends the device-id header awaits the same answer.
  if (credentials.deviceId) return Promise.resolve(credentials.deviceId);
  return deviceIdPending ??= readOrMakeDeviceId().finally(() => (deviceIdPending = null));
}
let deviceIdPending: Promise<string> | null = null;

/**
 * QCDB first, the cookie mirrors it: a cookie written less than ~30 s before the browser was
 * killed may come back with the value it had before (e.g. a wiped installation's id).
 */
async function readOrMakeDeviceId(): Promise<string> {
  const cookie = getCookie(COOKIE_NAMES.deviceId) ?? null;
  let stored: string | null = null;
  try {
    stored = (await getDeviceId()) ?? null;
  } catch { /* QCDB unavailable: the cookie, or a fresh id, is fine */ }
  const id = stored ?? cookie ?? newDeviceId();
  if (stored !== id) {
    try {
      await putDeviceId(id);
    } catch { /* the cookie is enough */ }
  }
  if (cookie !== id) setCookie(COOKIE_NAMES.deviceId, id);
  credentials.deviceId = id;
  return id;
}

/** The data key's operations: their own chunk (client/crypto/data_key_ops.ts). */
const ops = () => import("../crypto/data_key_ops.ts");

/** The newest copy this page has read or written (its `rev` orders the next write). */
let newest: TokenCopy | null = null;

async function dbCopy(): Promise<TokenCopy | null> {
  try {
    const rec = await getToken();
    const sealed = rec ? parseAny(rec.token) : null;
    if (!rec || !sealed || !validLength(rec.pinlength)) return null;
    return { text: rec.token, sealed, rev: rec.rev ?? 0, pinlength: rec.pinlength };
  } catch {
    return null; // QCDB unavailable: the cookie is all there is
  }
}

const cookieValue = (c: TokenCopy) => `${c.text}~${c.rev}`;

/** Makes the cookies mirror `c` (after QCDB held a newer copy, or the cookie was lost). */
function mirror(c: TokenCopy): void {
  if (getCookie(COOKIE_NAMES.encToken) !== cookieValue(c)) {
    setCookie(COOKIE_NAMES.encToken, cookieValue(c));
  }
  if (getCookie(COOKIE_NAMES.pinLength) !== String(c.pinlength)) {
    setCookie(COOKIE_NAMES.pinLength, String(c.pinlength));
  }
}

/**
 * Stores a new sealed token: QCDB first, with strict durability, then the cookies. Its rev
 * is above every copy seen, and at least the time (a cookie of a wiped installation that
 * came back after a kill has a lower one).
 */
async function writeCopy(
  text: string,
  salt: string,
  pinlength: number,
  passkey: PasskeyWrap | null | "keep" = "keep",
): Promise<void> {
  const rev = Math.max(Date.now(), (newest?.rev ?? 0) + 1);
  const copy: TokenCopy = { text, sealed: parseAny(text)!, rev, pinlength };
  try {
    await putToken({ token: text, pin: salt, pinlength, rev }, passkey);
  } catch { /* QCDB unavailable: the cookie is the only copy */ }
  newest = copy;
  mirror(copy);
}

/**
 * spec §4: a PIN-length cookie means the app starts in PIN-unlock state. Synchronous, from
 * the cookies (or a copy read from QCDB earlier); {@link durablePinLength} also asks QCDB.
 */
export function storedPinLength(): number | null {
  return cookieCopy()?.pinlength ?? newest?.pinlength ?? null;
}

/**
 * The PIN length when the device is activated, asking QCDB when the cookies do not say so:
 * a browser killed within ~30 s of the activation comes back without them (spec §4).
 */
export async function durablePinLength(): Promise<number | null> {
  const len = storedPinLength();
  if (len) return len;
  if (!(await qcdbExists())) return null;
  const c = await dbCopy();
  if (!c) return null;
  newest = c;
  mirror(c);
  return c.pinlength;
}

/** The sealed token: the newer of the cookie's and QCDB's copies (the cookie then mirrors it). */
export async function storedSealed(): Promise<AnySealed | null> {
  const [c, d] = [cookieCopy(), await dbCopy()];
  const best = c && d ? (d.rev > c.rev ? d : c) : c ?? d;
  if (!best) return null;
  newest = best;
  if (best !== c) mirror(best);
  return best.sealed;
}

/**
 * Seals the access token under a new random data key wrapped by a key derived from the new
 * PIN (random salt, 600k iterations) and stores it durably in QCDB, then in the cookies; the
 * clear token stays in memory. Resolves once the device can be unlocked after a kill (spec
 * §4). A new installation has no passkey wrapper.
 */
export async function storeToken(token: string, pin: string): Promise<void> {
  const kdf = newKdfParams();
  const pinKey = await deriveDeviceKey(pin, kdf);
  const { sealed, dataKey } = await (await ops()).sealNew(pinKey, kdf, token);
  newest = null; // a new installation: no earlier copy orders this one
  await writeCopy(serializeV2(sealed), kdf.salt, pin.length, null);
  deviceKey = dataKey;
  unwrapper = { key: pinKey, wrap: sealed.wrap };
  credentials.bearer = token;
  sealedInUse = getCookie(COOKIE_NAMES.encToken) ?? null;
  resetPinFailures();
}

/**
 * Derives the key from a PIN and opens the sealed token; throws WrongKeyError on a wrong PIN.
 * `key` is the data key (for a v1 device, the PIN key: {@link replaceToken} moves it).
 */
export async function openToken(
  pin: string,
  sealed: AnySealed,
): Promise<{ token: string; key: CryptoKey; unwrapper: Unwrapper | null }> {
  const pinKey = await deriveDeviceKey(pin, sealed.kdf);
  const o = await ops();
  if (sealed.v === 1) {
    // v1: the token is under the PIN key itself (same AES-GCM layout as under a data key).
    const token = await o.openWithDataKey(pinKey, sealed as never).catch(wrongKey);
    return { token, key: pinKey, unwrapper: null };
  }
  const key = await o.unwrapDataKey(pinKey, sealed.wrap).catch(wrongKey);
  return {
    token: await o.openWithDataKey(key, sealed).catch(wrongKey),
    key,
    unwrapper: { key: pinKey, wrap: sealed.wrap },
  };
}

/**
 * The server rotates the bearer token at every unlock: seal the new one under the same data
 * key (no second PBKDF2 run), durably in QCDB, then in the cookie, before it is used. A
 * device sealed before data keys (`key` is then its PIN key) moves to them here: a new data
 * key wrapped by the PIN key, the token sealed under it, then every cached blob re-encrypted
 * from the PIN key to the data key (a blob a kill leaves behind is a cache miss). Returns the
 * key to hold from now on.
 */
export async function replaceToken(
  token: string,
  key: CryptoKey,
  sealed: AnySealed,
): Promise<CryptoKey> {
  const pinlength = newest?.pinlength ?? storedPinLength() ?? 6;
  if (sealed.v === 2) {
    const text = serializeV2(await (await ops()).reseal(key, sealed, token));
    await writeCopy(text, sealed.kdf.salt, pinlength);
    return key;
  }
  const next = await (await ops()).moveToDataKey(
    key,
    sealed.kdf,
    token,
    (v2) => writeCopy(serializeV2(v2), sealed.kdf.salt, pinlength),
    openQCDB,
  );
  unwrapper = { key, wrap: next.sealed.wrap };
  return next.dataKey;
}

/**
 * The wrapper this session unlocked through, with its wrapping key: what lets Options wrap the
 * data key once more (passkey unlock) without the PIN; null when locked.
 */
export const unlockedThrough = (): Unwrapper | null => (deviceKey ? unwrapper : null);

/** The sealed token this window unlocked with (to tell a rotation in another window). */
let sealedInUse: string | null = null;

/**
 * True when another window of the app unlocked since this one did: it rotated the token, so
 * this window's copy is refused (401) though the device is still registered.
 */
export function unlockedElsewhere(): boolean {
  const now = getCookie(COOKIE_NAMES.encToken) ?? null;
  return !!sealedInUse && !!now && now !== sealedInUse;
}

export function adoptSession(token: string, key: CryptoKey, via: Unwrapper | null = null): void {
  credentials.bearer = token;
  deviceKey = key;
  unwrapper = via ?? unwrapper;
  sealedInUse = getCookie(COOKIE_NAMES.encToken) ?? null;
  // Chromium caps cookie lifetime at 400 days: renew on every unlock.
  refreshQcCookies();
}

/**
 * Locks the app: the key, the token and any revealed card number, CVC or 3-D Secure password
 * are dropped from memory (logout, spec §2 main menu; wipe).
 */
export function lock(): void {
  credentials.bearer = null;
  deviceKey = null;
  unwrapper = null;
  dropRevealed();
}

export function pinFailures(): number {
  return Number(localStorage.getItem(PIN_FAILS) ?? "0") || 0;
}
export function countPinFailure(): number {
  const n = pinFailures() + 1;
  localStorage.setItem(PIN_FAILS, String(n));
  return n;
}
export function resetPinFailures(): void {
  localStorage.removeItem(PIN_FAILS);
}

/** spec §4/§8: wipe every local trace: QCDB, cookies, local storage, runtime caches. */
export async function wipeLocalData(): Promise<void> {
  lock();
  newest = null;
  credentials.deviceId = null;
  clearAllQcCookies();
  try {
    localStorage.clear();
  } catch { /* storage disabled */ }
  try {
    await closeQCDB();
    await wipeQCDB();
  } catch { /* nothing to wipe */ }
}
