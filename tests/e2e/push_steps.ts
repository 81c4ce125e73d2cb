/** The push test's instruments: the context's service worker through DevTools, an Android-like page with a stubbed PushManager. */
import type { BrowserContext, Page, WebWorker } from "puppeteer-core";
import { click, definePin, type Env, tapDigits, waitText } from "./harness.ts";
import { named } from "./panels.ts";

export const EMPLOYEE = "employee@demo.example";
export const PIN = "135790";
export const ANDROID_UA =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";

/** The browser context's service worker, driven through the DevTools protocol. */
export async function serviceWorker(env: Env, ctx: BrowserContext) {
  // A page of the context that is not the app (the app's windows stay as the test wants them).
  const holder = await ctx.newPage();
  const cdp = await holder.createCDPSession();
  const registered = new Promise<string>((resolve) => {
    cdp.on("ServiceWorker.workerRegistrationUpdated", (e) => {
      const r = e.registrations.find((r) => r.scopeURL === `${env.url}/` && !r.isDeleted);
      if (r) resolve(r.registrationId);
    });
  });
  await cdp.send("ServiceWorker.enable");
  const registrationId = await registered;
  const worker = async (): Promise<WebWorker> => {
    const target = await ctx.waitForTarget((t) =>
      t.type() === "service_worker" && t.url() === `${env.url}/sw.js`
    );
    return (await target.worker())!;
  };
  return {
    holder,
    /** Delivers a push with this JSON payload, as a push service would. */
    async deliver(payload: unknown) {
      await cdp.send("ServiceWorker.deliverPushMessage", {
        origin: `${env.url}/`,
        registrationId,
        data: JSON.stringify(payload),
      });
    },
    /** How many windows of ours the worker sees (a closed page leaves after a moment). */
    async windows() {
      return await (await worker()).evaluate(async () => {
        const sw = self as unknown as {
          clients: {
            matchAll(o: { type: string; includeUncontrolled: boolean }): Promise<unknown[]>;
          };
        };
        return (await sw.clients.matchAll({ type: "window", includeUncontrolled: true })).length;
      });
    },
    /** The notifications the worker shows now: title, body, tag, data. */
    async notifications() {
      return await (await worker()).evaluate(async () => {
        const reg = (self as unknown as { registration: ServiceWorkerRegistration }).registration;
        return (await reg.getNotifications()).map((n) => ({
          title: n.title,
          body: n.body,
          tag: n.tag,
          data: n.data as { url: string },
        }));
      });
    },
    /**
     * Dispatches a click on the notification with this tag to the worker's handler; the URLs
     * it asked to open in a new window (recorded: see the module's comment).
     */
    async click(tag: string): Promise<string[]> {
      return await (await worker()).evaluate(async (tag) => {
        // deno-lint-ignore no-explicit-any
        const sw = self as any;
        const opened: string[] = [];
        sw.clients.openWindow = (url: string) => (opened.push(url), Promise.resolve(null));
        const [n] = await sw.registration.getNotifications({ tag });
        if (!n) throw new Error(`no notification ${tag}`);
        let done: Promise<unknown> = Promise.resolve();
        const e = new sw.NotificationEvent("notificationclick", { notification: n });
        Object.defineProperty(e, "waitUntil", { value: (p: Promise<unknown>) => (done = p) });
        sw.dispatchEvent(e);
        await done;
        return opened;
      }, tag);
    },
  };
}

/** Polls `fn` until it gives something: 20 s at most (a loaded 2-core machine needs > 10). */
export async function waitFor<T>(what: string, fn: () => Promise<T | null | undefined | false>) {
  const end = Date.now() + 20_000;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

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
