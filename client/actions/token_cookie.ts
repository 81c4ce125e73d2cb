import { type AnySealed, parseAny } from "../crypto/data_key.ts";
import { COOKIE_NAMES, getCookie } from "../lib/cookies.ts";

// The sealed token's cookie copy, read without QCDB or WebCrypto: what the first screen needs
// (spec §4: a PIN length cookie means start in PIN-unlock state), in the first load; the rest
// of the device's keeping (client/actions/device.ts) comes with start-up, after the first
// render.

/**
 * One copy of the sealed token with its version (spec §4 PIN unlock). Phones kill PWAs and
 * Chromium writes cookies to disk only every ~30 s, so after a kill the cookie may hold an
 * older token than QCDB: QCDB is written first (strict durability), the cookie mirrors it,
 * and of the two the copy with the higher `rev` wins.
 */
export interface TokenCopy {
  text: string;
  sealed: AnySealed;
  rev: number;
  pinlength: number;
}

export const validLength = (n: number) => Number.isInteger(n) && n >= 4 && n <= 8;

/** The cookie's copy: `<sealed>~<rev>` (a cookie from before versions has rev 0). */
export function cookieCopy(): TokenCopy | null {
  const raw = getCookie(COOKIE_NAMES.encToken);
  const pinlength = Number(getCookie(COOKIE_NAMES.pinLength));
  if (!raw || !validLength(pinlength)) return null;
  const cut = raw.lastIndexOf("~");
  const text = cut < 0 ? raw : raw.slice(0, cut);
  const rev = cut < 0 ? 0 : Number(raw.slice(cut + 1));
  const sealed = parseAny(text);
  return sealed && Number.isSafeInteger(rev) && rev >= 0 ? { text, sealed, rev, pinlength } : null;
}

/**
 * spec §4: the PIN length the cookies hold, null when they hold no sealed token (then the device
 * asks QCDB at start-up: client/actions/device.ts durablePinLength).
 */
export function cookiePinLength(): number | null {
  return cookieCopy()?.pinlength ?? null;
}
