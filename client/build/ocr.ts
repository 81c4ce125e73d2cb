/**
 * Build code (run by Deno from build.ts, never bundled into the app): the receipt reader's engine
 * (tesseract.js 7's worker, its SIMD WebAssembly core and the language data of
 * client/shared/ocr_config.ts), copied from npm into `/assets/ocr-<hash>/`. Served from our own
 * origin only (tesseract.js would fetch from a CDN by default), fetched on the first reading,
 * then cached by the service worker (on demand, like pdf.js), so reading works offline.
 */
import { join } from "node:path";
import { OCR_LANGUAGES } from "../shared/ocr_config.ts";
import { ASSETS, contentHash, ROOT } from "./files.ts";

/**
 * The core with SIMD and the LSTM engine only (tesseract.js picks relaxed SIMD first when
 * asked with a folder; one file named is one file shipped). SIMD: Chrome 91, Safari 16.4,
 * Firefox 89; a phone without it reads nothing (the person types, as before).
 */
const CORE = "node_modules/tesseract.js-core/tesseract-core-simd-lstm.wasm.js";
const WORKER = "node_modules/tesseract.js/dist/worker.min.js";
/** The "best" models quantised to integers: the accuracy of best at a third of its size. */
const langFile = (l: string) =>
  `node_modules/@tesseract.js-data/${l}/4.0.0_best_int/${l}.traineddata.gz`;

export interface OcrFiles {
  /** The engine's worker script (its CSP allows WebAssembly: server/middleware/security.ts). */
  worker: string;
  core: string;
  /** Folder of `<lang>.traineddata.gz`, with a trailing slash. */
  langPath: string;
  /** Every file, for the service worker's on-demand list. */
  files: string[];
}

export async function copyOcrFiles(outDir: string): Promise<OcrFiles> {
  const sources = [WORKER, CORE, ...OCR_LANGUAGES.map(langFile)];
  const bytes = await Promise.all(sources.map((p) => Deno.readFile(join(ROOT, p))));
  const folder = `ocr-${contentHash(...bytes)}`;
  const dir = join(outDir, ASSETS, folder);
  await Deno.mkdir(dir, { recursive: true });
  const base = `/${ASSETS}/${folder}/`;
  const files: string[] = [];
  for (const [i, src] of sources.entries()) {
    const name = i === 0 ? "worker.js" : src.slice(src.lastIndexOf("/") + 1);
    await Deno.writeFile(join(dir, name), bytes[i]);
    files.push(base + name);
  }
  return { worker: files[0], core: files[1], langPath: base, files };
}
