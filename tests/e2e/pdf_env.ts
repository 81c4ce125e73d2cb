/**
 * A server and Chromium for the PDF tests and bench: like harness.ts `start()`, but serving
 * a build made here with the test entry `pdf_entry.tsx` beside the app (harness serves
 * dist/<flavour>, which must stay a production build).
 */
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { build, type BuildReport } from "../../build.ts";
import { createApp } from "../../server/app/app.ts";
import { CHROME_ARGS, chromePath, type Flavour, serveLocal, testDeps } from "./harness.ts";

/** Entry name of the test module in the build report's `extra`. */
export const CHECK_ENTRY = "pdf_check";

export interface PdfEnv {
  url: string;
  report: BuildReport;
  browser: Browser;
  /** A fresh browser context (own caches and service worker), 360×640 like a phone. */
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

export async function startPdfEnv(flavour: Flavour): Promise<PdfEnv> {
  const outDir = await Deno.makeTempDir({ prefix: `qcard_pdf_${flavour}_` });
  const report = await build({
    flavour,
    outDir,
    extraEntries: { [CHECK_ENTRY]: "tests/e2e/pdf_entry.tsx" },
  });
  const deps = await testDeps(outDir);
  const app = createApp(deps);
  const server = serveLocal((req, remoteAddr) => app.fetch(req, { remoteAddr }));
  const browser = await puppeteer.launch({
    executablePath: chromePath(),
    headless: true,
    args: CHROME_ARGS,
  });
  const contexts: { close(): Promise<void> }[] = [];
  return {
    url: `http://localhost:${server.addr.port}`,
    report,
    browser,
    async newPage() {
      const ctx = await browser.createBrowserContext();
      contexts.push(ctx);
      const page = await ctx.newPage();
      await page.setViewport({ width: 360, height: 640, isMobile: true, hasTouch: true });
      page.setDefaultTimeout(20_000);
      return page;
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => {});
      await browser.close();
      await server.shutdown();
      deps.store.kv.close();
      await Deno.remove(outDir, { recursive: true });
    },
  };
}

/** Loads the test module into `page` by URL, as the app's own `import()` would. */
export async function loadCheck(page: Page, env: PdfEnv): Promise<void> {
  await page.evaluate((src) => import(src).then(() => {}), env.report.extra[CHECK_ENTRY]);
}
