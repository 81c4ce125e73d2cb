/**
 * Bench (spec §2 PDF viewer): time to the first PDF page drawn in headless Chromium, from the
 * viewer mounted to page 1 on its canvas (the viewer's `qc:pdf:page1` mark), median of 10:
 *   cold   — a fresh browser profile: pdf.js chunk and worker fetched, parsed, compiled;
 *   warm   — the page reloaded: chunk and worker from the service worker's cache;
 *   reopen — the same page opening the PDF again (pdf.js already in memory).
 * And the first-load JS before the PIN pad (production build), which must not carry pdf.js.
 *
 * Run alone: `deno run -A tests/bench/pdf_first_page.ts` (needs Chromium).
 */
import * as esbuild from "esbuild";
import type { Page } from "puppeteer-core";
import { build } from "../../build.ts";
import { makePdf } from "../fixtures/files.ts";
import { loadCheck, startPdfEnv } from "../e2e/pdf_env.ts";
import type { PdfCheck } from "../e2e/pdf_entry.tsx";

type Line = (name: string, value: string, budget?: string) => void;

const root = new URL("../../", import.meta.url).pathname;
const RUNS = 10;
const KB = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (xs: number[]) => xs.map((t) => t.toFixed(0)).join(", ");

/** Opens `pdf` in the viewer and answers ms from mount to page 1 drawn. */
async function open(page: Page, pdf: string): Promise<number> {
  await page.evaluate((bytes) => {
    performance.clearMarks();
    const data = Uint8Array.from(atob(bytes), (c) => c.charCodeAt(0)).buffer;
    performance.mark("qc:pdf:open");
    (globalThis as unknown as { qcPdfCheck: PdfCheck }).qcPdfCheck.mount(data, "receipt.pdf");
  }, pdf);
  const h = await page.waitForFunction(() => {
    const [drawn] = performance.getEntriesByName("qc:pdf:page1");
    const [start] = performance.getEntriesByName("qc:pdf:open");
    return drawn && start ? drawn.startTime - start.startTime : null;
  });
  return (await h.jsonValue())!;
}

export async function benchPdfFirstPage(line: Line): Promise<void> {
  const prod = await build({ flavour: "preact", outDir: `${root}dist/preact` });
  const pdfInFirstLoad = prod.firstLoadJs.some((p) => prod.pdf.lazy.includes(p));
  line(
    "first-load JS before the PIN pad (preact), gzip",
    KB(prod.firstLoadJsGzip),
    `budget ≤ ${prod.budgetGzip / 1024} KB ${
      prod.firstLoadJsGzip <= prod.budgetGzip ? "(ok)" : "(OVER)"
    }; ` +
      `pdf.js ${pdfInFirstLoad ? "IN the first load (wrong)" : "not in it"}`,
  );
  line(
    "pdf.js on demand: chunk + worker, gzip",
    KB(prod.pdf.gzipBytes),
    "fetched when a PDF is first opened, then cached by the service worker",
  );

  const env = await startPdfEnv("preact");
  await esbuild.stop();
  const pdf = btoa(String.fromCharCode(...makePdf()));
  try {
    const cold: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const page = await env.newPage();
      await page.goto(env.url);
      await page.evaluate(() => navigator.serviceWorker.ready.then(() => {}));
      await loadCheck(page, env);
      cold.push(await open(page, pdf));
      await page.browserContext().close();
    }
    const page = await env.newPage();
    await page.goto(env.url);
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => {}));
    await page.reload();
    await loadCheck(page, env);
    await open(page, pdf); // fills the service worker's cache
    const warm: number[] = [];
    const reopen: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      await page.reload();
      await loadCheck(page, env);
      warm.push(await open(page, pdf));
      reopen.push(await open(page, pdf));
    }
    line(
      "first PDF page drawn, cold (pdf.js fetched), median",
      `${median(cold).toFixed(0)} ms`,
      `(${ms(cold)})`,
    );
    line(
      "first PDF page drawn, warm (SW cache), median",
      `${median(warm).toFixed(0)} ms`,
      `(${ms(warm)})`,
    );
    line(
      "first PDF page drawn, reopened, median",
      `${median(reopen).toFixed(0)} ms`,
      `(${ms(reopen)})`,
    );
  } finally {
    await env.close();
  }
}

if (import.meta.main) {
  const line: Line = (name, value, budget = "") =>
    console.log(`${name.padEnd(52)} ${value.padStart(12)}  ${budget}`);
  await benchPdfFirstPage(line);
}
