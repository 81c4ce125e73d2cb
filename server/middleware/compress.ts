import type { Context, MiddlewareHandler } from "hono";
import { promisify } from "node:util";
import { brotliCompress, constants as zlib, gzip } from "node:zlib";

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Answers compressed by default: JSON (and `+json`) and text, but never event streams. */
const COMPRESSIBLE_TYPE =
  /^\s*(?:application\/(?:[\w.-]+\+)?json|text\/(?!event-stream\b)[\w.+-]+)\s*(?:;|$)/i;

export interface CompressOptions {
  /** Bodies smaller than this many bytes go out as they are. Default 1024. */
  threshold?: number;
  /**
   * Codings offered, preferred first (the client's q-values rank first; this breaks ties).
   * Default gzip, then br: per request, gzip level 6 takes about a quarter of the time of
   * brotli quality 5 and sends only ~4% more (pwalists, 245 and 2,000 rows); level 4 less still. Build-time
   * files are another matter: they are brotli 11, paid once.
   */
  codings?: readonly Coding[];
  /** Brotli quality when br is chosen. Default 5. */
  brotliQuality?: number;
  /**
   * gzip level. Default 4: on pwalists with 2,000 requests (1,066 KB of JSON) level 6 took
   * ~10 ms per answer for 102 KB, level 4 ~4–6 ms for 112 KB (levels 1–3 send 117–168 KB);
   * that compression was the largest part of the answer's CPU time in the profile.
   */
  gzipLevel?: number;
  /**
   * The codings the client accepts, when something other than this request's Accept-Encoding
   * says so (an edge in relay mode passes its client's on: server/relay/headers.ts).
   */
  acceptEncoding?: (c: Context) => string | undefined;
}

export type Coding = "br" | "gzip";

/**
 * Compresses answers of `threshold` bytes or more with gzip or brotli, whichever the
 * client's Accept-Encoding ranks higher (`q=0` refuses). Needed because `Deno.serve`
 * (2.9.5) does not compress unless started with `automaticCompression: true`.
 *
 * Every compressible answer says `Vary: Accept-Encoding`; a compressed one loses its
 * Content-Length (the runtime sets the new one) and a strong ETag becomes weak. Answers
 * that are already encoded, partial, bodiless, `no-transform` or of other types (images,
 * PDF, event streams) pass untouched. Other headers, `Cache-Control: no-store` included, stay.
 */
export function compress(opts: CompressOptions = {}): MiddlewareHandler {
  const threshold = opts.threshold ?? 1024;
  const codings = opts.codings ?? ["gzip", "br"];
  const encoders: Record<Coding, (b: Uint8Array) => Promise<Uint8Array>> = {
    br: (b) =>
      brotliAsync(b, {
        params: {
          [zlib.BROTLI_PARAM_QUALITY]: opts.brotliQuality ?? 5,
          [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
          [zlib.BROTLI_PARAM_SIZE_HINT]: b.length,
        },
      }),
    gzip: (b) => gzipAsync(b, { level: opts.gzipLevel ?? 4 }),
  };
  return async (c, next) => {
    await next();
    const res = c.res;
    if (
      c.req.method === "HEAD" || !res.body || [204, 206, 304].includes(res.status) ||
      res.headers.has("Content-Encoding") ||
      !COMPRESSIBLE_TYPE.test(res.headers.get("Content-Type") ?? "") ||
      /(?:^|,)\s*no-transform\s*(?:,|$)/i.test(res.headers.get("Cache-Control") ?? "")
    ) return;
    addVary(res.headers);
    const accepted = opts.acceptEncoding?.(c) ?? c.req.header("Accept-Encoding");
    const coding = chooseCoding(accepted, codings);
    const declared = res.headers.get("Content-Length");
    if (!coding || (declared !== null && Number(declared) < threshold)) return;

    const body = new Uint8Array(await res.arrayBuffer());
    if (body.length < threshold) {
      c.res = new Response(body, res);
      return;
    }
    const packed = new Uint8Array(await encoders[coding](body));
    c.res = new Response(packed, res);
    c.res.headers.delete("Content-Length");
    c.res.headers.set("Content-Encoding", coding);
    const etag = c.res.headers.get("ETag");
    if (etag && !etag.startsWith("W/")) c.res.headers.set("ETag", `W/${etag}`);
  };
}

/**
 * Picks the content coding for an Accept-Encoding header among `available` (best first):
 * the one with the highest q, ties going to the earlier; `q=0` refuses a coding, and `*`
 * stands for codings not named. No header, or nothing acceptable: null (identity).
 */
export function chooseCoding<T extends string>(
  header: string | undefined,
  available: readonly T[],
): T | null {
  if (!header || !available.length) return null;
  const q = new Map<string, number>();
  for (const part of header.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    let weight = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p);
      if (m) weight = Number(m[1]);
    }
    const coding = name.trim() === "x-gzip" ? "gzip" : name.trim();
    if (!Number.isNaN(weight)) q.set(coding, Math.max(q.get(coding) ?? 0, weight));
  }
  let best: T | null = null;
  let bestQ = 0;
  for (const coding of available) {
    const weight = q.get(coding) ?? q.get("*") ?? 0;
    if (weight > bestQ) [best, bestQ] = [coding, weight];
  }
  return best;
}

/** Adds Accept-Encoding to Vary unless it (or `*`) is there already. */
function addVary(headers: Headers): void {
  const vary = headers.get("Vary");
  if (!vary) headers.set("Vary", "Accept-Encoding");
  else if (!/(?:^|,)\s*(?:accept-encoding|\*)\s*(?:,|$)/i.test(vary)) {
    headers.set("Vary", `${vary}, Accept-Encoding`);
  }
}
