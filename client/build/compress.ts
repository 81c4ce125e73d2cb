/**
 * Build code (run by Deno from build.ts, never bundled into the app): the brotli and gzip
 * copies written beside every compressible file, and the size of every file.
 */
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";
import { toUrlPath, walk } from "./files.ts";
import type { OutputFile, Precompressed } from "./report.ts";

/**
 * Text files the server sends compressed. Source maps are left out: production does not
 * serve them, and development can afford their raw bytes.
 */
export const COMPRESSIBLE = /\.(?:js|css|html|json|webmanifest|svg|txt)$/;
/** Suffix of each precompressed copy. */
export const SUFFIX: Record<Precompressed, string> = { br: ".br", gzip: ".gz" };

/**
 * Brotli at its best (quality 11, text mode): paid once per build, not per request. Past 1 MB
 * (the receipt reader's engine, 3.9 MB) quality 9: 11 took 6.7 s a build for 12 % less.
 */
export function brotli(bytes: Uint8Array): Uint8Array {
  return brotliCompressSync(bytes, {
    params: {
      [zlib.BROTLI_PARAM_QUALITY]: bytes.length > 1 << 20 ? 9 : zlib.BROTLI_MAX_QUALITY,
      [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
      [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
}

/**
 * Writes `file.br` and `file.gz` beside every compressible file of outDir (each only when
 * smaller than the file) and returns the size of every file.
 */
export async function precompress(outDir: string): Promise<OutputFile[]> {
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
