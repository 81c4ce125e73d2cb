/**
 * The browser context's service worker, driven through the DevTools protocol, for the push
 * browser tests (as tests/e2e/push_test.ts explains): pushes delivered with
 * `ServiceWorker.deliverPushMessage`, notifications read with `registration.getNotifications()`,
 * and a click on one — on its body or on one of its buttons — dispatched to the worker's handler
 * (an untrusted event: the URLs it asks to open in a new window are recorded, not opened).
 */
import type { BrowserContext, WebWorker } from "puppeteer-core";
import type { Env } from "./harness.ts";

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

export interface ShownNotification {
  title: string;
  body: string;
  tag: string;
  actions: { action: string; title: string }[];
  data: { url: string; links?: Record<string, string> };
}

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
    /** The notifications the worker shows now. */
    async notifications(): Promise<ShownNotification[]> {
      return await (await worker()).evaluate(async () => {
        const reg = (self as unknown as { registration: ServiceWorkerRegistration }).registration;
        return (await reg.getNotifications()).map((n) => ({
          title: n.title,
          body: n.body,
          tag: n.tag,
          actions: [
            ...((n as unknown as { actions?: { action: string; title: string }[] }).actions ?? []),
          ].map((a) => ({ action: a.action, title: a.title })),
          data: n.data,
        }));
      });
    },
    /**
     * A click on the notification with this tag, on its button `action` ("" = its body), given
     * to the worker's handler; the URLs it asked to open in a new window.
     */
    async click(tag: string, action = ""): Promise<string[]> {
      return await (await worker()).evaluate(
        async (tag, action) => {
          // deno-lint-ignore no-explicit-any
          const sw = self as any;
          const opened: string[] = [];
          sw.clients.openWindow = (url: string) => (opened.push(url), Promise.resolve(null));
          const [n] = await sw.registration.getNotifications({ tag });
          if (!n) throw new Error(`no notification ${tag}`);
          let done: Promise<unknown> = Promise.resolve();
          const e = new sw.NotificationEvent("notificationclick", { notification: n, action });
          Object.defineProperty(e, "waitUntil", { value: (p: Promise<unknown>) => (done = p) });
          sw.dispatchEvent(e);
          await done;
          return opened;
        },
        tag,
        action,
      );
    },
  };
}
