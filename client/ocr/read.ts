/**
 * The receipt reader on the phone (spec §2 VAT panel prefill; docs/receipts.md): what a receipt
 * says — total, currency, date, merchant, VAT lines — read on the device, offline, nothing sent.
 * An image goes through the OCR engine (tesseract.js 7, WebAssembly in its own Web Worker); a PDF
 * with a text layer is read from its text (pdf.js), exactly and without OCR. The engine and its
 * language data come from our origin (client/build/ocr.ts), on the first reading only, and are
 * kept by the service worker after that. The settings and the reading of the text are the ones
 * `deno task read-receipt` runs (client/shared/ocr_config.ts, client/shared/receipt_text.ts).
 *
 * Loaded by `import()` when a receipt is captured or chosen: the first load carries none of it.
 */
// tesseract.js's own ES module build: bundling its CommonJS sources would put esbuild's
// CommonJS helpers into the runtime chunk every entry shares (0.4 KB more first-load JS).
// @ts-types="tesseract.js"
import Tesseract from "tesseract.js/dist/tesseract.esm.min.js";
import type { Worker } from "tesseract.js";

const { createWorker } = Tesseract;
import {
  drawSecondLook,
  OCR_PARAMETERS,
  ocrLanguages,
  ocrSize,
  PDF_PAGES_READ,
} from "../shared/ocr_config.ts";
import {
  type ReadHints,
  type ReadReceipt,
  readReceiptText,
  type ReceiptLanguage,
} from "../shared/receipt_text.ts";
import { loadPdf } from "../lib/pdf.ts";

/** Set by build.ts (esbuild `define`): the engine's files under /assets/ocr-<hash>/. */
declare const QC_OCR_WORKER: string;
declare const QC_OCR_CORE: string;
/** The folder of the language data, ending in "/". */
declare const QC_OCR_LANGS: string;

/** The engine is let go after this long unused (its worker holds the models in memory). */
const IDLE_MS = 60_000;

let engine: { langs: string; worker: Promise<Worker> } | null = null;
let idle: ReturnType<typeof setTimeout> | undefined;

function engineFor(lang: ReceiptLanguage | undefined): Promise<Worker> {
  const langs = ocrLanguages(lang);
  const key = langs.join("+");
  if (engine?.langs !== key) {
    void close();
    const worker = (async () => {
      const w = await createWorker(langs, 1, {
        // Our origin only: tesseract.js would take all three from a CDN.
        workerPath: QC_OCR_WORKER,
        corePath: QC_OCR_CORE,
        langPath: QC_OCR_LANGS.replace(/\/$/, ""),
        // A worker from a blob: URL is not `worker-src 'self'`; the script's own answer
        // carries the CSP that lets it compile WebAssembly (server/middleware/security.ts).
        workerBlobURL: false,
        // The service worker keeps the files (cache first, by their hashed names).
        cacheMethod: "none",
        gzip: true,
      });
      await w.setParameters(OCR_PARAMETERS as never);
      return w;
    })();
    engine = { langs: key, worker };
    worker.catch(() => {
      if (engine?.worker === worker) engine = null;
    });
  }
  return engine!.worker;
}

/** Lets the engine go (its worker ends). */
export async function close(): Promise<void> {
  const e = engine;
  engine = null;
  if (e) await (await e.worker.catch(() => null))?.terminate();
}

const isPdf = (file: Blob, head: Uint8Array) =>
  file.type === "application/pdf" ||
  (head[0] === 0x25 && head[1] === 0x50 && head[2] === 0x44 && head[3] === 0x46);

/** An image at the size the reader works at (never enlarged), as a PNG or as it was. */
async function atReadingSize(file: Blob): Promise<Blob> {
  const bitmap = await createImageBitmap(file);
  try {
    const { width, height } = ocrSize(bitmap.width, bitmap.height);
    if (width === bitmap.width && height === bitmap.height) return file;
    const canvas = new OffscreenCanvas(width, height);
    canvas.getContext("2d")!.drawImage(bitmap, 0, 0, width, height);
    return await canvas.convertToBlob({ type: "image/png" });
  } finally {
    bitmap.close();
  }
}

/** The text of one file: a PDF's text layer (else its pages are scans: nothing), or OCR. */
async function textOf(
  file: Blob,
  lang: ReceiptLanguage | undefined,
): Promise<{ text: string; exact: boolean }> {
  const head = new Uint8Array(await file.slice(0, 4).arrayBuffer());
  if (isPdf(file, head)) {
    const doc = await loadPdf(await file.arrayBuffer());
    try {
      const lines: string[] = [];
      for (let n = 1; n <= Math.min(doc.numPages, PDF_PAGES_READ); n++) {
        lines.push(...(await doc.lines(n)));
      }
      return { text: lines.join("\n"), exact: true };
    } finally {
      await doc.destroy();
    }
  }
  const worker = await engineFor(lang);
  const { data } = await worker.recognize(await atReadingSize(file));
  return { text: data.text, exact: false };
}

/**
 * The second look (client/shared/ocr_config.ts): the paper of a photo, without the table it
 * lies on, drawn larger and read again; null when no paper stands out (a scan).
 */
async function secondLookText(file: Blob, lang: ReceiptLanguage | undefined) {
  const bitmap = await createImageBitmap(file);
  try {
    const drawn = drawSecondLook<ImageBitmap, OffscreenCanvas>(bitmap, (width, height) => {
      const canvas = new OffscreenCanvas(width, height);
      return { canvas, context: canvas.getContext("2d", { willReadFrequently: true })! };
    });
    if (!drawn) return null;
    const png = await drawn.convertToBlob({ type: "image/png" });
    const { data } = await (await engineFor(lang)).recognize(png);
    return data.text;
  } finally {
    bitmap.close();
  }
}

export interface Reading extends ReadReceipt {
  /** Milliseconds from the call to the result. */
  ms: number;
}

/**
 * Reads a receipt of one or more pages (a multi-page photo, read page by page as one text).
 * Rejects when nothing could be read (no engine on this browser, a file it cannot decode).
 */
export async function readReceipt(files: Blob[], hints: ReadHints = {}): Promise<Reading> {
  const t0 = performance.now();
  clearTimeout(idle);
  try {
    const read: { text: string; exact: boolean }[] = [];
    for (const f of files) read.push(await textOf(f, hints.lang));
    const exact = read.every((r) => r.exact);
    let found = readReceiptText(read.map((r) => r.text).join("\n"), { ...hints, exact });
    // No date: the photos looked at again, for the date only (a look that fails keeps what
    // the first reading found).
    for (let i = 0; found.date === null && i < files.length; i++) {
      if (read[i].exact) continue;
      const again = await secondLookText(files[i], hints.lang).catch(() => null);
      const date = again === null ? null : readReceiptText(again, hints).date;
      if (date) found = { ...found, date };
    }
    return { ...found, ms: Math.round(performance.now() - t0) };
  } finally {
    idle = setTimeout(() => void close(), IDLE_MS);
  }
}
