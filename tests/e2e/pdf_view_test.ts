/**
 * PDF viewer and photo preparation in Chromium (spec §2 PDF viewer), both flavours, before any
 * receipt screen exists: the test module (pdf_entry.tsx, built beside the app, never in production)
 * is imported by URL on our origin under the server's real CSP, as a screen's import() would.
 */
import assert from "node:assert/strict";
import type { ConsoleMessage, Page } from "puppeteer-core";
import { makePdf } from "../fixtures/files.ts";
import { dumpOnFailure, FLAVOURS } from "./harness.ts";
import { loadCheck, type PdfEnv, startPdfEnv } from "./pdf_env.ts";
import type { PdfCheck } from "./pdf_entry.tsx";

const opts = { sanitizeOps: false, sanitizeResources: false };

type Win = { qcPdfCheck: PdfCheck };

/** Watches a page for CSP violations (page and workers log them) and the files it fetched. */
function watch(page: Page) {
  const csp: string[] = [];
  const errors: string[] = [];
  const fetched: string[] = [];
  const workers: string[] = [];
  const onConsole = (m: ConsoleMessage) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) csp.push(m.text());
  };
  page.on("console", onConsole);
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("request", (r) => fetched.push(r.url()));
  page.on("workercreated", (w) => {
    workers.push(w.url());
    w.on("console", onConsole);
  });
  return { csp, errors, fetched, workers };
}

/** Mounts the viewer with `pdf` and waits for page 1; returns its size and red pixels. */
async function showPdf(page: Page, pdf: Uint8Array) {
  await page.evaluate((bytes) => {
    performance.clearMarks("qc:pdf:page1");
    const data = Uint8Array.from(atob(bytes), (c) => c.charCodeAt(0)).buffer;
    (globalThis as unknown as Win).qcPdfCheck.mount(data, "receipt.pdf");
  }, btoa(String.fromCharCode(...pdf)));
  await page.waitForFunction(() => performance.getEntriesByName("qc:pdf:page1").length > 0);
  const canvas = await page.locator("::-p-aria(Page 1 of 1)").waitHandle();
  return await canvas.evaluate((c) => {
    const canvas = c as HTMLCanvasElement;
    const { data } = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height);
    let red = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i] > 180 && data[i + 1] < 90 && data[i + 2] < 90) red++;
    }
    return {
      width: canvas.width,
      height: canvas.height,
      cssWidth: canvas.getBoundingClientRect().width,
      // The viewer's content width (inside the frame's padding).
      boxWidth: (() => {
        const v = canvas.closest(".pdf-viewer") as HTMLElement;
        const cs = getComputedStyle(v);
        return v.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
      })(),
      red: red / (data.length / 4),
      role: canvas.getAttribute("role"),
    };
  });
}

for (const flavour of FLAVOURS) {
  Deno.test({
    name: `[pdf] ${flavour}: pdf.js on demand draws page 1, worker from our origin, no CSP error`,
    ...opts,
    fn: async () => {
      const env: PdfEnv = await startPdfEnv(flavour);
      let page: Page | null = null;
      try {
        page = await env.newPage();
        const seen = watch(page);
        const p = page;
        await dumpOnFailure(page, async () => {
          await p.goto(env.url);
          await p.evaluate(() => navigator.serviceWorker.ready.then(() => {}));
          // Reload under the service worker, so the on-demand files go through it.
          await p.reload();
          await p.waitForFunction(() => !!navigator.serviceWorker.controller);
          assert.ok(
            !seen.fetched.some((u) => u.includes("/assets/pdfjs")),
            "pdf.js fetched before a PDF was opened",
          );

          await loadCheck(p, env);
          const shown = await showPdf(p, makePdf());
          // The fixture fills a red rectangle over ~30% of an A6 page.
          assert.ok(shown.red > 0.15, `page 1 looks blank (${(shown.red * 100).toFixed(1)}% red)`);
          assert.equal(shown.role, "img");
          assert.ok(shown.boxWidth > 300 && shown.boxWidth <= 360, `viewer ${shown.boxWidth} px`);
          assert.equal(
            Math.round(shown.cssWidth),
            Math.round(shown.boxWidth),
            "fitted to the viewer",
          );
          // The viewer's CSS px at the phone's pixel ratio (capped at 2); A6 is 298×420 pt.
          const box = Math.round(shown.boxWidth);
          assert.ok(shown.width >= box && shown.width <= 2 * box, `canvas ${shown.width} px wide`);
          assert.equal(Math.round(shown.width * 420 / 298), shown.height);

          const { report } = env;
          assert.deepEqual(seen.workers, [`${env.url}${report.pdf.worker}`], "pdf.js worker");
          assert.ok(seen.fetched.includes(`${env.url}${report.pdf.chunk}`));
          assert.ok(seen.fetched.every((u) => u.startsWith(env.url)), "only our origin");
          assert.deepEqual(seen.csp, [], "CSP violations");
          assert.deepEqual(seen.errors, [], "page errors");

          // Cached at first use by the service worker (not precached): opens again offline.
          const cached = await p.evaluate(async () => {
            const c = await caches.open("qc-on-demand-v1");
            return (await c.keys()).map((r) => new URL(r.url).pathname);
          });
          for (const f of [report.pdf.chunk, report.pdf.worker]) {
            assert.ok(cached.includes(f), `${f} not cached at first use (${cached})`);
          }
          await p.setOfflineMode(true);
          try {
            await p.reload();
            await loadCheck(p, env);
            const offline = await showPdf(p, makePdf({ text: "offline" }));
            assert.ok(offline.red > 0.15, "page 1 blank offline");
          } finally {
            await p.setOfflineMode(false);
          }
          assert.deepEqual(seen.csp, [], "CSP violations");
        });
      } finally {
        await env.close();
      }
    },
  });

  Deno.test({
    name: `[pdf] ${flavour}: a broken PDF shows the alert; photos and PDFs get 2,000/1,024 px`,
    ...opts,
    fn: async () => {
      const env = await startPdfEnv(flavour);
      let page: Page | null = null;
      try {
        page = await env.newPage();
        const seen = watch(page);
        const p = page;
        await dumpOnFailure(page, async () => {
          await p.goto(env.url);
          await loadCheck(p, env);

          await p.evaluate(() => {
            const data = new TextEncoder().encode("%PDF-1.4 not really").buffer;
            (globalThis as unknown as Win).qcPdfCheck.mount(data, "broken.pdf");
          });
          const alert = await p.waitForSelector("#pdf-check [role=alert]");
          assert.equal(await alert!.evaluate((e) => e.textContent), "The PDF could not be shown");

          const sizes = await p.evaluate(async (pdf) => {
            const check = (globalThis as unknown as Win).qcPdfCheck;
            const dims = async (b: Blob) => {
              const bmp = await createImageBitmap(b);
              const d = { type: b.type, width: bmp.width, height: bmp.height, bytes: b.size };
              bmp.close();
              return d;
            };
            // A 4000×3000 PNG made here: gradient and a dark square.
            const canvas = new OffscreenCanvas(4000, 3000);
            const ctx = canvas.getContext("2d")!;
            const g = ctx.createLinearGradient(0, 0, 4000, 3000);
            g.addColorStop(0, "#1e78c8");
            g.addColorStop(1, "#c81e1e");
            ctx.fillStyle = g;
            ctx.fillRect(0, 0, 4000, 3000);
            ctx.fillStyle = "#111";
            ctx.fillRect(1000, 750, 2000, 1500);
            const png = await canvas.convertToBlob({ type: "image/png" });
            const big = await check.prepareImage(png);
            // A small PNG screenshot stays as it is.
            const small = new OffscreenCanvas(800, 600);
            small.getContext("2d")!.fillRect(0, 0, 10, 10);
            const smallPng = await small.convertToBlob({ type: "image/png" });
            const kept = await check.prepareImage(smallPng);
            const pdfBytes = Uint8Array.from(atob(pdf), (c) => c.charCodeAt(0));
            const pdfPreview = await check.previewForPdf(pdfBytes.buffer);
            return {
              big: { ...(await dims(big.file)), w: big.width, h: big.height },
              bigPreview: big.preview && (await dims(big.preview)),
              kept: { same: kept.file === smallPng, w: kept.width, h: kept.height },
              keptPreview: kept.preview && (await dims(kept.preview)),
              pdfPreview: await dims(pdfPreview),
              pngBytes: png.size,
            };
          }, btoa(String.fromCharCode(...makePdf())));
          assert.deepEqual(
            { type: sizes.big.type, width: sizes.big.width, height: sizes.big.height },
            { type: "image/jpeg", width: 2000, height: 1500 },
          );
          assert.deepEqual([sizes.big.w, sizes.big.h], [2000, 1500]);
          assert.ok(sizes.big.bytes < sizes.pngBytes, "the JPEG is smaller than the PNG");
          assert.deepEqual(
            sizes.bigPreview && [sizes.bigPreview.type, sizes.bigPreview.width],
            ["image/jpeg", 1024],
          );
          assert.equal(sizes.bigPreview?.height, 768);
          assert.deepEqual(sizes.kept, { same: true, w: 800, h: 600 });
          assert.deepEqual(sizes.keptPreview && [sizes.keptPreview.width], [800], "no upscale");
          assert.equal(sizes.pdfPreview.type, "image/jpeg");
          assert.equal(sizes.pdfPreview.height, 1024, "PDF preview: long side 1024");
          assert.equal(sizes.pdfPreview.width, Math.round(1024 * 298 / 420));
          assert.deepEqual(seen.csp, [], "CSP violations");
        });
      } finally {
        await env.close();
      }
    },
  });
}
