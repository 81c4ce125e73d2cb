import puppeteer, { type Browser, type ElementHandle, type Page } from "puppeteer-core";
import { createApp } from "../../server/app/app.ts";
import { parseConfig } from "../../server/config.ts";
import { makeDeps, seedIfEmpty } from "../../server/app/boot.ts";
import type { Deps } from "../../server/domain/env.ts";

export type Flavour = "preact" | "react";
/** Both build flavours pass the same browser tests (issue: foundation). */
export const FLAVOURS: Flavour[] = ["preact", "react"];

export function chromePath(): string {
  return Deno.env.get("CHROME_PATH") ?? "/usr/bin/chromium";
}

export interface Env {
  url: string;
  /** The system of record's deps (the upstream's in relay mode). */
  deps: Deps;
  /** The browser talks to an edge in relay mode in front of `deps`' server. */
  relay: boolean;
  browser: Browser;
  /** A fresh browser profile (its own cookies, IndexedDB, service worker). */
  newPage(): Promise<Page>;
  latestCode(email: string): Promise<string>;
  /** The newest 3-D Secure PIN sent to a phone ('+33612345678', SMS outbox) or an address. */
  latestSecurePin(to: string): Promise<string>;
  close(): Promise<void>;
}

/** engineering.md §3: Debian's Chromium, headless, nothing fetched in the background. */
export const CHROME_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

/**
 * The app's dependencies as the browser tests use them: in-memory KV, cheap PIN hashing, the
 * bare demo organisation (no seeded history), serving the build in `staticDir`.
 */
/**
 * The push service the browser tests' stubbed subscriptions name (push_test.ts FAKE_SUB):
 * allowed explicitly, as PUSH_HOSTS allows any receiver that is not a known push service.
 */
export const E2E_PUSH_HOSTS = "https://push.example.invalid";

export async function testDeps(staticDir: string, env: Record<string, string> = {}) {
  const config = parseConfig({
    KV_PATH: ":memory:",
    PUSH_HOSTS: E2E_PUSH_HOSTS,
    PIN_HASH_ITERATIONS: "1000",
    STATIC_DIR: staticDir,
    PORT: "0",
    DEMO_HISTORY: "false",
    ...env,
  });
  const deps = await makeDeps(config, await Deno.openKv(":memory:"), { log: () => {} });
  await seedIfEmpty(deps);
  return deps;
}

/** Serves `handler` on 127.0.0.1, port 0, passing the peer address like main.ts does. */
export function serveLocal(
  handler: (req: Request, addr: Deno.NetAddr) => Response | Promise<Response>,
) {
  return Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    (req, info) => handler(req, info.remoteAddr),
  );
}

/**
 * Which flavours run their browser suites against an edge in relay mode (docs/relay.md): set by
 * QCARD_E2E_RELAY = `react` (the default: every suite runs once direct, in preact, and once
 * through the relay, in React), `preact`, `all` or `none`.
 */
export function relayFor(flavour: Flavour): boolean {
  const v = Deno.env.get("QCARD_E2E_RELAY") ?? "react";
  return v === "all" || v === flavour;
}

/** The secret the test edge and upstream share for push relay requests. */
const TEST_PUSH_RELAY_SECRET = "test-push-relay-secret-0123456789abcdef";

/**
 * Starts a real server on port 0 with the given build and a fresh Chromium. In relay mode
 * (relayFor) two: the upstream (the system of record: `deps` are its) and, in front of it,
 * the edge the browser talks to (`url`), serving the build and relaying /bonita and
 * /docservice. The development pages (/_outbox, /_issuer) are the upstream's, as a developer
 * on the upstream's host reaches them; the tests' fetches of them are routed there.
 */
export async function start(flavour: Flavour): Promise<Env> {
  const relay = relayFor(flavour);
  let upstreamApp: ReturnType<typeof createApp> | null = null;
  let edgeApp: ReturnType<typeof createApp> | null = null;
  const upstream = relay
    ? serveLocal((req, remoteAddr) => upstreamApp!.fetch(req, { remoteAddr }))
    : null;
  const server = serveLocal((req, remoteAddr) => {
    const path = new URL(req.url).pathname;
    const app = !edgeApp || path.startsWith("/_outbox") || path.startsWith("/_issuer")
      ? upstreamApp!
      : edgeApp;
    return app.fetch(req, { remoteAddr });
  });
  const url = `http://localhost:${server.addr.port}`;
  // PUBLIC_URL is the origin the browser sees (the edge's in relay mode): passkeys are bound
  // to it (server/domain/passkeys.ts).
  const deps = await testDeps(
    `./dist/${flavour}`,
    relay
      ? {
        PUBLIC_URL: url,
        TRUSTED_PROXIES: "127.0.0.1",
        PUSH_RELAY_URL: url,
        PUSH_RELAY_SECRET: TEST_PUSH_RELAY_SECRET,
      }
      : { PUBLIC_URL: url },
  );
  upstreamApp = createApp(deps);
  let edgeDeps: Deps | null = null;
  if (upstream) {
    edgeDeps = await makeDeps(
      parseConfig({
        KV_PATH: ":memory:",
        STATIC_DIR: `./dist/${flavour}`,
        PORT: "0",
        UPSTREAM_URL: `http://127.0.0.1:${upstream.addr.port}`,
        PUSH_RELAY_SECRET: TEST_PUSH_RELAY_SECRET,
        PUSH_HOSTS: E2E_PUSH_HOSTS,
      }),
      await Deno.openKv(":memory:"),
      { log: () => {} },
    );
    edgeApp = createApp(edgeDeps);
    // The browser's server is an edge whose upstream answers (or the run is not what it says).
    const health = await (await fetch(`${url}/healthz`)).json();
    if (health.upstream !== "ok") throw new Error(`relay mode: upstream ${health.upstream}`);
  }
  const browser = await puppeteer.launch({
    executablePath: chromePath(),
    headless: true,
    args: CHROME_ARGS,
  });
  const contexts: { close(): Promise<void> }[] = [];
  return {
    url,
    deps,
    relay,
    browser,
    async newPage() {
      const ctx = await browser.createBrowserContext();
      contexts.push(ctx);
      const page = await ctx.newPage();
      // The first screen is painted from static markup before the app's code runs
      // (client/boot.ts): a tap then is kept and replayed, but typed keys and the app's own
      // listeners wait for its effects. After loading the app (with JavaScript on), wait until
      // it has taken that screen over and run them (App.tsx marks the document "live").
      const live = async () => {
        const at = new URL(page.url());
        if (!page.isJavaScriptEnabled() || at.origin !== url || at.pathname !== "/") return;
        await page.waitForFunction(() => document.documentElement.dataset.app === "live");
      };
      const goto = page.goto.bind(page);
      page.goto = async (...args: Parameters<Page["goto"]>) => {
        const res = await goto(...args);
        await live();
        return res;
      };
      const reload = page.reload.bind(page);
      page.reload = async (...args: Parameters<Page["reload"]>) => {
        const res = await reload(...args);
        await live();
        return res;
      };
      await page.setViewport({ width: 360, height: 640, isMobile: true, hasTouch: true });
      page.setDefaultTimeout(15_000);
      page.on("pageerror", (e) => console.error(`[page error] ${e}`));
      return page;
    },
    async latestCode(email: string) {
      const [m] = await deps.outbox!.list({ to: email, limit: 1 });
      const code = /activation code is (\d{5})/.exec(m?.text ?? "")?.[1];
      if (!code) throw new Error(`no code for ${email}`);
      return code;
    },
    async latestSecurePin(to: string) {
      const [m] = await deps.outbox!.list({ to, limit: 1 });
      const pin = /3-D Secure PIN is (\d{4})/.exec(m?.text ?? "")?.[1];
      if (!pin) throw new Error(`no 3-D Secure PIN sent to ${to}`);
      return pin;
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => {});
      await browser.close();
      await server.shutdown();
      await upstream?.shutdown();
      edgeDeps?.store.kv.close();
      deps.store.kv.close();
    },
  };
}

/**
 * A browser profile on disk, for what must survive closing the browser (the
 * offline write queue). `open()` launches a Chromium of its own on the profile and returns
 * its page (360×640, touch, like newPage); `close()` quits that browser and keeps the
 * profile; `remove()` quits and deletes it. Not closed by env.close().
 */
export async function diskProfile() {
  const dir = await Deno.makeTempDir({ prefix: "qcard-profile-" });
  let browser: Browser | null = null;
  const close = async () => {
    await browser?.close();
    browser = null;
  };
  return {
    dir,
    async open(): Promise<Page> {
      await close();
      browser = await puppeteer.launch({
        executablePath: chromePath(),
        headless: true,
        args: CHROME_ARGS,
        userDataDir: dir,
      });
      const page = (await browser.pages())[0] ?? await browser.newPage();
      await page.setViewport({ width: 360, height: 640, isMobile: true, hasTouch: true });
      page.setDefaultTimeout(15_000);
      page.on("pageerror", (e) => console.error(`[page error] ${e}`));
      return page;
    },
    close,
    async remove() {
      await close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

/**
 * Clicks the control whose accessible name is `name`. A locator keeps the element it found:
 * if that one leaves the page (a panel re-rendered) it waits for it until its timeout, so the
 * click is tried in three 5-second rounds, each with a fresh query.
 */
export async function click(page: Page, name: string): Promise<void> {
  for (let round = 1;; round++) {
    try {
      await page.locator(`::-p-aria(${name})`).setTimeout(5_000).click();
      return;
    } catch (err) {
      if (round >= 3 || !(err instanceof Error) || err.name !== "TimeoutError") throw err;
    }
  }
}

/** Types digits on the on-screen PIN pad, as a thumb would. */
export async function tapDigits(page: Page, digits: string): Promise<void> {
  for (const d of digits) {
    // Found in the DOM, then a real tap on it: an accessibility-tree query (::-p-aria) costs
    // ~0.3 s a key on this machine, 17 keys an activation. The keys' names are checked by axe
    // and by the PIN tests that name them.
    // The app replaces the static pad when it takes the screen over: a key found just before
    // is looked up again.
    for (let round = 1;; round++) {
      const key = await page.waitForFunction(
        (digit) =>
          [...document.querySelectorAll<HTMLButtonElement>(".pin-keys button")].find((b) =>
            b.textContent?.trim() === digit && !b.disabled
          ),
        {},
        d,
      );
      try {
        await (key.asElement() as ElementHandle<Element>).click();
        break;
      } catch (err) {
        if (round >= 5 || !/detached|not clickable/i.test(String(err))) throw err;
      } finally {
        await key.dispose().catch(() => {});
      }
    }
  }
}

/** Waits until the page shows `text` somewhere. */
export async function waitText(page: Page, text: string, timeout = 15_000): Promise<void> {
  await page.waitForFunction(
    (t) => document.body.innerText.includes(t),
    { timeout },
    text,
  );
}

export async function bodyText(page: Page): Promise<string> {
  return await page.evaluate(() => document.body.innerText);
}

/** On failure, prints what the page showed (engineering.md habit 4: dump the page on failure). */
export async function dumpOnFailure<T>(page: Page | null, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (page) {
      const text = await page.evaluate(() => document.body.innerText).catch(() => "(no page)");
      console.error(`--- page text at failure (${page.url()}) ---\n${text}\n---`);
    }
    throw err;
  }
}

/**
 * Defines the new PIN on the define-PIN screen: chosen, then confirmed (asked twice).
 * Returns once "Save" was tapped on the confirmation.
 */
export async function definePin(page: Page, pin: string): Promise<void> {
  await waitText(page, "Choose a 6-digit PIN");
  await tapDigits(page, pin);
  await click(page, "OK");
  await waitText(page, "Enter the PIN again");
  await tapDigits(page, pin);
  await click(page, "Save");
}

/**
 * Activates a user on a fresh page (or on `page`, new and not yet navigated) up to the main
 * screen; returns the page.
 */
export async function activate(
  env: Env,
  email: string,
  pin = "135790",
  page?: Page,
): Promise<Page> {
  page ??= await env.newPage();
  await page.goto(env.url);
  await waitText(page, "Enter the 5-digit code");
  await tapDigits(page, await env.latestCode(email));
  await click(page, "Connect device");
  await definePin(page, pin);
  await page.locator("::-p-aria(Open menu)").wait();
  return page;
}
