/**
 * Build code (run by Deno from build.ts, never bundled into the app): the service worker,
 * bundled with the precache list of this very build.
 */
import * as esbuild from "esbuild";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { ASSETS, ROOT, toUrlPath, walk } from "./files.ts";

const SERVICE_WORKER = "client/sw/sw.ts";
/**
 * Files never precached: the worker itself, source maps, crawler hints, the release file, and
 * the compressed copies (the browser asks for the file; the server picks the copy by Accept-Encoding).
 */
export const NOT_PRECACHED = [
  /^\/sw\.js(\.map)?$/,
  /\.map$/,
  /^\/robots\.txt$/,
  /\.(?:br|gz)$/,
  // Read by the server (initialize's version), not by the app: the label is in the bundle.
  /^\/release\.json$/,
];

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
export async function buildServiceWorker(
  outDir: string,
  minify: boolean,
  onDemand: readonly string[],
  target: string[],
): Promise<void> {
  const manifest = await precacheManifest(outDir, onDemand);
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [SERVICE_WORKER],
    outfile: join(outDir, "sw.js"),
    bundle: true,
    format: "iife",
    platform: "browser",
    target,
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
