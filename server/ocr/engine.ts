/**
 * The receipt reader on the command line and in tests: tesseract.js 7 (its Node build, on
 * Deno's worker_threads) with the language data of the npm packages, the same languages,
 * settings and image size as the phone (client/shared/ocr_config.ts), and the same reading of
 * the text (client/shared/receipt_text.ts). Images are drawn at the phone's size with
 * @napi-rs/canvas; a PDF with a text layer is read from its text, without OCR.
 */
import { createCanvas, loadImage } from "@napi-rs/canvas";
import { createWorker, type Worker } from "tesseract.js";
import { fileURLToPath } from "node:url";
import {
  drawSecondLook,
  OCR_PARAMETERS,
  type OcrLanguage,
  ocrLanguages,
  ocrSize,
  PDF_PAGES_READ,
} from "../../client/shared/ocr_config.ts";
import {
  pdfLines,
  type PdfTextItem,
  type ReadHints,
  type ReadReceipt,
  readReceiptText,
} from "../../client/shared/receipt_text.ts";

const DATA = fileURLToPath(new URL("../../node_modules/@tesseract.js-data/", import.meta.url));

/** tesseract.js wants one folder holding `<lang>.traineddata.gz`: the packages' best_int files. */
async function langFolder(langs: OcrLanguage[]): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "qcard-ocr-" });
  for (const l of langs) {
    await Deno.symlink(
      `${DATA}${l}/4.0.0_best_int/${l}.traineddata.gz`,
      `${dir}/${l}.traineddata.gz`,
    );
  }
  return dir;
}

export interface Reader {
  read(bytes: Uint8Array, hints?: ReadHints): Promise<ReadReceipt & { text: string; ms: number }>;
  close(): Promise<void>;
}

/** Starts the engine for `hints.lang`'s languages (one engine per reader: reuse it). */
export async function openReader(lang?: ReadHints["lang"]): Promise<Reader> {
  const langs = ocrLanguages(lang);
  const dir = await langFolder(langs);
  let worker: Worker | null = null;
  try {
    worker = await createWorker(langs, 1, { langPath: dir, cacheMethod: "none", gzip: true });
    await worker.setParameters(OCR_PARAMETERS as never);
  } catch (err) {
    await Deno.remove(dir, { recursive: true });
    throw err;
  }
  const w = worker;
  return {
    async read(bytes, hints = {}) {
      const t0 = performance.now();
      const all = { lang, ...hints };
      if (isPdf(bytes)) {
        const text = await pdfText(bytes);
        const read = readReceiptText(text, { ...all, exact: true });
        return { ...read, text, ms: Math.round(performance.now() - t0) };
      }
      const image = await loadImage(bytes);
      let text = await ocr(w, image);
      let read = readReceiptText(text, all);
      if (read.date === null) {
        // The second look, for the date only (client/shared/ocr_config.ts).
        // A look that fails keeps what the first reading found.
        const again = await ocrSecondLook(w, image).catch(() => null);
        const date = again === null ? null : readReceiptText(again, all).date;
        if (date) read = { ...read, date };
        if (again !== null) text += `\n${again}`;
      }
      return { ...read, text, ms: Math.round(performance.now() - t0) };
    },
    async close() {
      await w.terminate();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

const isPdf = (b: Uint8Array) => b[0] === 0x25 && b[1] === 0x50 && b[2] === 0x44 && b[3] === 0x46;

type Image = Awaited<ReturnType<typeof loadImage>>;

/** The image drawn at the phone's size, then read. */
async function ocr(worker: Worker, image: Image): Promise<string> {
  const { width, height } = ocrSize(image.width, image.height);
  const canvas = createCanvas(width, height);
  canvas.getContext("2d").drawImage(image, 0, 0, width, height);
  const { data } = await worker.recognize(canvas.toBuffer("image/png"));
  return data.text;
}

/** The paper alone, drawn larger, read (as client/ocr/read.ts does); null: no paper found. */
async function ocrSecondLook(worker: Worker, image: Image): Promise<string | null> {
  const drawn = drawSecondLook(image, (width, height) => {
    const canvas = createCanvas(width, height);
    return { canvas, context: canvas.getContext("2d") };
  });
  if (!drawn) return null;
  const { data } = await worker.recognize(drawn.toBuffer("image/png"));
  return data.text;
}

/** A PDF's text layer, line by line (pdf.js); empty when it has none (a scan). */
async function pdfText(bytes: Uint8Array): Promise<string> {
  const pdfjs = await import("pdfjs-dist/legacy/build/pdf.mjs");
  const task = pdfjs.getDocument({ data: bytes.slice(), useWasm: false, verbosity: 0 });
  const doc = await task.promise;
  const lines: string[] = [];
  try {
    for (let p = 1; p <= Math.min(doc.numPages, PDF_PAGES_READ); p++) {
      const content = await (await doc.getPage(p)).getTextContent();
      lines.push(...pdfLines(content.items as PdfTextItem[]));
    }
  } finally {
    await task.destroy();
  }
  return lines.join("\n");
}
