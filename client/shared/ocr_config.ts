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

/**
 * The second look (docs/receipts.md): a photo whose first reading found no date is read once
 * more, the paper alone (without the table it lies on) drawn twice as large, for the date only. A date is small print beside a
 * time; on a photo the receipt may fill a third of the frame (the rest a table), and at the
 * reading size its digits are a few pixels high. The first reading keeps everything else:
 * drawing every receipt cropped and larger read fewer totals on the corpus (88 % against 91 %).
 */
export const SECOND_LOOK_SCALE = 2;
/** The longest side of the second look's drawing (the time grows with the pixels). */
export const SECOND_LOOK_MAX_SIDE = 3000;
/** The width the paper is looked for at (a grey copy this wide is enough to find it). */
export const PAPER_LOOK_WIDTH = 240;

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Grey levels (0–255) of RGBA pixels. */
export function greyOf(rgba: Uint8ClampedArray | Uint8Array): Uint8Array {
  const out = new Uint8Array(rgba.length / 4);
  for (let i = 0; i < out.length; i++) {
    const j = i * 4;
    out[i] = (rgba[j] * 77 + rgba[j + 1] * 150 + rgba[j + 2] * 29) >> 8;
  }
  return out;
}

/** Otsu's threshold: the grey level that best parts the pixels (above `floor`) in two. */
function otsu(grey: Uint8Array, floor = -1): number {
  const hist = new Array<number>(256).fill(0);
  let count = 0;
  for (const g of grey) if (g > floor) hist[g]++, count++;
  let sum = 0;
  for (let i = 0; i < 256; i++) sum += i * hist[i];
  let below = 0, sumBelow = 0, best = 0, at = 128;
  for (let t = 0; t < 256; t++) {
    below += hist[t];
    if (!below) continue;
    const above = count - below;
    if (!above) break;
    sumBelow += t * hist[t];
    const m0 = sumBelow / below, m1 = (sum - sumBelow) / above;
    const between = below * above * (m0 - m1) ** 2;
    if (between > best) [best, at] = [between, t];
  }
  return at;
}

/**
 * The longest run of indexes whose value, averaged with its neighbours (a line of print is a
 * dark row across the paper), is at least `min`: [first, last] or null.
 */
function longestRun(raw: number[], min: number): [number, number] | null {
  const values = raw.map((_, i) => {
    const near = raw.slice(Math.max(0, i - 3), i + 4);
    return near.reduce((a, b) => a + b, 0) / near.length;
  });
  let best: [number, number] | null = null;
  let start = -1;
  for (let i = 0; i <= values.length; i++) {
    if (i < values.length && values[i] >= min) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      if (!best || i - 1 - start > best[1] - best[0]) best = [start, i - 1];
      start = -1;
    }
  }
  return best;
}

/**
 * Where the paper is in a grey image `width`×`height` (a small copy: PAPER_LOOK_WIDTH): the
 * columns mostly light, their longest run, then the rows mostly light within those columns,
 * "light" being above Otsu's threshold. A table or a wall lighter than that is taken in too, so
 * within that box the same again, among its light pixels only (the paper is the lightest thing
 * in a receipt photo). Null when the paper is (nearly) the whole image — a scan — or nothing
 * light stands out.
 */
export function paperBox(grey: Uint8Array, width: number, height: number): Box | null {
  if (width < 8 || height < 8 || grey.length !== width * height) return null;
  const t = otsu(grey);
  const outer = boxAbove(grey, width, height, t);
  if (!outer) return null;
  // Within it, the lightest part again: the paper on the table the first split took in.
  const inside = new Uint8Array(outer.width * outer.height);
  for (let y = 0; y < outer.height; y++) {
    for (let x = 0; x < outer.width; x++) {
      inside[y * outer.width + x] = grey[(outer.y + y) * width + outer.x + x];
    }
  }
  const inner = boxAbove(inside, outer.width, outer.height, otsu(inside, t));
  return inner ? { ...inner, x: outer.x + inner.x, y: outer.y + inner.y } : outer;
}

function boxAbove(grey: Uint8Array, width: number, height: number, t: number): Box | null {
  const light = (x: number, y: number) => grey[y * width + x] > t;
  const cols = Array.from({ length: width }, (_, x) => {
    let n = 0;
    for (let y = 0; y < height; y++) n += light(x, y) ? 1 : 0;
    return n / height;
  });
  const xs = longestRun(cols, 0.5);
  if (!xs) return null;
  const rows = Array.from({ length: height }, (_, y) => {
    let n = 0;
    for (let x = xs[0]; x <= xs[1]; x++) n += light(x, y) ? 1 : 0;
    return n / (xs[1] - xs[0] + 1);
  });
  const ys = longestRun(rows, 0.5);
  if (!ys) return null;
  // A margin, so print on the paper's edge stays whole.
  const padX = Math.ceil(width * 0.02), padY = Math.ceil(height * 0.02);
  const x0 = Math.max(0, xs[0] - padX), x1 = Math.min(width - 1, xs[1] + padX);
  const y0 = Math.max(0, ys[0] - padY), y1 = Math.min(height - 1, ys[1] + padY);
  const box = { x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 };
  // Too small to be a receipt, or (nearly) all of it: no crop.
  if (box.width < width * 0.1 || box.height < height * 0.3) return null;
  if (box.width * box.height > 0.85 * width * height) return null;
  return box;
}

/**
 * What the second look draws: `from`, the paper found in a small copy `looked`, scaled up to
 * the image's own pixels, and `to`, the size it is drawn at (SECOND_LOOK_SCALE times the
 * reading size, at most SECOND_LOOK_MAX_SIDE on its long side). Null without paper found: a
 * scan drawn larger read no more dates on the corpus, only slower.
 */
export function secondLook(
  width: number,
  height: number,
  paper: Box | null,
  looked: { width: number; height: number },
): { from: Box; to: { width: number; height: number } } | null {
  if (!paper) return null;
  const sx = width / looked.width, sy = height / looked.height;
  const from = {
    x: Math.round(paper.x * sx),
    y: Math.round(paper.y * sy),
    width: Math.min(width - Math.round(paper.x * sx), Math.round(paper.width * sx)),
    height: Math.min(height - Math.round(paper.y * sy), Math.round(paper.height * sy)),
  };
  // The reading size of that part (as the first reading drew it), then larger.
  const scale = SECOND_LOOK_SCALE * ocrSize(width, height).width / width;
  const wanted = { width: from.width * scale, height: from.height * scale };
  const cap = Math.min(1, SECOND_LOOK_MAX_SIDE / Math.max(wanted.width, wanted.height));
  return {
    from,
    to: {
      width: Math.max(1, Math.round(wanted.width * cap)),
      height: Math.max(1, Math.round(wanted.height * cap)),
    },
  };
}

/** The part of a 2D canvas context the second look draws with (the DOM's and @napi-rs/canvas's). */
export interface LookContext<I> {
  drawImage(
    image: I,
    sx: number,
    sy: number,
    sw: number,
    sh: number,
    dx: number,
    dy: number,
    dw: number,
    dh: number,
  ): void;
  getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
}

/**
 * The second look's drawing of `image` (the phone's OffscreenCanvas, the command line's
 * @napi-rs/canvas: `canvas(w, h)` makes one and its context), or null when no paper stands out.
 */
export function drawSecondLook<I extends { width: number; height: number }, C>(
  image: I,
  canvas: (width: number, height: number) => { canvas: C; context: LookContext<I> },
): C | null {
  const { width, height } = image;
  const small = ocrSize(width, height, PAPER_LOOK_WIDTH);
  const look = canvas(small.width, small.height).context;
  look.drawImage(image, 0, 0, width, height, 0, 0, small.width, small.height);
  const grey = greyOf(look.getImageData(0, 0, small.width, small.height).data);
  const plan = secondLook(width, height, paperBox(grey, small.width, small.height), small);
  if (!plan) return null;
  const { from, to } = plan;
  const out = canvas(to.width, to.height);
  out.context.drawImage(
    image,
    from.x,
    from.y,
    from.width,
    from.height,
    0,
    0,
    to.width,
    to.height,
  );
  return out.canvas;
}
