import { credentials } from "../api/http.ts";
import {
  deriveDeviceKey,
  newKdfParams,
  open,
  parseSealed,
  seal,
  type Sealed,
  serializeSealed,
} from "../crypto/device_key.ts";
import { closeQCDB, getDeviceId, getToken, putDeviceId, putToken, wipeQCDB } from "../db/qcdb.ts";
import {
  clearAllQcCookies,
  COOKIE_NAMES,
  getCookie,
  newDeviceId,
  refreshQcCookies,
  setCookie,
} from "../lib/cookies.ts";
import { dropRevealed } from "../state/wallet.ts";

/** The unlocked device key: non-extractable, in memory only, gone on lock or reload. */
let deviceKey: CryptoKey | null = null;
export const currentKey = () => deviceKey;

const PIN_FAILS = "qc_pinfail";

/** The device id (cookie first, then QCDB), created once per installation. */
export function ensureDeviceId(): Promise<string> {
  // One at a time: boot starts it without waiting (the first screen does not need the id),
  // and every call that sends the device-id header awaits the same answer.
  if (credentials.deviceId) return Promise.resolve(credentials.deviceId);
  return deviceIdPending ??= readOrMakeDeviceId().finally(() => (deviceIdPending = null));
}
let deviceIdPending: Promise<string> | null = null;

async function readOrMakeDeviceId(): Promise<string> {
  let id = getCookie(COOKIE_NAMES.deviceId) ?? null;
  if (!id) {
    try {
      id = (await getDeviceId()) ?? null;
    } catch { /* QCDB unavailable: a fresh id is fine */ }
  }
  if (!id) id = newDeviceId();
  setCookie(COOKIE_NAMES.deviceId, id);
  try {
    await putDeviceId(id);
  } catch { /* the cookie is enough */ }
  credentials.deviceId = id;
  return id;
}

/** spec §4: a PIN-length cookie means the app starts in PIN-unlock state. */
export function storedPinLength(): number | null {
  const n = Number(getCookie(COOKIE_NAMES.pinLength));
  return Number.isInteger(n) && n >= 4 && n <= 8 && storedSealedCookie() ? n : null;
}

function storedSealedCookie(): Sealed | null {
  const raw = getCookie(COOKIE_NAMES.encToken);
  return raw ? parseSealed(raw) : null;
}

/** The sealed token: cookie first, QCDB as the second copy. */
export async function storedSealed(): Promise<Sealed | null> {
  const c = storedSealedCookie();
  if (c) return c;
  try {
    const rec = await getToken();
    return rec ? parseSealed(rec.token) : null;
  } catch {
    return null;
  }
}

/**
 * Seals the access token under a key derived from the new PIN (random salt, 600k
 * iterations) and stores it in the cookie and in QCDB; the clear token stays in memory.
 */
export async function storeToken(token: string, pin: string): Promise<void> {
  const kdf = newKdfParams();
  const key = await deriveDeviceKey(pin, kdf);
  const sealed = await seal(key, kdf, token);
  const text = serializeSealed(sealed);
  setCookie(COOKIE_NAMES.encToken, text);
  setCookie(COOKIE_NAMES.pinLength, String(pin.length));
  await putToken({ token: text, pin: kdf.salt, pinlength: pin.length });
  deviceKey = key;
  credentials.bearer = token;
  sealedInUse = text;
  resetPinFailures();
}

/** Derives the key from a PIN and opens the sealed token; throws WrongKeyError on a wrong PIN. */
export async function openToken(
  pin: string,
  sealed: Sealed,
): Promise<{ token: string; key: CryptoKey }> {
  const key = await deriveDeviceKey(pin, sealed.kdf);
  const token = await open(key, sealed);
  return { token, key };
}

/**
 * The server rotates the bearer token at every unlock: seal the new one under the same key
 * (same salt and iterations: no second PBKDF2 run) in the cookie and in QCDB.
 */
export async function replaceToken(token: string, key: CryptoKey, sealed: Sealed): Promise<void> {
  const text = serializeSealed(await seal(key, sealed.kdf, token));
  const pinlength = storedPinLength() ?? 6;
  setCookie(COOKIE_NAMES.encToken, text);
  try {
    await putToken({ token: text, pin: sealed.kdf.salt, pinlength });
  } catch { /* the cookie holds it; QCDB's copy is the spare */ }
}

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

export function adoptSession(token: string, key: CryptoKey): void {
  credentials.bearer = token;
  deviceKey = key;
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
