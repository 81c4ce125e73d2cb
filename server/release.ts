import * as z from "zod";
import { join } from "node:path";

/**
 * spec §1 version label, one source: the release the served build says it is. build.ts
 * writes `release.json` beside index.html (RELEASE_FILE) from the same values it bundles
 * into the app's label, and `initialize` answers with it. With no build to serve (tests of
 * the API alone), the version is "dev", as the app's own label says outside a build.
 */
const Release = z.object({ version: z.string().min(1), released: z.string() });
export type Release = z.infer<typeof Release>;

/** What the label says when no build names itself (client/lib/release.ts says the same). */
export const DEV_RELEASE: Release = { version: "dev", released: "" };

const read = new Map<string, Promise<Release>>();

/** The release of the build in `staticDir`, read once per directory (it does not change). */
export function servedRelease(staticDir: string): Promise<Release> {
  let r = read.get(staticDir);
  if (!r) {
    r = Deno.readTextFile(join(staticDir, "release.json"))
      .then((text) => Release.parse(JSON.parse(text)))
      .catch(() => DEV_RELEASE);
    read.set(staticDir, r);
  }
  return r;
}
