/**
 * Build code (run by Deno from build.ts, never bundled into the app): the project's paths and
 * the file helpers every build step uses.
 */
import { createHash } from "node:crypto";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The project's root: two levels up from client/build/. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const STATIC_DIR = "static";
export const ASSETS = "assets";

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
 * Removes outDir and recreates it. Refuses a directory that holds the project, or one with
 * content that is not a previous build (a mistyped `--out ~` must not wipe a home folder).
 */
export async function emptyDir(dir: string): Promise<void> {
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

export async function* walk(dir: string): AsyncGenerator<string> {
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

export function toUrlPath(outDir: string, file: string): string {
  return "/" + relative(outDir, file).split(sep).join("/");
}
