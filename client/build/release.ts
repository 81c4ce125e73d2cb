/**
 * Build code (run by Deno from build.ts, never bundled into the app): the release a build is
 * (spec §1 version label) and the fingerprint of the client's sources.
 */
import { createHash } from "node:crypto";
import { join, relative } from "node:path";
import { ROOT, walk } from "./files.ts";

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
