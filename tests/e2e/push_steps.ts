/** The push test's instruments: the context's service worker through DevTools, an Android-like page with a stubbed PushManager. */
import type { Page } from "puppeteer-core";
import { click, definePin, type Env, tapDigits, waitText } from "./harness.ts";
import { named } from "./panels.ts";

// The context's service worker through DevTools, and polling: push_worker.ts's.
export { serviceWorker, waitFor } from "./push_worker.ts";

export const EMPLOYEE = "employee@demo.example";
export const PIN = "135790";
export const ANDROID_UA =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";

export const openPanels = (p: Page) => p.$$eval(".side-panel.open", (l) => l.length);

/** What the stubbed PushManager records in the page. */
export interface Stub {
  __push: {
    subscribed: { userVisibleOnly: boolean; key: string }[];
    unsubscribed: number;
    hang: boolean;
  };
}

/** A subscription as a browser would give it: an https endpoint and RFC 8291 keys. */
export const FAKE_SUB = await (async () => {
  const pair = await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, [
    "deriveBits",
  ]) as CryptoKeyPair;
  const b64url = (b: Uint8Array) =>
    btoa(String.fromCharCode(...b)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  return {
    endpoint: "https://push.example.invalid/send/qcard-e2e",
    keys: {
      p256dh: b64url(new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey))),
      auth: b64url(crypto.getRandomValues(new Uint8Array(16))),
    },
  };
})();

/**
 * A fresh page that says it is an Android phone, whose PushManager hands out FAKE_SUB
 * (headless Chromium has no push service), with notifications allowed.
 */
export async function androidPage(env: Env): Promise<Page> {
  const page = await env.newPage();
  await page.browserContext().overridePermissions(env.url, ["notifications"]);
  await page.setUserAgent({ userAgent: ANDROID_UA });
  await page.evaluateOnNewDocument((sub: typeof FAKE_SUB) => {
    const state = { subscribed: [] as unknown[], unsubscribed: 0, hang: false };
    (window as unknown as { __push: typeof state }).__push = state;
    let current: unknown = null;
    const b64url = (b: Uint8Array) =>
      btoa(String.fromCharCode(...b)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    PushManager.prototype.subscribe = function (opts?: PushSubscriptionOptionsInit) {
      if (state.hang) return new Promise(() => {});
      const key = new Uint8Array(opts!.applicationServerKey as Uint8Array);
      state.subscribed.push({ userVisibleOnly: opts!.userVisibleOnly, key: b64url(key) });
      const s = {
        endpoint: sub.endpoint,
        expirationTime: null,
        options: { userVisibleOnly: true, applicationServerKey: key.buffer },
        getKey: () => null,
        toJSON: () => ({ endpoint: sub.endpoint, expirationTime: null, keys: sub.keys }),
        unsubscribe: () => {
          state.unsubscribed++;
          current = null;
          return Promise.resolve(true);
        },
      };
      current = s;
      return Promise.resolve(s as unknown as PushSubscription);
    };
    PushManager.prototype.getSubscription = () =>
      Promise.resolve(current as PushSubscription | null);
  }, FAKE_SUB);
  await page.goto(env.url);
  return page;
}

/** Activation as the harness does it, on a page prepared beforehand. */
export async function activateOn(env: Env, page: Page): Promise<void> {
  await waitText(page, "Enter the 5-digit code");
  await tapDigits(page, await env.latestCode(EMPLOYEE));
  await click(page, "Connect device");
  await definePin(page, PIN);
  await page.locator("::-p-aria(Open menu)").wait();
}

/** Opens Options from the main menu; the push switch. */
export async function openPushSwitch(p: Page) {
  await click(p, "Open menu");
  await click(p, "Options");
  return await named(p, "Push notifications");
}

export async function cookie(p: Page, name: string): Promise<string | null> {
  return (await p.cookies()).find((c) => c.name === name)?.value ?? null;
}
