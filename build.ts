/**
 * Client build: esbuild bundles `client/main.tsx` (preact/compat flavour by default, real
 * react-dom with `--react`), copies `static/` with index.html pointing at the hashed files,
 * bundles the service worker with the precache list of this very build, writes a brotli
 * (`.br`) and a gzip (`.gz`) copy beside every compressible file, and reports sizes.
 *
 * pdf.js (issue 12) is its own entry, `client/lib/pdfjs.ts` → `/assets/pdfjs-<hash>.js`,
 * loaded by `import()` only when a PDF is opened; its worker and its no-WebAssembly image
 * decoders are copied from `pdfjs-dist` into `/assets/` under content-hashed names. These
 * "on demand" files are left out of the precache (a first visit on mobile data does not pay
 * ~550 KB gzip for a viewer it may never use); the service worker caches them at first use.
 *
 *   deno run -A build.ts [--react] [--out DIR] [--no-minify]
 */
import * as esbuild from "esbuild";
import { createHash } from "node:crypto";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { writeSupportPages } from "./server/support/pages.ts";
import { brotliCompressSync, constants as zlib, deflateSync, gzipSync } from "node:zlib";

/** Which UI runtime the bundle carries: preact/compat (~7 KB gzip) or React 19 (~69 KB). */
export type Flavour = "preact" | "react";

export interface BuildOptions {
  flavour: Flavour;
  /** Emptied first, then filled. Refused when it is the project or one of its parents. */
  outDir: string;
  /** Default true. */
  minify?: boolean;
  /**
   * Extra entry points (name → module), built with the app so they share its chunks. For
   * test and bench pages only: the CLI never sets it, so production carries none of them.
   */
  extraEntries?: Record<string, string>;
  /**
   * The version label (spec §1 'V 2.25.0211, released 11-02-2025'); each part defaults to
   * {@link releaseInfo}. Tests set it to make a second build differ from the first.
   */
  release?: Partial<Release>;
}

/**
 * The build's release, written beside index.html: the server reads it for `initialize`
 * (server/release.ts), so the app's label and the server's answer cannot differ.
 */
export const RELEASE_FILE = "release.json";

/** What the version label shows: `V <version>, released <released>`. */
export interface Release {
  /** `2.<yy>.<MMdd>` of the release date unless QC_VERSION says otherwise. */
  version: string;
  /** dd-MM-yyyy (spec §1). */
  released: string;
}

/** A content coding the build writes beside a file: `file.br`, `file.gz`. */
export type Precompressed = "br" | "gzip";

/** One file of the build, addressed by the URL path the server gives it. */
export interface OutputFile {
  path: string;
  bytes: number;
  /** gzip -9 size, whether or not a `.gz` copy was written. */
  gzipBytes: number;
  /** What a browser that accepts br receives: the `.br` copy's size, else `bytes`. */
  brotliBytes: number;
  /** The compressed copies written beside the file (only those smaller than the file). */
  precompressed: Precompressed[];
}

export interface BuildReport {
  flavour: Flavour;
  outDir: string;
  /**
   * Every file in outDir (source maps included), sorted by path; the `.br`/`.gz` copies are
   * not listed on their own but in their file's `precompressed`.
   */
  files: OutputFile[];
  /** URL paths of the JS the shell loads up front: the entry first, then its static chunks. */
  firstLoadJs: string[];
  /**
   * URL path of the static shells' only script (client/boot.ts): after the first paint it
   * fetches firstLoadJs. Counted in the sums below.
   */
  boot: string;
  /** Sum of gzipBytes over boot and firstLoadJs. */
  firstLoadJsGzip: number;
  /** Sum of brotliBytes over boot and firstLoadJs. */
  firstLoadJsBrotli: number;
  /**
   * Sum of brotliBytes over index.html (its stylesheet inline), boot and firstLoadJs: the
   * first visit, as sent.
   */
  firstLoadBrotli: number;
  /**
   * URL path of the stylesheet: `app.html` and the support pages link it; `index.html` and
   * `unlock.html` carry it inline.
   */
  css: string | null;
  /** pdf.js, loaded only when a PDF is opened (issue 12). */
  pdf: PdfFiles;
  /** URL paths of the extra entries' outputs, by entry name. */
  extra: Record<string, string>;
  /** The first-load JS budget before the PIN pad, gzip bytes (preact flavour; issue 12). */
  budgetGzip: number;
  /** The version label this build shows. */
  release: Release;
}

/** Where the build put pdf.js; none of these files is precached or part of the first load. */
export interface PdfFiles {
  /** The pdf.js chunk `client/lib/pdf.ts` imports: `/assets/pdfjs-<hash>.js`. */
  chunk: string;
  /** `GlobalWorkerOptions.workerSrc`: `/assets/pdfjs-worker-<hash>.js` (a module worker). */
  worker: string;
  /** Folder (ending in `/`) of the no-WebAssembly JPEG 2000 and JBIG2 decoders: `wasmUrl`. */
  wasmUrl: string;
  /** Every on-demand file: the chunk and its static imports, the worker, the decoders. */
  lazy: string[];
  /** Sum of gzipBytes of the chunk (and its own static imports) and the worker. */
  gzipBytes: number;
}

const ROOT = dirname(fileURLToPath(import.meta.url));
const ENTRY = "client/main.tsx";
/** The static shells' script: it fetches ENTRY after the first paint (client/boot.ts). */
const BOOT_ENTRY = "client/boot.ts";
/** pdf.js behind a one-module facade; `client/lib/pdf.ts` imports it with `import()`. */
const PDFJS_ENTRY = "client/lib/pdfjs.ts";
/**
 * pdf.js's legacy build: the modern one calls `Promise.withResolvers` and `URL.parse`
 * (Safari 17.4 / 18), newer than the phones TARGET names. The worker is copied as it is.
 */
const PDFJS_DIST = "node_modules/pdfjs-dist/legacy/build";
/** Decoders pdf.js imports from `wasmUrl` when WebAssembly is off (CSP has no 'wasm-unsafe-eval'). */
const PDFJS_DECODERS = [
  "node_modules/pdfjs-dist/wasm/openjpeg_nowasm_fallback.js",
  "node_modules/pdfjs-dist/wasm/jbig2_nowasm_fallback.js",
];
/**
 * First-load JS before the PIN pad, gzip, preact flavour: 30 KB (issue 26; was 45 KB). The
 * contracts' schemas (zod), the lists' code and the side panels come in chunks of their own.
 */
export const FIRST_LOAD_BUDGET_GZIP = 30 * 1024;
const SERVICE_WORKER = "client/sw/sw.ts";
const STATIC_DIR = "static";
const ASSETS = "assets";
/**
 * Browsers targeted: Chrome 90+ (Android) and Safari 14.1+ / iOS 14.5+. Safari 14.0 is left
 * out: esbuild marks its destructuring as buggy and cannot lower it (workbox uses it).
 */
const TARGET = ["es2020", "chrome90", "safari14.1", "ios14.5"];
/**
 * Files never precached: the worker itself, source maps, crawler hints, the release file, and
 * the compressed copies (the browser asks for the file; the server picks the copy by Accept-Encoding).
 */
const NOT_PRECACHED = [
  /^\/sw\.js(\.map)?$/,
  /\.map$/,
  /^\/robots\.txt$/,
  /\.(?:br|gz)$/,
  // Read by the server (initialize's version), not by the app: the label is in the bundle.
  /^\/release\.json$/,
];
/**
 * Text files the server sends compressed. Source maps are left out: production does not
 * serve them, and development can afford their raw bytes.
 */
export const COMPRESSIBLE = /\.(?:js|css|html|json|webmanifest|svg|txt)$/;
/** Suffix of each precompressed copy. */
const SUFFIX: Record<Precompressed, string> = { br: ".br", gzip: ".gz" };

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
  const shell = shellFiles(app.metafile, outDir, urlOf(staticGraph(app.metafile, BOOT_ENTRY)[0]));
  const chunk = staticGraph(app.metafile, PDFJS_ENTRY).map(urlOf);
  const inShell = new Set(shell.js);
  const lazy = [...chunk.filter((p) => !inShell.has(p)), pdfjs.worker, ...pdfjs.decoders];
  const extra: Record<string, string> = {};
  for (const [name, module] of Object.entries(opts.extraEntries ?? {})) {
    extra[name] = urlOf(staticGraph(app.metafile, module)[0]);
  }

  await copyStatic(join(ROOT, STATIC_DIR), outDir, shell, release);
  // Our own support pages (issue 13), before the worker so that they are precached.
  await writeSupportPages(outDir, shell.css);
  await writeIcons(outDir);
  // spec §1 version label, one source: the server answers `initialize` with this very file.
  await Deno.writeTextFile(join(outDir, RELEASE_FILE), JSON.stringify(release));
  await buildServiceWorker(outDir, minify, lazy);
  // Last, so sw.js is compressed too and the precache list never names a copy.
  const files = await precompress(outDir);

  const byPath = new Map(files.map((f) => [f.path, f]));
  const sum = (paths: string[], size: (f: OutputFile) => number) =>
    paths.reduce((n, p) => n + (byPath.has(p) ? size(byPath.get(p)!) : 0), 0);
  const firstJs = [shell.boot, ...shell.js];
  return {
    flavour: opts.flavour,
    outDir,
    files,
    firstLoadJs: shell.js,
    boot: shell.boot,
    firstLoadJsGzip: sum(firstJs, (f) => f.gzipBytes),
    firstLoadJsBrotli: sum(firstJs, (f) => f.brotliBytes),
    firstLoadBrotli: sum(["/index.html", ...firstJs], (f) => f.brotliBytes),
    css: shell.css,
    pdf: {
      chunk: chunk[0],
      worker: pdfjs.worker,
      wasmUrl: pdfjs.wasmUrl,
      lazy,
      gzipBytes: sum([...chunk.filter((p) => !inShell.has(p)), pdfjs.worker], (f) => f.gzipBytes),
    },
    extra,
    budgetGzip: FIRST_LOAD_BUDGET_GZIP,
    release,
  };
}

/** The output of `entry` first, then every output it imports statically (transitively). */
function staticGraph(meta: esbuild.Metafile, entry: string): string[] {
  const found = Object.entries(meta.outputs).find(([, o]) => o.entryPoint === entry);
  if (!found) throw new Error(`esbuild produced no output for ${entry}`);
  const seen = new Set<string>();
  const walk = (output: string) => {
    if (seen.has(output)) return;
    seen.add(output);
    for (const imp of meta.outputs[output]?.imports ?? []) {
      if (imp.kind === "import-statement" && !imp.external) walk(imp.path);
    }
  };
  walk(found[0]);
  return [...seen];
}

/** esbuild's style of content hash: 8 characters of base32 over the SHA-256 of the bytes. */
export function contentHash(...parts: Uint8Array[]): string {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  const bytes = h.digest();
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let out = "";
  for (let bit = 0; out.length < 8; bit += 5) {
    const i = bit >> 3;
    const v = ((bytes[i] << 8) | bytes[i + 1]) >> (11 - (bit & 7));
    out += alphabet[v & 31];
  }
  return out;
}

/**
 * Copies pdf.js's worker to `/assets/pdfjs-worker-<hash>.js` and its no-WebAssembly image
 * decoders into `/assets/pdfjs-decoders-<hash>/` (pdf.js asks for them by their own names,
 * so the folder carries the hash). `.js`, not `.mjs`: the server types files by extension.
 */
async function copyPdfjsFiles(
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

/** The hashed files index.html loads. */
export interface Shell {
  /** Entry first, then every chunk it imports statically (transitively). */
  js: string[];
  css: string | null;
  /** The static shells' script (client/boot.ts), which loads `js` after the first paint. */
  boot: string;
}

/** Reads the entry's static import graph and stylesheet out of esbuild's metafile. */
function shellFiles(meta: esbuild.Metafile, outDir: string, boot: string): Shell {
  const urlOf = (output: string) => toUrlPath(outDir, resolve(ROOT, output));
  const outputs = Object.entries(meta.outputs);
  const entry = outputs.find(([, o]) => o.entryPoint === ENTRY);
  if (!entry) throw new Error(`esbuild produced no output for ${ENTRY}`);

  const seen = new Set<string>();
  const walk = (output: string) => {
    if (seen.has(output)) return;
    seen.add(output);
    for (const imp of meta.outputs[output]?.imports ?? []) {
      if (imp.kind === "import-statement" && !imp.external) walk(imp.path);
    }
  };
  walk(entry[0]);

  const css = entry[1].cssBundle ?? null;
  // esbuild emits CSS reached only through import() as a separate file that nothing loads.
  const strayCss = outputs.map(([p]) => p).filter((p) => p.endsWith(".css") && p !== css);
  if (strayCss.length) {
    throw new Error(
      `CSS imported only from lazily loaded code would never be applied: ${strayCss.join(", ")}.` +
        ` Import it from a module that ${ENTRY} imports statically.`,
    );
  }
  return { js: [...seen].map(urlOf), css: css ? urlOf(css) : null, boot };
}

/**
 * Copies static/ into outDir; index.html gets the stylesheet, preloads and entry script, and
 * the activation screen's markup in its root (a first visit paints it before any script).
 * Two more shells: `unlock.html` with the PIN pad (the server answers it to a navigation that
 * carries the PIN length cookie, spec §4) and `app.html` with an empty root (the service
 * worker's shell: it cannot read the cookies on every phone, so the app renders the screen).
 */
async function copyStatic(
  from: string,
  to: string,
  shell: Shell,
  release: Release,
): Promise<void> {
  const { renderFirstScreen } = await import("./client/app/static_shell.tsx");
  for await (const file of walk(from)) {
    const target = join(to, relative(from, file));
    await Deno.mkdir(dirname(target), { recursive: true });
    if (relative(from, file) === "index.html") {
      const source = await Deno.readTextFile(file);
      const css = shell.css ? await Deno.readTextFile(join(to, shell.css)) : null;
      const html = injectStaticShell(source, shell, css);
      await Deno.writeTextFile(target, fillRoot(html, renderFirstScreen("activate", release)));
      await Deno.writeTextFile(
        join(to, UNLOCK_SHELL),
        fillRoot(html, renderFirstScreen("unlock", release)),
      );
      await Deno.writeTextFile(join(to, APP_SHELL), injectShell(source, shell));
    } else {
      await Deno.copyFile(file, target);
    }
  }
}

/**
 * Adds the hashed files to the shell's head. Only external scripts and stylesheets: the
 * server's CSP is `script-src 'self'`, so an inline script or style would be blocked.
 */
export function injectShell(html: string, shell: Pick<Shell, "js" | "css">): string {
  if (
    /<script(?![^>]*\ssrc=)[^>]*>|<style[\s>]|\sstyle=|\son[a-z]+=/i.test(html)
  ) {
    throw new Error(
      "static/index.html must not contain inline scripts, styles or handlers",
    );
  }
  if (!html.includes("</head>")) {
    throw new Error("static/index.html has no </head>");
  }
  const [entry, ...chunks] = shell.js;
  const tags = [
    ...(shell.css ? [`<link rel="stylesheet" href="${shell.css}">`] : []),
    ...chunks.map((src) => `<link rel="modulepreload" href="${src}">`),
    `<script type="module" src="${entry}"></script>`,
  ];
  return html.replace(
    /([ \t]*)<\/head>/,
    (_, indent: string) => `${tags.map((t) => `${indent}  ${t}\n`).join("")}${indent}</head>`,
  );
}

/**
 * The head of the static shells (`index.html`, `unlock.html`: a first visit, no service
 * worker yet): the stylesheet inline, so the first screen paints when the HTML arrives, and
 * one script, client/boot.ts, which fetches the entry and its chunks after that paint. The
 * server's CSP names the inline stylesheet by its SHA-256 (server/routes/static.ts); scripts
 * stay external (`script-src 'self'`).
 */
export function injectStaticShell(html: string, shell: Shell, css: string | null): string {
  injectShell(html, shell); // the same checks of static/index.html
  if (css?.includes("</style")) throw new Error("the stylesheet cannot be inlined: </style");
  const [entry, ...chunks] = shell.js;
  const tags = [
    // The source map comment's URL would be read relative to the page: left out.
    ...(css === null
      ? []
      : [`<style>${css.replace(/\/\*# sourceMappingURL=[^*]*\*\/\s*$/, "").trimEnd()}</style>`]),
    `<script type="module" src="${shell.boot}" data-entry="${entry}" data-preload="${
      chunks.join(" ")
    }"></script>`,
  ];
  return html.replace(
    /([ \t]*)<\/head>/,
    (_, indent: string) => `${tags.map((t) => `${indent}  ${t}\n`).join("")}${indent}</head>`,
  );
}

/** The shell with the PIN pad's markup, for a navigation with the PIN length cookie. */
export const UNLOCK_SHELL = "unlock.html";
/** The shell with an empty root, which the service worker answers navigations with. */
export const APP_SHELL = "app.html";

/** Puts `markup` into the shell's empty `<div id="root"></div>`. */
export function fillRoot(html: string, markup: string): string {
  const empty = '<div id="root"></div>';
  if (!html.includes(empty)) throw new Error(`static/index.html has no ${empty}`);
  return html.replace(empty, () => `<div id="root">${markup}</div>`);
}

/** A workbox precache entry: hashed names need no revision, the rest get a content hash. */
export interface PrecacheEntry {
  url: string;
  revision: string | null;
}

/** Lists every file of outDir the service worker should precache: all but `onDemand`. */
export async function precacheManifest(
  outDir: string,
  onDemand: readonly string[] = [],
): Promise<PrecacheEntry[]> {
  const entries: PrecacheEntry[] = [];
  const skip = new Set(onDemand);
  for await (const file of walk(outDir)) {
    const url = toUrlPath(outDir, file);
    if (NOT_PRECACHED.some((re) => re.test(url)) || skip.has(url)) continue;
    const revision = url.startsWith(`/${ASSETS}/`)
      ? null
      : createHash("sha256").update(await Deno.readFile(file)).digest("hex")
        .slice(0, 16);
    entries.push({ url, revision });
  }
  return entries.sort((a, b) => a.url.localeCompare(b.url));
}

/**
 * Bundles the worker as an IIFE (classic worker: registered without `type: "module"`,
 * which Safari 14 lacks) with this build's precache list in place of `self.__WB_MANIFEST`.
 * Built last so the list covers everything else; any change to the shell changes sw.js,
 * which is what makes the browser install a new version. `onDemand` files are not
 * precached; the worker caches them at first use (`self.__QC_ON_DEMAND`).
 */
async function buildServiceWorker(
  outDir: string,
  minify: boolean,
  onDemand: readonly string[],
): Promise<void> {
  const manifest = await precacheManifest(outDir, onDemand);
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [SERVICE_WORKER],
    outfile: join(outDir, "sw.js"),
    bundle: true,
    format: "iife",
    platform: "browser",
    target: TARGET,
    minify,
    sourcemap: "linked",
    define: {
      "process.env.NODE_ENV": '"production"',
      "self.__WB_MANIFEST": JSON.stringify(manifest),
      "self.__QC_ON_DEMAND": JSON.stringify(onDemand),
    },
    logLevel: "warning",
  });
}

/** Brotli at its best (quality 11, text mode): paid once per build, not per request. */
export function brotli(bytes: Uint8Array): Uint8Array {
  return brotliCompressSync(bytes, {
    params: {
      [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY,
      [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
      [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
}

/**
 * Writes `file.br` and `file.gz` beside every compressible file of outDir (each only when
 * smaller than the file) and returns the size of every file.
 */
async function precompress(outDir: string): Promise<OutputFile[]> {
  const files: OutputFile[] = [];
  for await (const file of walk(outDir)) {
    const bytes = await Deno.readFile(file);
    const gz = gzipSync(bytes, { level: 9 });
    const out: OutputFile = {
      path: toUrlPath(outDir, file),
      bytes: bytes.length,
      gzipBytes: gz.length,
      brotliBytes: bytes.length,
      precompressed: [],
    };
    if (COMPRESSIBLE.test(file)) {
      const br = brotli(bytes);
      for (const [coding, copy] of [["br", br], ["gzip", gz]] as const) {
        if (copy.length >= bytes.length) continue;
        await Deno.writeFile(file + SUFFIX[coding], copy);
        out.precompressed.push(coding);
      }
      if (br.length < bytes.length) out.brotliBytes = br.length;
    }
    files.push(out);
  }
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

/** The size table the CLI prints; source maps are left out (browsers fetch them only in devtools). */
export function formatReport(report: BuildReport): string {
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const firstLoad = new Set(report.firstLoadJs);
  const onDemand = new Set(report.pdf.lazy);
  const rows = report.files.filter((f) => !f.path.endsWith(".map")).map((f) => [
    `${firstLoad.has(f.path) ? "*" : onDemand.has(f.path) ? "~" : " "} ${f.path}`,
    kb(f.bytes),
    kb(f.gzipBytes),
    kb(f.brotliBytes),
  ]);
  const header = ["  file", "raw", "gzip", "br"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join("  ");
  return [
    `${report.flavour} build → ${report.outDir}`,
    line(header),
    ...rows.map(line),
    `* first-load JS: ${report.firstLoadJs.length} file(s), ${kb(report.firstLoadJsGzip)} gzip, ` +
    `${kb(report.firstLoadJsBrotli)} br`,
    `  first visit as sent (index.html with its CSS, boot script, first-load JS): ${
      kb(report.firstLoadBrotli)
    } br`,
    report.flavour === "preact"
      ? `  budget ${kb(report.budgetGzip)} gzip: ${
        report.firstLoadJsGzip <= report.budgetGzip ? "ok" : "OVER"
      }`
      : "  (the first-load budget applies to the preact flavour)",
    `~ on demand (pdf.js, not precached): chunk + worker ${kb(report.pdf.gzipBytes)} gzip`,
  ].join("\n");
}

/** The product's major version; the rest of the version is the release date (spec §1). */
const MAJOR_VERSION = 2;

/**
 * The version label of spec §1 for a release date: 'V 2.25.0211, released 11-02-2025' is
 * version `2.<yy>.<MMdd>` released `dd-MM-yyyy` (UTC). `version` replaces the first part.
 */
export function releaseFor(date: Date, version?: string): Release {
  const two = (n: number) => String(n).padStart(2, "0");
  const [y, m, d] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
  return {
    version: version ?? `${MAJOR_VERSION}.${two(y % 100)}.${two(m)}${two(d)}`,
    released: `${two(d)}-${two(m)}-${y}`,
  };
}

/**
 * A fingerprint of the client's sources and the locked dependencies (zod's among them): the
 * app stamps what it caches with it (client/actions/cache.ts), so data cached by this very
 * code, checked against its schemas when it arrived, is not checked again on every start.
 */
export async function sourceHash(): Promise<string> {
  const files: string[] = [];
  for await (const file of walk(join(ROOT, "client"))) {
    if (/\.(?:ts|tsx|css)$/.test(file)) files.push(file);
  }
  files.sort();
  const h = createHash("sha256");
  for (const file of [...files, join(ROOT, "package-lock.json")]) {
    h.update(relative(ROOT, file)).update("\0").update(await Deno.readFile(file)).update("\0");
  }
  return h.digest("hex").slice(0, 16);
}

/**
 * The release this build is: `QC_RELEASED` (yyyy-MM-dd or dd-MM-yyyy) and `QC_VERSION` when
 * set; else the date of the last commit (so rebuilding the same commit gives the same
 * files), `SOURCE_DATE_EPOCH`, or today where there is no git.
 */
export async function releaseInfo(): Promise<Release> {
  const version = Deno.env.get("QC_VERSION") || undefined;
  const given = Deno.env.get("QC_RELEASED");
  if (given) {
    const dmy = /^(\d{2})-(\d{2})-(\d{4})$/.exec(given);
    const iso = dmy ? `${dmy[3]}-${dmy[2]}-${dmy[1]}` : given;
    const date = new Date(`${iso}T00:00:00Z`);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(iso) || isNaN(date.getTime())) {
      throw new Error(`QC_RELEASED must be yyyy-MM-dd or dd-MM-yyyy, not ${given}`);
    }
    return releaseFor(date, version);
  }
  const epoch = Number(Deno.env.get("SOURCE_DATE_EPOCH") || NaN);
  if (Number.isFinite(epoch)) return releaseFor(new Date(epoch * 1000), version);
  try {
    const out = await new Deno.Command("git", {
      args: ["log", "-1", "--format=%ct"],
      cwd: ROOT,
      stdout: "piped",
      stderr: "null",
    }).output();
    const seconds = Number(new TextDecoder().decode(out.stdout).trim());
    if (out.success && seconds > 0) return releaseFor(new Date(seconds * 1000), version);
  } catch { /* no git here (a deploy bundle, a tarball): today's date */ }
  return releaseFor(new Date(), version);
}

/**
 * The PNG icons of the manifest and iOS, drawn at build from `static/icons/icon.svg` so the
 * SVG stays the one source of the logo (no image library, no checked-in binaries).
 * `any`: as the SVG (rounded, transparent corners); `maskable`: background to the edges
 * and the logo shrunk into the safe zone (a circle of 40 % of the size); `full`: to the
 * edges for iOS, which rounds the corners itself.
 */
export const ICONS = [
  { name: "icon-192.png", size: 192, kind: "any" },
  { name: "icon-512.png", size: 512, kind: "any" },
  { name: "maskable-192.png", size: 192, kind: "maskable" },
  { name: "maskable-512.png", size: 512, kind: "maskable" },
  { name: "apple-touch-icon.png", size: 180, kind: "full" },
] as const;
export type IconKind = (typeof ICONS)[number]["kind"];

/** One `<rect>` of the logo, in the SVG's user units; fill as [r, g, b]. */
export interface IconRect {
  x: number;
  y: number;
  width: number;
  height: number;
  rx: number;
  fill: [number, number, number];
}

/**
 * Reads the logo: a square viewBox and `<rect>`s with solid hex fills, drawn in order.
 * Anything else (paths, circles, gradients) is refused: this drawer would silently drop it.
 */
export function parseIconSvg(svg: string): { size: number; rects: IconRect[] } {
  const other =
    /<(path|circle|ellipse|line|polyline|polygon|image|text|use|linearGradient|radialGradient|g)\b/
      .exec(svg);
  if (other) throw new Error(`icon.svg: <${other[1]}> is not drawn by build.ts; use <rect>s`);
  const vb = /viewBox="0 0 (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)"/.exec(svg);
  if (!vb || vb[1] !== vb[2]) throw new Error('icon.svg needs a square viewBox="0 0 N N"');
  const rects: IconRect[] = [];
  for (const m of svg.matchAll(/<rect\b([^>]*?)\/?>/g)) {
    const attr = (name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(m[1])?.[1];
    const num = (name: string) => Number(attr(name) ?? 0);
    const hex = attr("fill") ?? "";
    const full = /^#[0-9a-f]{3}$/i.test(hex)
      ? "#" + [...hex.slice(1)].map((c) => c + c).join("")
      : hex;
    if (!/^#[0-9a-f]{6}$/i.test(full)) {
      throw new Error(`icon.svg: fill "${hex}" is not #rgb or #rrggbb`);
    }
    const fill = [1, 3, 5].map((i) => parseInt(full.slice(i, i + 2), 16)) as [
      number,
      number,
      number,
    ];
    rects.push({
      x: num("x"),
      y: num("y"),
      width: num("width"),
      height: num("height"),
      rx: num("rx"),
      fill,
    });
  }
  if (!rects.length) throw new Error("icon.svg has no <rect>");
  return { size: Number(vb[1]), rects };
}

/**
 * Draws the logo as RGBA pixels, 4×4 samples a pixel (anti-aliased edges). The first rect
 * is the background: to the edges for `maskable` and `full`, where the others are scaled
 * about the centre (0.8 for maskable).
 */
export function drawIcon(
  logo: { size: number; rects: IconRect[] },
  size: number,
  kind: IconKind,
): Uint8Array {
  const k = size / logo.size;
  const scale = kind === "maskable" ? 0.8 : 1;
  const c = size / 2;
  const rects = logo.rects.map((r, i) => {
    if (i === 0 && kind !== "any") return { ...r, x: 0, y: 0, width: size, height: size, rx: 0 };
    const s = k * scale;
    return {
      ...r,
      x: c + (r.x * k - c) * scale,
      y: c + (r.y * k - c) * scale,
      width: r.width * s,
      height: r.height * s,
      rx: r.rx * s,
    };
  });
  const inside = (r: IconRect, px: number, py: number) => {
    if (px < r.x || py < r.y || px > r.x + r.width || py > r.y + r.height) return false;
    const rad = Math.min(r.rx, r.width / 2, r.height / 2);
    const dx = Math.max(r.x + rad - px, px - (r.x + r.width - rad), 0);
    const dy = Math.max(r.y + rad - py, py - (r.y + r.height - rad), 0);
    return dx * dx + dy * dy <= rad * rad;
  };
  const top = (px: number, py: number) => {
    for (let i = rects.length - 1; i >= 0; i--) if (inside(rects[i], px, py)) return i;
    return -1;
  };
  // The shape on top at every pixel corner: a pixel whose four corners agree is one colour;
  // only the others (edges) are sampled 4×4.
  const corner = new Int8Array((size + 1) * (size + 1));
  for (let y = 0; y <= size; y++) {
    for (let x = 0; x <= size; x++) corner[y * (size + 1) + x] = top(x, y);
  }
  const SS = 4;
  const out = new Uint8Array(size * size * 4);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const at = y * (size + 1) + x;
      const t = corner[at];
      let n = 0, red = 0, green = 0, blue = 0;
      if (t === corner[at + 1] && t === corner[at + size + 1] && t === corner[at + size + 2]) {
        if (t >= 0) {
          const f = rects[t].fill;
          n = SS * SS, red = f[0] * n, green = f[1] * n, blue = f[2] * n;
        }
      } else {
        for (let sy = 0; sy < SS; sy++) {
          for (let sx = 0; sx < SS; sx++) {
            const i = top(x + (sx + 0.5) / SS, y + (sy + 0.5) / SS);
            if (i < 0) continue;
            const f = rects[i].fill;
            red += f[0], green += f[1], blue += f[2], n++;
          }
        }
      }
      const o = (y * size + x) * 4;
      if (n) {
        out[o] = Math.round(red / n);
        out[o + 1] = Math.round(green / n);
        out[o + 2] = Math.round(blue / n);
        out[o + 3] = Math.round((255 * n) / (SS * SS));
      }
    }
  }
  return out;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** A minimal PNG writer: 8-bit RGBA, no filter, zlib at level 9. */
export function encodePng(width: number, height: number, rgba: Uint8Array): Uint8Array {
  const crc = (bytes: Uint8Array) => {
    let c = 0xffffffff;
    for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Uint8Array) => {
    const out = new Uint8Array(12 + data.length);
    const view = new DataView(out.buffer);
    view.setUint32(0, data.length);
    out.set(new TextEncoder().encode(type), 4);
    out.set(data, 8);
    view.setUint32(8 + data.length, crc(out.subarray(4, 8 + data.length)));
    return out;
  };
  const ihdr = new Uint8Array(13);
  new DataView(ihdr.buffer).setUint32(0, width);
  new DataView(ihdr.buffer).setUint32(4, height);
  ihdr.set([8, 6, 0, 0, 0], 8);
  const raw = new Uint8Array(height * (1 + width * 4));
  for (let y = 0; y < height; y++) {
    raw.set(rgba.subarray(y * width * 4, (y + 1) * width * 4), y * (1 + width * 4) + 1);
  }
  const parts = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", new Uint8Array(deflateSync(raw, { level: 9 }))),
    chunk("IEND", new Uint8Array()),
  ];
  const png = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) png.set(p, at), at += p.length;
  return png;
}

/** Writes {@link ICONS} into `outDir/icons/` (before the precache list is made). */
async function writeIcons(outDir: string): Promise<void> {
  const logo = parseIconSvg(await Deno.readTextFile(join(ROOT, STATIC_DIR, "icons", "icon.svg")));
  await Deno.mkdir(join(outDir, "icons"), { recursive: true });
  for (const icon of ICONS) {
    const png = encodePng(icon.size, icon.size, drawIcon(logo, icon.size, icon.kind));
    await Deno.writeFile(join(outDir, "icons", icon.name), png);
  }
}

/**
 * Removes outDir and recreates it. Refuses a directory that holds the project, or one with
 * content that is not a previous build (a mistyped `--out ~` must not wipe a home folder).
 */
async function emptyDir(dir: string): Promise<void> {
  const fromDir = relative(dir, ROOT);
  if (fromDir !== ".." && !fromDir.startsWith(".." + sep)) {
    throw new Error(`refusing to empty ${dir}: it contains the project`);
  }
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) names.push(entry.name);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  if (
    names.length && !names.includes("index.html") && !names.includes(ASSETS)
  ) {
    throw new Error(
      `refusing to empty ${dir}: it is not empty and holds no previous build`,
    );
  }
  await Deno.remove(dir, { recursive: true }).catch((e) => {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  });
  await Deno.mkdir(dir, { recursive: true });
}

async function* walk(dir: string): AsyncGenerator<string> {
  const entries = [];
  for await (const entry of Deno.readDir(dir)) entries.push(entry);
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* walk(path);
    else if (entry.isFile) yield path;
  }
}

function toUrlPath(outDir: string, file: string): string {
  return "/" + relative(outDir, file).split(sep).join("/");
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
    else if (arg === "--out" && args[i + 1]) outDir = args[++i];
    else if (arg.startsWith("--out=")) outDir = arg.slice("--out=".length);
    else {throw new Error(
        `unknown argument ${arg}; usage: build.ts [--react] [--out DIR] [--no-minify]`,
      );}
  }
  return { flavour, outDir: outDir ?? defaultOutDir(flavour), minify };
}

if (import.meta.main) {
  try {
    console.log(formatReport(await build(parseArgs(Deno.args))));
  } catch (e) {
    console.error(e instanceof Error ? e.message : e);
    Deno.exitCode = 1;
  } finally {
    await esbuild.stop();
  }
}
