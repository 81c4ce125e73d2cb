/**
 * The app's cookies (spec §3 "Stored cookies", §9 "Cookies last about 12
 * years, same-site strict"). They are read before anything else at start-up
 * (spec §4: a PIN length cookie means start in PIN-unlock state).
 *
 * The spec lists a cookie for the access token in clear; there is none here on
 * purpose. A bearer token in a cookie is readable by any script on the page
 * and sits on disk in clear, so only the encrypted token is stored
 * ({@link COOKIE_NAMES.encToken}, written with `serializeSealed` from
 * `client/crypto/device_key.ts`); the clear token lives in memory while the
 * app is unlocked.
 *
 * The cookie jar is injectable ({@link CookieJar}) so attribute strings are
 * testable without a browser; the default reads `document` lazily, so this
 * module can be imported anywhere.
 */

/** Every cookie the app writes. All share the `qc_` prefix. */
export const COOKIE_NAMES = Object.freeze(
  {
    /** `serializeSealed()` of the access token (spec §3: encrypted token). */
    encToken: "qc_enctoken",
    /** Length of the PIN, "6" (spec §3, §4: its presence means "unlock"). */
    pinLength: "qc_pinlength",
    /** Device id sent as the `device-id` header (spec §6, §7). */
    deviceId: "qc_deviceid",
    /**
     * spec §3: initialisation vector. The sealed token already carries its IV,
     * so current code need not write this; it is named so that
     * {@link clearAllQcCookies} removes it should any version have set it.
     */
    iv: "qc_iv",
    /** "1" once the push subscription is registered (spec §7). */
    push: "qc_push",
  } as const,
);

export type CookieName = (typeof COOKIE_NAMES)[keyof typeof COOKIE_NAMES];

/**
 * The part of `document` + `location` this module uses. Writing `cookie`
 * sets one cookie (with attributes); reading it gives `a=1; b=2`.
 */
export interface CookieJar {
  cookie: string;
  readonly protocol: string;
}

/**
 * spec §9: about 12 years (12 × 365.25 days). Chromium caps cookie lifetime at
 * 400 days whatever is asked, so call {@link refreshQcCookies} after each
 * unlock to keep an active device's cookies alive.
 */
export const COOKIE_MAX_AGE_SECONDS = 12 * 365.25 * 24 * 60 * 60; // 378_691_200

/** The page's own cookie jar; only touched when a helper is called. */
export function browserJar(): CookieJar {
  return {
    get cookie() {
      return document.cookie;
    },
    set cookie(value: string) {
      document.cookie = value;
    },
    get protocol() {
      return location.protocol;
    },
  };
}

/**
 * spec §9: `SameSite=Strict` keeps the cookies out of cross-site requests;
 * `Secure` only over https so http://localhost development still works.
 */
function attributes(jar: CookieJar, maxAge: number): string {
  const secure = jar.protocol === "https:" ? "; Secure" : "";
  return `; Max-Age=${maxAge}; Path=/; SameSite=Strict${secure}`;
}

/** Stores `value` (URI-encoded, so any text is safe) for about 12 years. */
export function setCookie(
  name: CookieName,
  value: string,
  doc: CookieJar = browserJar(),
): void {
  doc.cookie = `${name}=${encodeURIComponent(value)}` +
    attributes(doc, COOKIE_MAX_AGE_SECONDS);
}

/** The decoded value, or `null` when the cookie is absent. */
export function getCookie(
  name: CookieName,
  doc: CookieJar = browserJar(),
): string | null {
  for (const pair of doc.cookie.split(";")) {
    const eq = pair.indexOf("=");
    if (eq < 0 || pair.slice(0, eq).trim() !== name) continue;
    const raw = pair.slice(eq + 1).trim();
    try {
      return decodeURIComponent(raw);
    } catch {
      return raw; // not written by setCookie; give it back untouched
    }
  }
  return null;
}

/** Expires the cookie now; the attributes must match the ones it was set with. */
export function deleteCookie(
  name: CookieName,
  doc: CookieJar = browserJar(),
): void {
  doc.cookie = `${name}=` + attributes(doc, 0);
}

/**
 * Removes every app cookie: 'remove local data' (spec §2 options menu), five
 * wrong PINs (spec §4), or a device no longer registered (spec §7).
 */
export function clearAllQcCookies(doc: CookieJar = browserJar()): void {
  for (const name of Object.values(COOKIE_NAMES)) deleteCookie(name, doc);
}

/**
 * Re-writes the app cookies that exist so their expiry restarts; browsers cap
 * the 12 years of spec §9 (Chromium: 400 days).
 */
export function refreshQcCookies(doc: CookieJar = browserJar()): void {
  for (const name of Object.values(COOKIE_NAMES)) {
    const value = getCookie(name, doc);
    if (value !== null) setCookie(name, value, doc);
  }
}

/**
 * A new random device id (spec §7: `device-id` header on registration calls).
 * `crypto.randomUUID` needs a secure context: https or localhost.
 */
export function newDeviceId(): string {
  return crypto.randomUUID();
}
