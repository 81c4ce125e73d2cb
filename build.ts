/**
 * Client build: esbuild bundles `client/main.tsx` (preact/compat flavour by default, real
 * react-dom with `--react`), copies `static/` with index.html pointing at the hashed files,
 * bundles the service worker with the precache list of this very build, writes a brotli
 * (`.br`) and a gzip (`.gz`) copy beside every compressible file, and reports sizes.
 *
 * pdf.js (spec §2's PDF viewer) is its own entry, `client/lib/pdfjs.ts` →
 * `/assets/pdfjs-<hash>.js`, loaded by `import()` only when a PDF is opened; its worker and its
 * no-WebAssembly image decoders are copied from `pdfjs-dist` into `/assets/` under
 * content-hashed names. These "on demand" files are left out of the precache (a first visit on
 * mobile data does not pay ~550 KB gzip for a viewer it may never use); the service worker
 * caches them at first use.
 *
 * This file is the bundling and the CLI; the other steps live in `client/build/` (Deno-run build
 * code, never bundled into the app): the shells, the precache list and the service worker,
 * compression, icons, pdf.js's files, the release and the size report.
 *
 *   deno run -A build.ts [--react] [--out DIR] [--no-minify]
 */
import * as esbuild from "esbuild";
import { join, resolve } from "node:path";
import { writeSupportPages } from "./server/support/pages.ts";
import { gzipSync } from "node:zlib";
import { brotli, precompress } from "./client/build/compress.ts";
import { ASSETS, emptyDir, ROOT, STATIC_DIR, toUrlPath } from "./client/build/files.ts";
import { writeIcons } from "./client/build/icons.ts";
import { copyPdfjsFiles } from "./client/build/pdfjs.ts";
import { copyOcrFiles } from "./client/build/ocr.ts";
import { buildServiceWorker } from "./client/build/precache.ts";
import { RELEASE_FILE, releaseInfo, sourceHash } from "./client/build/release.ts";
import {
  type BuildOptions,
  type BuildReport,
  type Flavour,
  formatReport,
  type OutputFile,
} from "./client/build/report.ts";
import { copyStatic, shellFiles, staticGraph } from "./client/build/shell.ts";

// What other modules import from build.ts, re-exported from where it lives now.
export { brotli, COMPRESSIBLE } from "./client/build/compress.ts";
export { contentHash } from "./client/build/files.ts";
export {
  drawIcon,
  encodePng,
  type IconKind,
  type IconRect,
  ICONS,
  parseIconSvg,
} from "./client/build/icons.ts";
export { type PrecacheEntry, precacheManifest } from "./client/build/precache.ts";
export {
  type Release,
  RELEASE_FILE,
  releaseFor,
  releaseInfo,
  sourceHash,
} from "./client/build/release.ts";
export {
  type BuildOptions,
  type BuildReport,
  type Flavour,
  formatReport,
  type OutputFile,
  type PdfFiles,
  type Precompressed,
} from "./client/build/report.ts";
export {
  APP_SHELL,
  fillRoot,
  injectShell,
  injectStaticShell,
  type Shell,
  UNLOCK_SHELL,
} from "./client/build/shell.ts";

const ENTRY = "client/main.tsx";
/**
 * The static shells' script: it fetches ENTRY after the first paint (client/boot.ts). Bundled
 * on its own and inlined into the shells; no file of it is left in the build.
 */
const BOOT_ENTRY = "client/boot.ts";
/** pdf.js behind a one-module facade; `client/lib/pdf.ts` imports it with `import()`. */
const PDFJS_ENTRY = "client/lib/pdfjs.ts";
/**
 * First-load JS before the PIN pad, gzip, preact flavour: 30 KB (was 45 KB). The
 * contracts' schemas (zod), the lists' code and the side panels come in chunks of their own.
 */
export const FIRST_LOAD_BUDGET_GZIP = 30 * 1024;
/**
 * Browsers targeted: Chrome 91+ (Android) and Safari 14.1+ / iOS 14.5+. Safari 14.0 is left
 * out: esbuild marks its destructuring as buggy and cannot lower it (workbox uses it). Chrome
 * 90 would cost every `a?.b()` its lowered form (esbuild marks V8's optional chaining buggy
 * before 91): about 0.3 KB gzip of the first load.
 */
const TARGET = ["es2020", "chrome91", "safari14.1", "ios14.5"];
/**
 * The preact flavour swaps React for preact/compat at resolve time, so app code imports
 * `react` and `@preact/signals-react` either way. The jsx runtime goes through compat's
 * own re-export, which also loads compat's React-compatible vnode hooks (className,
 * onChange…) even in a module that only renders JSX.
 */
const PREACT_ALIASES: Record<string, string> = {
  "react": "preact/compat",
  "react-dom": "preact/compat",
  "react-dom/client": "preact/compat/client",
  "react/jsx-runtime": "preact/compat/jsx-runtime",
  "react/jsx-dev-runtime": "preact/compat/jsx-dev-runtime",
  "@preact/signals-react": "@preact/signals",
  "@preact/signals-react/runtime": "./client/lib/signals_runtime_shim.ts",
  "@preact/signals-react/utils": "@preact/signals/utils",
};

/** Where the CLI writes when no `--out` is given. */
export function defaultOutDir(flavour: Flavour): string {
  return join(ROOT, "dist", flavour);
}

/** Builds the client, the shell and the service worker into `opts.outDir`. */
export async function build(opts: BuildOptions): Promise<BuildReport> {
  const outDir = resolve(opts.outDir);
  const minify = opts.minify ?? true;
  await emptyDir(outDir);
  const pdfjs = await copyPdfjsFiles(outDir);
  const ocr = await copyOcrFiles(outDir);
  const release = { ...(await releaseInfo()), ...opts.release };

  const app = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: { ...opts.extraEntries, main: ENTRY, boot: BOOT_ENTRY, pdfjs: PDFJS_ENTRY },
    outdir: join(outDir, ASSETS),
    publicPath: `/${ASSETS}/`,
    entryNames: "[name]-[hash]",
    chunkNames: "[name]-[hash]",
    assetNames: "[name]-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    target: TARGET,
    minify,
    sourcemap: "linked",
    metafile: true,
    jsx: "automatic",
    jsxImportSource: "react",
    alias: opts.flavour === "preact" ? PREACT_ALIASES : {},
    define: {
      "process.env.NODE_ENV": '"production"',
      QC_PDF_WORKER_URL: JSON.stringify(pdfjs.worker),
      QC_PDF_WASM_URL: JSON.stringify(pdfjs.wasmUrl),
      // Strings, not one object: an object define becomes a module every entry imports.
      QC_OCR_WORKER: JSON.stringify(ocr.worker),
      QC_OCR_CORE: JSON.stringify(ocr.core),
      QC_OCR_LANGS: JSON.stringify(ocr.langPath),
      QC_VERSION: JSON.stringify(release.version),
      QC_RELEASED: JSON.stringify(release.released),
      QC_SOURCE_HASH: JSON.stringify(await sourceHash()),
    },
    loader: {
      ".png": "file",
      ".jpg": "file",
      ".svg": "file",
      ".webp": "file",
      ".woff": "file",
      ".woff2": "file",
    },
    logLevel: "warning",
  });
  const urlOf = (output: string) => toUrlPath(outDir, resolve(ROOT, output));
  const shell = shellFiles(app.metafile, outDir, ENTRY, await takeBoot(app.metafile));
  const chunk = staticGraph(app.metafile, PDFJS_ENTRY).map(urlOf);
  const inShell = new Set(shell.js);
  const lazy = [
    ...chunk.filter((p) => !inShell.has(p)),
    pdfjs.worker,
    ...pdfjs.decoders,
    ...ocr.files,
  ];
  const extra: Record<string, string> = {};
  for (const [name, module] of Object.entries(opts.extraEntries ?? {})) {
    extra[name] = urlOf(staticGraph(app.metafile, module)[0]);
  }

  await copyStatic(join(ROOT, STATIC_DIR), outDir, shell, release);
  // Our own support pages (spec §2 support tab), before the worker so that they are precached.
  await writeSupportPages(outDir, shell.css);
  await writeIcons(outDir);
  // spec §1 version label, one source: the server answers `initialize` with this very file.
  await Deno.writeTextFile(join(outDir, RELEASE_FILE), JSON.stringify(release));
  await buildServiceWorker(outDir, minify, lazy, TARGET);
  // Last, so sw.js is compressed too and the precache list never names a copy.
  const files = await precompress(outDir);

  const byPath = new Map(files.map((f) => [f.path, f]));
  const sum = (paths: string[], size: (f: OutputFile) => number) =>
    paths.reduce((n, p) => n + (byPath.has(p) ? size(byPath.get(p)!) : 0), 0);
  const bootBytes = new TextEncoder().encode(shell.boot);
  const boot = {
    bytes: bootBytes.length,
    gzipBytes: gzipSync(bootBytes, { level: 9 }).length,
    brotliBytes: brotli(bootBytes).length,
  };
  return {
    flavour: opts.flavour,
    outDir,
    files,
    firstLoadJs: shell.js,
    boot,
    // The boot script is counted as if it were a file of its own (it is inside index.html).
    firstLoadJsGzip: boot.gzipBytes + sum(shell.js, (f) => f.gzipBytes),
    firstLoadJsBrotli: boot.brotliBytes + sum(shell.js, (f) => f.brotliBytes),
    firstLoadBrotli: sum(["/index.html", ...shell.js], (f) => f.brotliBytes),
    css: shell.css,
    pdf: {
      chunk: chunk[0],
      worker: pdfjs.worker,
      wasmUrl: pdfjs.wasmUrl,
      lazy,
      gzipBytes: sum([...chunk.filter((p) => !inShell.has(p)), pdfjs.worker], (f) => f.gzipBytes),
    },
    ocr: {
      files: ocr.files,
      // What the first reading fetches: the engine and the person's language with English.
      bytes: sum(ocr.files, (f) => f.bytes),
      sentBytes: sum(ocr.files, (f) => Math.min(f.brotliBytes, f.gzipBytes, f.bytes)),
    },
    extra,
    budgetGzip: FIRST_LOAD_BUDGET_GZIP,
    release,
  };
}

/**
 * The boot script's code, for the static shells to carry inline; its output file (and map) is
 * removed, so nothing serves or precaches it. It must import nothing: an import would be a
 * request before the app is asked for.
 */
async function takeBoot(meta: esbuild.Metafile): Promise<string> {
  const [output, ...imports] = staticGraph(meta, BOOT_ENTRY);
  if (imports.length) {
    throw new Error(`${BOOT_ENTRY} is inlined into the static shells and must import nothing`);
  }
  const file = resolve(ROOT, output);
  const code = await Deno.readTextFile(file);
  await Deno.remove(file);
  await Deno.remove(`${file}.map`).catch((e) => {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  });
  return code.replace(/\/\/# sourceMappingURL=\S*\s*$/, "").trim();
}

function parseArgs(args: string[]): BuildOptions {
  let flavour: Flavour = "preact";
  let outDir: string | undefined;
  let minify = true;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--react") flavour = "react";
    else if (arg === "--preact") flavour = "preact";
    else if (arg === "--no-minify") minify = false;
    else if (arg === "--serve") continue; // read below
    else if (arg === "--out" && args[i + 1]) outDir = args[++i];
    else if (arg.startsWith("--out=")) outDir = arg.slice("--out=".length);
    else {throw new Error(
        `unknown argument ${arg}; usage: build.ts [--react] [--out DIR] [--no-minify] [--serve]`,
      );}
  }
  return { flavour, outDir: outDir ?? defaultOutDir(flavour), minify };
}

if (import.meta.main) {
  let built = false;
  try {
    console.log(formatReport(await build(parseArgs(Deno.args))));
    built = true;
  } catch (e) {
    console.error(e instanceof Error ? e.message : e);
    Deno.exitCode = 1;
  } finally {
    await esbuild.stop();
  }
  // `deno task dev`: build (unminified), then serve in this process; `--watch` restarts it on
  // any change under client/, server/ or static/, which builds again.
  if (built && Deno.args.includes("--serve")) await import("./main.ts");
}
