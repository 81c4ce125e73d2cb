/**
 * Build code (run by Deno from build.ts, never bundled into the app): pdf.js's worker and its
 * no-WebAssembly image decoders, copied from pdfjs-dist under content-hashed names.
 */
import { join } from "node:path";
import { ASSETS, contentHash, ROOT } from "./files.ts";

/**
 * pdf.js's legacy build: the modern one calls `Promise.withResolvers` and `URL.parse`
 * (Safari 17.4 / 18), newer than the phones build.ts's TARGET names. The worker is copied as it is.
 */
const PDFJS_DIST = "node_modules/pdfjs-dist/legacy/build";
/** Decoders pdf.js imports from `wasmUrl` when WebAssembly is off (CSP has no 'wasm-unsafe-eval'). */
const PDFJS_DECODERS = [
  "node_modules/pdfjs-dist/wasm/openjpeg_nowasm_fallback.js",
  "node_modules/pdfjs-dist/wasm/jbig2_nowasm_fallback.js",
];

/**
 * Copies pdf.js's worker to `/assets/pdfjs-worker-<hash>.js` and its no-WebAssembly image
 * decoders into `/assets/pdfjs-decoders-<hash>/` (pdf.js asks for them by their own names,
 * so the folder carries the hash). `.js`, not `.mjs`: the server types files by extension.
 */
export async function copyPdfjsFiles(
  outDir: string,
): Promise<{ worker: string; wasmUrl: string; decoders: string[] }> {
  const assets = join(outDir, ASSETS);
  await Deno.mkdir(assets, { recursive: true });
  const worker = await Deno.readFile(join(ROOT, PDFJS_DIST, "pdf.worker.min.mjs"));
  const workerName = `pdfjs-worker-${contentHash(worker)}.js`;
  await Deno.writeFile(join(assets, workerName), worker);

  const decoders = await Promise.all(PDFJS_DECODERS.map((p) => Deno.readFile(join(ROOT, p))));
  const folder = `pdfjs-decoders-${contentHash(...decoders)}`;
  await Deno.mkdir(join(assets, folder));
  const urls: string[] = [];
  for (const [i, path] of PDFJS_DECODERS.entries()) {
    const name = path.slice(path.lastIndexOf("/") + 1);
    await Deno.writeFile(join(assets, folder, name), decoders[i]);
    urls.push(`/${ASSETS}/${folder}/${name}`);
  }
  return { worker: `/${ASSETS}/${workerName}`, wasmUrl: `/${ASSETS}/${folder}/`, decoders: urls };
}
