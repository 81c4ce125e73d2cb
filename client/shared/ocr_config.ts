/**
 * How a receipt is read, the same on the phone (client/ocr/read.ts, a Web Worker) and on the
 * command line (`deno task read-receipt`, server/ocr/): the engine's languages and settings and
 * the size an image is brought to before reading. Pure: no engine here.
 */
import { fit } from "./image_size.ts";
import type { ReceiptLanguage } from "./receipt_text.ts";

/** The engine (tesseract.js 7) language data shipped: one file each, loaded on first use. */
export const OCR_LANGUAGES = ["eng", "fra", "deu", "spa"] as const;
export type OcrLanguage = typeof OCR_LANGUAGES[number];

const OF: Record<ReceiptLanguage, OcrLanguage> = { en: "eng", fr: "fra", de: "deu", es: "spa" };

/**
 * The languages read, the person's first: receipts are mostly in the country's language, and
 * English ("TOTAL", "VAT", card slips) is everywhere. Each added language costs time.
 */
export function ocrLanguages(lang: ReceiptLanguage | undefined): OcrLanguage[] {
  const mine = OF[lang ?? "en"];
  return mine === "eng" ? ["eng"] : [mine, "eng"];
}

/**
 * Engine settings: page segmentation 6 ("a single uniform block of text": a receipt's lines,
 * each read whole, so an amount stays on its label's line) and spaces kept. On the corpus
 * (tests/bench/receipt_corpus.ts) 6 read more totals right than 4 ("a single column") and 11
 * ("sparse text"); drawing narrow scans larger read fewer, and slower.
 */
export const OCR_PARAMETERS: Readonly<Record<string, string>> = {
  tessedit_pageseg_mode: "6",
  preserve_interword_spaces: "1",
};

/** The longest side an image is brought to before reading (a 12 MP photo is 4,000 px). */
export const OCR_MAX_SIDE = 2000;

/** The size to draw an image at before reading: at most `max` on its long side, never enlarged. */
export function ocrSize(
  width: number,
  height: number,
  max = OCR_MAX_SIDE,
): { width: number; height: number } {
  return fit(width, height, max);
}

/** A PDF's pages read for a receipt (a long invoice's total is on its first pages). */
export const PDF_PAGES_READ = 5;
