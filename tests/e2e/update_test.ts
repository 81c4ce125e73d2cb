/**
 * A new version (spec §4 'New version available. Load New Version?', engineering.md habit 8), the
 * organisation's colours at start (spec §7 appcolor) and installability, against builds made
 * here: two builds of the same flavour that differ by their version label, served by one
 * server whose static files switch from the first to the second ("a deploy").
 */
import assert from "node:assert/strict";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { build, type BuildReport, type Release } from "../../build.ts";
import { createApp } from "../../server/app/app.ts";
import {
  CHROME_ARGS,
  chromePath,
  click,
  dumpOnFailure,
  type Flavour,
  FLAVOURS,
  serveLocal,
  testDeps,
  waitText,
} from "./harness.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const OLD: Release = { version: "2.25.0211", released: "11-02-2025" };
const NEW: Release = { version: "2.99.0101", released: "01-01-2099" };
const label = (r: Release) => `V ${r.version}, released ${r.released}`;
const PROMPT = "New version available. Load New Version?";

interface UpdateEnv {
  url: string;
  reports: BuildReport[];
  browser: Browser;
  /** Serves build `i` from now on. */
  deploy(i: number): void;
  /** A page in the browser's default (on-disk, not incognito) profile, 360×640 with touch. */
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

async function startBuilds(
  flavour: Flavour,
  releases: Release[],
  orgFile?: string,
): Promise<UpdateEnv> {
  const dirs: string[] = [];
  const reports: BuildReport[] = [];
  for (const release of releases) {
    const dir = await Deno.makeTempDir({ prefix: `qcard_update_${flavour}_` });
    dirs.push(dir);
    reports.push(await build({ flavour, outDir: dir, release }));
  }
  const deps = await testDeps(dirs[0], orgFile ? { ORG_FILE: orgFile } : {});
  // One store, one app per build (createApp has no side effects): only the files differ.
  const apps = dirs.map((dir) =>
    createApp({ ...deps, config: { ...deps.config, STATIC_DIR: dir } })
  );
  let current = 0;
  const server = serveLocal((req, remoteAddr) => apps[current].fetch(req, { remoteAddr }));
  const profile = await Deno.makeTempDir({ prefix: "qcard_update_profile_" });
  const browser = await puppeteer.launch({
    executablePath: chromePath(),
    headless: true,
    userDataDir: profile,
    args: CHROME_ARGS,
  });
  return {
    url: `http://localhost:${server.addr.port}`,
    reports,
    browser,
    deploy: (i) => (current = i),
    async newPage() {
      const page = await browser.newPage();
      await page.setViewport({ width: 360, height: 640, isMobile: true, hasTouch: true });
      page.setDefaultTimeout(20_000);
      page.on("pageerror", (e) => console.error(`[page error] ${e}`));
      return page;
    },
    async close() {
      await browser.close();
      await server.shutdown();
      deps.store.kv.close();
      for (const dir of [...dirs, profile]) await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Loads the app and waits until its service worker controls the page. */
async function openControlled(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => {}));
  if (!(await page.evaluate(() => !!navigator.serviceWorker.controller))) await page.reload();
  await page.waitForFunction(() => !!navigator.serviceWorker.controller);
}

const entryScript = (page: Page) =>
  page.$eval('script[type="module"]', (s) => s.getAttribute("src"));

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] new version: a rebuilt client asks 'Load New Version?'; no asks again next start, yes reloads once into the new build`,
    ...opts,
    fn: async () => {
      const env = await startBuilds(flavour, [OLD, NEW]);
      let page: Page | null = null;
      try {
        page = await env.newPage();
        await dumpOnFailure(page, async () => {
          const p = page!;
          await openControlled(p, env.url);
          await waitText(p, label(OLD));
          assert.equal(await entryScript(p), env.reports[0].firstLoadJs[0]);
          assert.ok(!(await p.evaluate(() => document.body.innerText)).includes(PROMPT));

          env.deploy(1);
          // The next start finds the new sw.js; the page still runs the old version meanwhile.
          await p.reload();
          await waitText(p, PROMPT);
          assert.ok((await p.evaluate(() => document.body.innerText)).includes(label(OLD)));
          await click(p, "Later");
          // No: the new worker keeps waiting, and the next start asks again.
          await p.reload();
          await waitText(p, PROMPT);
          await waitText(p, label(OLD));
          let loads = 0;
          p.on("framenavigated", (f) => {
            if (f === p.mainFrame()) loads++;
          });
          await click(p, "Load new version");
          await waitText(p, label(NEW));
          assert.equal(await entryScript(p), env.reports[1].firstLoadJs[0]);
          await new Promise((r) => setTimeout(r, 1000));
          assert.equal(loads, 1, `reloads after yes: ${loads}`);
          assert.ok(!(await p.evaluate(() => document.body.innerText)).includes(PROMPT));
          // The worker now in control is the new one, and nothing waits any more.
          assert.equal(
            await p.evaluate(() =>
              navigator.serviceWorker.getRegistration().then((r) => !!r?.waiting)
            ),
            false,
          );
        });
      } finally {
        await env.close();
      }
    },
  });
}

Deno.test({
  name:
    "[e2e:preact] appcolor: the organisation's colours are the theme before the network answers; installable (no installability errors, icons, shortcuts)",
  ...opts,
  fn: async () => {
    const demo = JSON.parse(await Deno.readTextFile("server/org/demo_org.json"));
    const orgFile = await Deno.makeTempFile({ suffix: ".json" });
    await Deno.writeTextFile(
      orgFile,
      JSON.stringify({ ...demo, settings: { ...demo.settings, appColor: "#7a1f5c" } }),
    );
    const env = await startBuilds("preact", [OLD], orgFile);
    let page: Page | null = null;
    try {
      // The first paint needs no JavaScript: the activation screen, styled by the inline
      // stylesheet (the first screens' part of the app's, allowed by its hash: a blocked one has
      // no rules) in the organisation's colours.
      const bare = await env.newPage();
      await bare.setJavaScriptEnabled(false);
      await bare.goto(env.url);
      const first = await bare.evaluate(() => ({
        rules: [...document.querySelectorAll("style")].map((s) => s.sheet?.cssRules.length ?? 0),
        theme: getComputedStyle(document.documentElement).getPropertyValue("--theme").trim(),
        keys: document.querySelectorAll(".pin-key").length,
        keyHeight: document.querySelector(".pin-key")!.getBoundingClientRect().height,
      }));
      assert.equal(first.theme, "#7a1f5c");
      assert.equal(first.keys, 12);
      assert.ok(first.rules[0] > 20, `the inline stylesheet applies: ${first.rules} rules`);
      assert.ok(first.keyHeight >= 44, `styled keys: ${first.keyHeight} px`);
      await bare.close();

      page = await env.newPage();
      await dumpOnFailure(page, async () => {
        const p = page!;
        await openControlled(p, env.url);
        await waitText(p, label(OLD));
        const theme = () =>
          p.evaluate(() => ({
            css: getComputedStyle(document.documentElement).getPropertyValue("--theme").trim(),
            meta: document.querySelector('meta[name="theme-color"]')?.getAttribute("content"),
          }));
        await p.waitForFunction(() =>
          getComputedStyle(document.documentElement).getPropertyValue("--theme").trim() ===
            "#7a1f5c"
        );
        assert.deepEqual(await theme(), { css: "#7a1f5c", meta: "#7a1f5c" });
        // Next start offline: the kept colours, though appcolor cannot be reached.
        await p.setOfflineMode(true);
        await p.reload();
        await waitText(p, label(OLD));
        assert.deepEqual(await theme(), { css: "#7a1f5c", meta: "#7a1f5c" });
        await p.setOfflineMode(false);

        // Installability, as Chrome's DevTools and Lighthouse ask it.
        const cdp = await p.createCDPSession();
        const { installabilityErrors } = await cdp.send("Page.getInstallabilityErrors");
        assert.deepEqual(installabilityErrors, []);
        const { errors, data } = await cdp.send("Page.getAppManifest", {});
        assert.deepEqual(errors, []);
        const manifest = JSON.parse(data!);
        assert.deepEqual(
          manifest.shortcuts.map((s: { name: string; url: string }) => [s.name, s.url]),
          [["New request", "/?open=new-request"], ["Wallet", "/?open=wallet"]],
        );
        const icons: { src: string; sizes: string; purpose: string; type: string }[] = [
          ...manifest.icons,
          {
            src: "/icons/apple-touch-icon.png",
            sizes: "180x180",
            purpose: "any",
            type: "image/png",
          },
        ];
        for (const icon of icons.filter((i) => i.type === "image/png")) {
          const size = await p.evaluate(async (src) => {
            const bitmap = await createImageBitmap(await (await fetch(src)).blob());
            return `${bitmap.width}x${bitmap.height}`;
          }, icon.src);
          assert.equal(size, icon.sizes, icon.src);
        }
        assert.ok(icons.some((i) => i.purpose === "maskable" && i.sizes === "512x512"));
        const apple = await p.$eval('link[rel="apple-touch-icon"]', (l) => l.getAttribute("href"));
        assert.equal(apple, "/icons/apple-touch-icon.png");
        await cdp.detach();
      });
    } finally {
      await env.close();
      await Deno.remove(orgFile);
    }
  },
});
