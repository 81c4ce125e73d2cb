import type { Context, Hono } from "hono";
import { posix } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants as zlib, gzip } from "node:zlib";
import type { Config } from "../config.ts";
import { base64url } from "../secrets.ts";
import { chooseCoding } from "../middleware/compress.ts";
import type { AppEnv } from "../domain/env.ts";

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  json: "application/json",
  webmanifest: "application/manifest+json",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
  txt: "text/plain; charset=utf-8",
  map: "application/json",
  woff2: "font/woff2",
  // The receipt reader's language data (client/build/ocr.ts), gzipped by its npm package.
  gz: "application/gzip",
};

/** Files that may have `.br`/`.gz` copies beside them (build.ts writes them). */
const COMPRESSIBLE = new Set(["html", "js", "css", "json", "webmanifest", "svg", "txt", "map"]);

/** Content codings we can send, best first, with the suffix of the build's copy. */
const CODINGS = [["br", ".br"], ["gzip", ".gz"]] as const;
type Coding = typeof CODINGS[number][0];

/** One representation of a file: its bytes and a strong ETag over exactly those bytes. */
interface Representation {
  body: Uint8Array<ArrayBuffer>;
  etag: string;
}

interface StaticFile {
  type: string;
  cacheControl: string;
  /** Whether the answer depends on Accept-Encoding (compressible type). */
  vary: boolean;
  identity: Representation;
  encoded: Partial<Record<Coding, Representation>>;
  /**
   * `'sha256-…'` of each inline `<style>` and `<script>` of an HTML file (the static shells'
   * stylesheet and boot script, build.ts): the CSP names them, nothing else inline is allowed.
   */
  styleHashes: string[];
  scriptHashes: string[];
}

/** The organisation's theme colours (spec §7 appcolor), as `#rgb`/`#rrggbb`. */
export interface ShellColors {
  appcolor: string;
  cardcolor: string;
}

/** The static shells: the first screen's markup and stylesheet, painted before any script. */
const FIRST_SCREENS = new Set(["/index.html", "/unlock.html"]);

/**
 * Serves the built client. Hashed files under /assets/ never change, so they are
 * `immutable`; index.html and sw.js must be revalidated so a new version is found.
 *
 * Compressible files go out as the build's brotli or gzip copy when the browser accepts it
 * (`Vary: Accept-Encoding`), each representation with its own strong ETag, and a matching
 * `If-None-Match` gets 304. The build directory does not change while the server runs, so
 * every file is read (with its copies) and hashed once, on first request. Source maps are
 * served in development only.
 */
export function staticRoutes(
  app: Hono<AppEnv>,
  config: Pick<Config, "STATIC_DIR" | "APP_ENV">,
  opts: {
    /**
     * The organisation's colours, when known: the first screens wear them from the first
     * paint (a `:root` rule beside the stylesheet), not after the app asks `appcolor`.
     * `null`: the stylesheet's own (spec §9's slate and green).
     */
    colors?: () => Promise<ShellColors | null>;
  } = {},
): void {
  const dir = config.STATIC_DIR;
  const sourceMaps = config.APP_ENV !== "production";
  const loaded = new Map<string, Promise<StaticFile | null>>();
  // One themed copy per shell and colour pair; a change of colours replaces them.
  const themed = new Map<string, Promise<StaticFile>>();

  const load = (path: string, ext: string): Promise<StaticFile | null> => {
    let file = loaded.get(path);
    if (!file) {
      file = readStatic(`${dir}${path}`, path, ext);
      // Only files that exist are kept: unknown paths must not grow the map.
      file.then((f) => f || loaded.delete(path), () => loaded.delete(path));
      loaded.set(path, file);
    }
    return file;
  };

  app.get("*", async (c, next) => {
    let path: string;
    try {
      path = decodeURIComponent(new URL(c.req.url).pathname);
    } catch {
      return await next(); // malformed percent-encoding: not a file of ours (404)
    }
    if (path.includes("..") || path.includes("\0")) return await next();
    // One spelling per file ("//a/./b.js" is "/a/b.js"), so the file cache stays bounded.
    path = posix.normalize(path);
    // The first screen painted before any script (build.ts): the PIN pad when the PIN length
    // cookie says the device is activated (spec §4), else the activation screen.
    const byCookie = path === "/" || path === "/index.html";
    if (byCookie) {
      path = /(?:^|;\s*)qc_pinlength=\d/.test(c.req.header("Cookie") ?? "")
        ? "/unlock.html"
        : "/index.html";
    }
    const ext = path.slice(path.lastIndexOf(".") + 1);
    if (!Object.hasOwn(TYPES, ext)) return await next();
    if (ext === "map" && !sourceMaps) return await next();
    // The .br/.gz copies are not files of their own; the reader's language data is (gzip).
    if (ext === "gz" && !path.endsWith(".traineddata.gz")) return await next();
    let file = await load(path, ext).catch(() => null);
    // A build without the PIN pad's shell: the plain one (the app renders the screen).
    if (!file && path === "/unlock.html") file = await load("/index.html", ext).catch(() => null);
    if (!file) return await next();
    if (FIRST_SCREENS.has(path) && opts.colors) {
      const colors = await opts.colors().catch(() => null);
      if (colors && isHex(colors.appcolor) && isHex(colors.cardcolor)) {
        const key = `${path} ${colors.appcolor} ${colors.cardcolor}`;
        if (!themed.has(key)) {
          if (themed.size >= 8) themed.clear();
          const copy = withColors(file, colors);
          copy.catch(() => themed.delete(key));
          themed.set(key, copy);
        }
        file = await themed.get(key)!;
      }
    }
    // "/" is one of two shells chosen by a cookie: caches must key it by the cookie too.
    return answer(c, file, byCookie);
  });
}

/** The shells (build.ts) and the worker: revalidated, so a new version is found. */
const SHELLS = new Set(["/index.html", "/unlock.html", "/app.html", "/sw.js"]);

async function readStatic(fsPath: string, path: string, ext: string): Promise<StaticFile | null> {
  const read = (p: string) => Deno.readFile(p).then((b) => b as Uint8Array<ArrayBuffer>);
  let body: Uint8Array<ArrayBuffer>;
  try {
    if (!(await Deno.stat(fsPath)).isFile) return null;
    body = await read(fsPath);
  } catch {
    return null;
  }
  const vary = COMPRESSIBLE.has(ext);
  const encoded: StaticFile["encoded"] = {};
  if (vary) {
    for (const [coding, suffix] of CODINGS) {
      const copy = await read(fsPath + suffix).catch(() => null);
      if (copy) encoded[coding] = { body: copy, etag: await etagOf(copy) };
    }
  }
  return {
    type: TYPES[ext],
    cacheControl: path.startsWith("/assets/")
      ? "public, max-age=31536000, immutable"
      : SHELLS.has(path)
      ? "no-cache"
      : "public, max-age=3600",
    vary,
    identity: { body, etag: await etagOf(body) },
    encoded,
    ...(ext === "html" ? await inlineHashes(body) : { styleHashes: [], scriptHashes: [] }),
  };
}

const isHex = (v: unknown): v is string =>
  typeof v === "string" && /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i.test(v);

/**
 * `'sha256-<base64>'` of each `<style>` element's text and of each inline `<script>`'s (one
 * with no `src`), as CSP names inline styles and scripts.
 */
async function inlineHashes(
  html: Uint8Array<ArrayBuffer>,
): Promise<Pick<StaticFile, "styleHashes" | "scriptHashes">> {
  const text = new TextDecoder().decode(html);
  const hash = async (content: string) => {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(content));
    return `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`;
  };
  const styleHashes: string[] = [];
  for (const m of text.matchAll(/<style>([\s\S]*?)<\/style>/g)) styleHashes.push(await hash(m[1]));
  const scriptHashes: string[] = [];
  for (const m of text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
    if (!/\ssrc=/.test(m[1]) && m[2]) scriptHashes.push(await hash(m[2]));
  }
  return { styleHashes, scriptHashes };
}

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * A first screen in the organisation's colours: the variables app.css builds `--theme` from,
 * set in a `<style>` of their own after the stylesheet, and the browser's `theme-color`.
 * Compressed like the build's copies (once per colour pair).
 */
async function withColors(file: StaticFile, colors: ShellColors): Promise<StaticFile> {
  const html = new TextDecoder().decode(file.identity.body)
    .replace(/(<meta name="theme-color" content=")[^"]*(")/, `$1${colors.appcolor}$2`)
    .replace(
      "</head>",
      `<style>:root{--theme-request:${colors.appcolor};--theme-approval:${colors.cardcolor}}` +
        "</style></head>",
    );
  const body = new TextEncoder().encode(html) as Uint8Array<ArrayBuffer>;
  const br = await brotliAsync(body, {
    params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length },
  });
  const gz = await gzipAsync(body, { level: 9 });
  const rep = async (b: Uint8Array) => {
    const bytes = new Uint8Array(b) as Uint8Array<ArrayBuffer>;
    return { body: bytes, etag: await etagOf(bytes) };
  };
  return {
    ...file,
    identity: { body, etag: await etagOf(body) },
    encoded: { br: await rep(br), gzip: await rep(gz) },
    ...(await inlineHashes(body)),
  };
}

/** A strong ETag: 128 bits of the SHA-256 of the bytes sent, so each encoding has its own. */
async function etagOf(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return `"${base64url(hash.slice(0, 16))}"`;
}

function answer(c: Context<AppEnv>, file: StaticFile, byCookie = false): Response {
  const coding = chooseCoding(
    c.req.header("Accept-Encoding"),
    CODINGS.map(([name]) => name).filter((name) => file.encoded[name]),
  );
  const rep = coding ? file.encoded[coding]! : file.identity;
  if (file.styleHashes.length) c.set("styleHashes", file.styleHashes);
  if (file.scriptHashes.length) c.set("scriptHashes", file.scriptHashes);
  const headers: Record<string, string> = {
    "Cache-Control": file.cacheControl,
    "ETag": rep.etag,
  };
  const vary = [...(file.vary ? ["Accept-Encoding"] : []), ...(byCookie ? ["Cookie"] : [])];
  if (vary.length) headers["Vary"] = vary.join(", ");
  if (etagMatches(c.req.header("If-None-Match"), rep.etag)) return c.body(null, 304, headers);
  headers["Content-Type"] = file.type;
  if (coding) headers["Content-Encoding"] = coding;
  return c.body(rep.body, 200, headers);
}

/** If-None-Match by the weak comparison RFC 9110 prescribes for it; `*` matches anything. */
function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const bare = (t: string) => t.trim().replace(/^W\//, "");
  return header.split(",").some((t) => bare(t) === bare(etag));
}
