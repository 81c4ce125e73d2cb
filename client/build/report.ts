/**
 * Build code (run by Deno from build.ts, never bundled into the app): what a build is asked
 * for and what it reports, and the size table the CLI prints.
 */
import type { Release } from "./release.ts";

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
   * Size of the static shells' only script (client/boot.ts), inline in index.html and
   * unlock.html: after the first paint it fetches firstLoadJs. Counted in the JS sums below
   * as if it were a file of its own.
   */
  boot: { bytes: number; gzipBytes: number; brotliBytes: number };
  /** Sum of gzipBytes over boot and firstLoadJs. */
  firstLoadJsGzip: number;
  /** Sum of brotliBytes over boot and firstLoadJs. */
  firstLoadJsBrotli: number;
  /**
   * Sum of brotliBytes over index.html (its stylesheet and boot script inline) and
   * firstLoadJs: the first visit, as sent.
   */
  firstLoadBrotli: number;
  /**
   * URL path of the stylesheet: `app.html` and the support pages link it; `index.html` and
   * `unlock.html` carry it inline.
   */
  css: string | null;
  /** pdf.js, loaded only when a PDF is opened (spec §2's PDF viewer). */
  pdf: PdfFiles;
  /** The receipt reader's engine and language data (client/build/ocr.ts), on demand. */
  ocr: {
    files: string[];
    /** All of them, raw. */
    bytes: number;
    /** All of them as sent (the smallest of raw, gzip and brotli each). */
    sentBytes: number;
  };
  /** URL paths of the extra entries' outputs, by entry name. */
  extra: Record<string, string>;
  /** The first-load JS budget before the PIN pad, gzip bytes (preact flavour). */
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

/** The size table the CLI prints; source maps are left out (browsers fetch them only in devtools). */
export function formatReport(report: BuildReport): string {
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  const firstLoad = new Set(report.firstLoadJs);
  const onDemand = new Set([...report.pdf.lazy, ...report.ocr.files]);
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
    `* first-load JS: ${report.firstLoadJs.length} file(s) and the boot script inline ` +
    `(${kb(report.boot.gzipBytes)} gzip), ${kb(report.firstLoadJsGzip)} gzip, ` +
    `${kb(report.firstLoadJsBrotli)} br`,
    `  first visit as sent (index.html with its CSS and boot script, first-load JS): ${
      kb(report.firstLoadBrotli)
    } br`,
    report.flavour === "preact"
      ? `  budget ${kb(report.budgetGzip)} gzip: ${
        report.firstLoadJsGzip <= report.budgetGzip ? "ok" : "OVER"
      }`
      : "  (the first-load budget applies to the preact flavour)",
    `~ on demand (pdf.js, not precached): chunk + worker ${kb(report.pdf.gzipBytes)} gzip`,
    `~ on demand (receipt reader, not precached): engine and 4 languages ${
      kb(report.ocr.bytes)
    } raw, ${
      kb(report.ocr.sentBytes)
    } as sent (a reading fetches the engine, its language and English)`,
  ].join("\n");
}
