import { session } from "../shared/contract/session.ts";
import { call, credentials } from "../api/http.ts";
import { COOKIE_NAMES, deleteCookie, getCookie, setCookie } from "../lib/cookies.ts";
import { fromBase64Url } from "../crypto/device_key.ts";
import { t } from "../i18n/index.ts";
import { pushBanner } from "../state/ui.ts";

// Web push on this device (spec §2 Options push toggle, §3 push registration and
// the push-registered cookie, §7 pwaregisterpushtoken, §8 deregistration failure only
// logged, §9 push token refresh after 7 days and registration timeout 10 s).

/** spec §9: the push registration is refreshed after 7 days. */
export const PUSH_REFRESH_MS = 7 * 24 * 60 * 60 * 1000;
/** spec §9: installation registration timeout 10 s. */
export const PUSH_TIMEOUT_MS = 10_000;

export function isIOS(): boolean {
  return /iPad|iPhone|iPod/.test(navigator.userAgent) ||
    (navigator.platform === "MacIntel" && navigator.maxTouchPoints > 1);
}
export function isMobileOS(): boolean {
  return isIOS() || /Android/i.test(navigator.userAgent);
}

/**
 * spec §2: the push toggle shows only when the options were not opened from the home (PIN)
 * screen and on Android or iOS; it also needs browser push support and a server key.
 */
export function pushToggleVisible(fromHome: boolean, vapidKey: string | null): boolean {
  return !fromHome && isMobileOS() && "PushManager" in globalThis && Boolean(vapidKey);
}

/**
 * When this device last registered its subscription (ms since the epoch), from the
 * push-registered cookie (spec §3), whose value is that time. A cookie of an older version
 * ("1") reads as long ago, so the next unlock refreshes it.
 */
export function registeredAt(cookie = getCookie(COOKIE_NAMES.push)): number | null {
  if (!cookie) return null;
  const at = Number(cookie);
  return Number.isFinite(at) ? at : 0;
}

export function pushEnabled(): boolean {
  return registeredAt() !== null;
}

/** spec §9: a registration older than 7 days is made again. */
export function registrationStale(at: number | null, now: number): boolean {
  return at !== null && now - at >= PUSH_REFRESH_MS;
}

/** A step that did not answer within {@link PUSH_TIMEOUT_MS}. */
export class PushTimeoutError extends Error {
  constructor() {
    super("push registration timed out");
    this.name = "PushTimeoutError";
  }
}

/** spec §9: a subscription or registration that hangs gives up after 10 s. */
export function withTimeout<T>(p: Promise<T>, ms = PUSH_TIMEOUT_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PushTimeoutError()), ms);
  });
  return Promise.race([p, expired]).finally(() => clearTimeout(timer));
}

function sameKey(a: ArrayBuffer | null | undefined, b: Uint8Array): boolean {
  if (!a || a.byteLength !== b.byteLength) return false;
  const x = new Uint8Array(a);
  return x.every((v, i) => v === b[i]);
}

/**
 * Subscribes (reusing a subscription made with the same server key) and registers it with
 * pwaregisterpushtoken; the cookie then holds the time of this registration.
 */
async function subscribeAndRegister(vapidKey: string): Promise<void> {
  const key = fromBase64Url(vapidKey);
  if (!key) throw new Error("bad server key");
  const reg = await navigator.serviceWorker.ready;
  let sub = await reg.pushManager.getSubscription();
  if (sub && !sameKey(sub.options?.applicationServerKey, key)) {
    await sub.unsubscribe(); // the server's key changed: the old subscription is useless
    sub = null;
  }
  sub ??= await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  await call(session.registerPushToken, {
    body: { pushToken: JSON.stringify(sub), deviceId: credentials.deviceId ?? "", isIOS: isIOS() },
  });
  setCookie(COOKIE_NAMES.push, String(Date.now()));
}

/**
 * The Options toggle turned on. False when it did not happen; the error banner says why
 * (permission refused, timed out, or the server or browser failed).
 */
export async function enablePush(vapidKey: string): Promise<boolean> {
  try {
    // The person answering the browser's question is not timed; the rest is (spec §9).
    if ((await Notification.requestPermission()) !== "granted") {
      pushBanner(t("pushui.denied"));
      return false;
    }
    await withTimeout(subscribeAndRegister(vapidKey));
    return true;
  } catch (err) {
    console.warn("push registration failed", err);
    pushBanner(t(err instanceof PushTimeoutError ? "pushui.timeout" : "options.pushFailed"));
    return false;
  }
}

/**
 * At unlock: a registration older than 7 days is made again (spec §9), so the server keeps a
 * live subscription. Quiet: it is not something the person asked for; a failure is retried
 * at the next unlock. A permission taken back in the browser settings ends the registration.
 */
export async function refreshPush(vapidKey: string | null, now = Date.now()): Promise<void> {
  if (!registrationStale(registeredAt(), now)) return;
  if (typeof Notification !== "undefined" && Notification.permission === "denied") {
    await disablePush();
    return;
  }
  if (!vapidKey || !("PushManager" in globalThis)) return;
  try {
    await withTimeout(subscribeAndRegister(vapidKey));
  } catch (err) {
    console.warn("push registration refresh failed", err);
  }
}

/** The Options toggle turned off. spec §8: a failed push deregistration is only logged. */
export async function disablePush(): Promise<void> {
  deleteCookie(COOKIE_NAMES.push);
  try {
    await withTimeout((async () => {
      const reg = await navigator.serviceWorker.ready;
      await (await reg.pushManager.getSubscription())?.unsubscribe();
      await call(session.registerPushToken, {
        body: { pushToken: "", deviceId: credentials.deviceId ?? "", isIOS: isIOS() },
      });
    })());
  } catch (err) {
    console.warn("push deregistration failed", err);
  }
}
