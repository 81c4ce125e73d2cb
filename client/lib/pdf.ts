/**
 * PDF rendering on the device (spec §2 Transaction detail PDF viewer): Chrome on Android has no
 * inline PDF viewer, so receipts and documents in PDF are drawn into canvases with pdf.js. pdf.js
 * (~150 KB gzip, its worker ~390 KB) is fetched on the first call only, from its own chunk
 * (`pdfjs.ts`); importing this module costs nothing more than this file.
 *
 * Under the app's CSP: the worker is a same-origin module worker (`worker-src 'self'`);
 * WebAssembly is off (`script-src 'self'` without 'wasm-unsafe-eval'), so JPEG 2000 and
 * JBIG2 scans use pdf.js's plain JS decoders, also served from our origin, and ICC colour
 * profiles are approximated. pdf.js 6 evaluates no strings as code.
 */

import { pdfLines, type PdfTextItem } from "../shared/receipt_text.ts";

/** The part of pdf.js this module uses; loaded once, on first use. */
type Pdfjs = typeof import("./pdfjs.ts");

let pdfjs: Promise<Pdfjs> | undefined;

/** Fetches the pdf.js chunk (once); a failed fetch (offline, first time) may be retried. */
function loadPdfjs(): Promise<Pdfjs> {
  pdfjs ??= import("./pdfjs.ts").catch((err) => {
    pdfjs = undefined;
    throw err;
  });
  return pdfjs;
}

let worker: InstanceType<Pdfjs["PDFWorker"]> | undefined;

/**
 * One pdf.js worker for every document: starting one parses ~1.3 MB of script, which a
 * second PDF (or the preview made at upload) should not pay again.
 */
function sharedWorker(lib: Pdfjs): InstanceType<Pdfjs["PDFWorker"]> {
  if (!worker || worker.destroyed) worker = new lib.PDFWorker();
  return worker;
}

/** Device pixels per CSS pixel at most: sharper costs memory and time, not legibility. */
const MAX_PIXEL_RATIO = 2;
/** Device pixels per page canvas at most (4 MP: below iOS's canvas memory limits). */
const MAX_CANVAS_PIXELS = 4_000_000;

export interface RenderOptions {
  /** CSS pixels the page is drawn across; its height follows the page's proportions. */
  width: number;
  /** Default `devicePixelRatio`, capped at 2 (and by `maxPixels`). */
  pixelRatio?: number;
  /** Default 4,000,000 device pixels. */
  maxPixels?: number;
}

/** An opened PDF. Call `destroy()` when done: it ends pdf.js's worker-side document. */
export interface PdfDoc {
  readonly numPages: number;
  /** Height ÷ width of page `n` (1-based), for placeholders sized before a page is drawn. */
  aspect(n: number): Promise<number>;
  /**
   * Draws page `n` (1-based) into `canvas` (its bitmap; CSS size is the caller's). Drawing
   * again into the same canvas cancels the draw still under way there.
   */
  renderPage(n: number, canvas: HTMLCanvasElement, opts: RenderOptions): Promise<void>;
  /** Page `n`'s text layer as lines, top to bottom (none for a scan). */
  lines(n: number): Promise<string[]>;
  destroy(): Promise<void>;
}

interface Cancellable {
  cancel(): void;
  promise: Promise<unknown>;
}

/**
 * Opens a PDF from its bytes. The bytes are copied: pdf.js hands its buffer to the worker,
 * which would leave the caller's ArrayBuffer detached (empty).
 */
export async function loadPdf(data: ArrayBuffer | Uint8Array): Promise<PdfDoc> {
  const lib = await loadPdfjs();
  const bytes = data instanceof Uint8Array ? data.slice() : new Uint8Array(data.slice(0));
  const { getDocument, WASM_URL } = lib;
  const task = getDocument({
    data: bytes,
    worker: sharedWorker(lib),
    useWasm: false,
    wasmUrl: WASM_URL,
    enableXfa: false,
    verbosity: 0,
  });
  const doc = await task.promise;
  const drawing = new WeakMap<HTMLCanvasElement, Cancellable>();
  return {
    numPages: doc.numPages,
    async aspect(n) {
      const vp = (await doc.getPage(n)).getViewport({ scale: 1 });
      return vp.height / vp.width;
    },
    async renderPage(n, canvas, opts) {
      const previous = drawing.get(canvas);
      if (previous) {
        previous.cancel();
        await previous.promise.catch(() => {});
      }
      const page = await doc.getPage(n);
      const base = page.getViewport({ scale: 1 });
      const ratio = Math.min(
        opts.pixelRatio ?? globalThis.devicePixelRatio ?? 1,
        MAX_PIXEL_RATIO,
      );
      let scale = (opts.width / base.width) * ratio;
      const area = base.width * base.height * scale * scale;
      const max = opts.maxPixels ?? MAX_CANVAS_PIXELS;
      if (area > max) scale *= Math.sqrt(max / area);
      const viewport = page.getViewport({ scale });
      canvas.width = Math.max(1, Math.round(viewport.width));
      canvas.height = Math.max(1, Math.round(viewport.height));
      const task = page.render({ canvas, viewport });
      drawing.set(canvas, task);
      try {
        await task.promise;
      } finally {
        if (drawing.get(canvas) === task) drawing.delete(canvas);
      }
    },
    async lines(n) {
      const content = await (await doc.getPage(n)).getTextContent();
      return pdfLines(content.items as PdfTextItem[]);
    },
    async destroy() {
      await task.destroy();
    },
  };
}

/** Whether an error only says a draw was cancelled (a newer draw or destroy() took over). */
export function isCancelled(err: unknown): boolean {
  return (err as { name?: string } | null)?.name === "RenderingCancelledException";
}

/**
 * Page 1 as a JPEG whose long side is `maxSide` px (spec §9: previews are 1024): the preview
 * the device makes for a PDF at upload, so the server never renders untrusted PDFs.
 */
export async function renderFirstPage(
  data: ArrayBuffer | Uint8Array,
  maxSide = 1024,
): Promise<Blob> {
  const doc = await loadPdf(data);
  try {
    const canvas = document.createElement("canvas");
    const aspect = await doc.aspect(1);
    const width = aspect > 1 ? maxSide / aspect : maxSide;
    await doc.renderPage(1, canvas, { width, pixelRatio: 1, maxPixels: maxSide * maxSide });
    return await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob(
        (blob) => blob ? resolve(blob) : reject(new Error("the page could not be encoded")),
        "image/jpeg",
        0.85,
      )
    );
  } finally {
    await doc.destroy();
  }
}
