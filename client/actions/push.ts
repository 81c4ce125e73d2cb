import { session } from "../api/contract/session.ts";
import { call, credentials } from "../api/http.ts";
import { COOKIE_NAMES, deleteCookie, getCookie, setCookie } from "../lib/cookies.ts";
import { fromBase64Url } from "../crypto/device_key.ts";

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

export function pushEnabled(): boolean {
  return getCookie(COOKIE_NAMES.push) === "1";
}

/** Subscribes this device and registers the subscription (spec §7 pwaregisterpushtoken). */
export async function enablePush(vapidKey: string): Promise<void> {
  if ((await Notification.requestPermission()) !== "granted") throw new Error("permission denied");
  const reg = await navigator.serviceWorker.ready;
  const key = fromBase64Url(vapidKey);
  if (!key) throw new Error("bad server key");
  const sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  await call(session.registerPushToken, {
    body: { pushToken: JSON.stringify(sub), deviceId: credentials.deviceId ?? "", isIOS: isIOS() },
  });
  setCookie(COOKIE_NAMES.push, "1");
}

/** spec §8: a failed push deregistration is only logged. */
export async function disablePush(): Promise<void> {
  deleteCookie(COOKIE_NAMES.push);
  try {
    const reg = await navigator.serviceWorker.ready;
    await (await reg.pushManager.getSubscription())?.unsubscribe();
    await call(session.registerPushToken, {
      body: { pushToken: "", deviceId: credentials.deviceId ?? "", isIOS: isIOS() },
    });
  } catch (err) {
    console.warn("push deregistration failed", err);
  }
}
