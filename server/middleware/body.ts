import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../domain/env.ts";

/** JSON bodies larger than this are refused with 413 before they are read. */
export const MAX_JSON_BODY = 64 * 1024;

/** How reading a body ended: its bytes, or why there are none. */
export type BodyRead =
  | { ok: true; body: Uint8Array<ArrayBuffer> }
  | { ok: false; reason: "too_large" | "timeout" | "unreadable" };

/**
 * Reads a stream whole, at most `maxSize` bytes and within `timeoutMs`: the one loop behind
 * every body this server reads (JSON calls here, uploads in routes/documents.ts). Stops
 * reading (and cancels the stream) as soon as the size is passed or the time is up.
 */
export async function readLimited(
  stream: ReadableStream<Uint8Array>,
  maxSize: number,
  timeoutMs: number,
): Promise<BodyRead> {
  const reader = stream.getReader();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    reader.cancel().catch(() => {});
  }, timeoutMs);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > maxSize) {
        reader.cancel().catch(() => {});
        return { ok: false, reason: "too_large" };
      }
      chunks.push(value);
    }
  } catch {
    if (!timedOut) return { ok: false, reason: "unreadable" };
  } finally {
    clearTimeout(timer);
  }
  if (timedOut) return { ok: false, reason: "timeout" };
  const body = new Uint8Array(size);
  let at = 0;
  for (const ch of chunks) {
    body.set(ch, at);
    at += ch.length;
  }
  return { ok: true, body };
}

/**
 * Reads a request body whole before any handler sees it, within a size and a time limit:
 * too large → 413 (refused on Content-Length before a byte is read), not complete within
 * `timeoutMs` → 408, a client that aborts or sends a broken stream → 400. None of these is
 * logged: a caller must not be able to fill our logs by hanging up mid-body.
 */
export function bufferedBody(opts: { maxSize: number }): MiddlewareHandler<AppEnv> {
  const { maxSize } = opts;
  const fail = (status: 400 | 408 | 413, error: string, message: string) =>
    new Response(JSON.stringify({ error, message }), {
      status,
      headers: { "content-type": "application/json" },
    });
  return async (c, next) => {
    const raw = c.req.raw;
    // GET and HEAD carry no body a handler reads (and a Request of theirs may not hold one).
    if (!raw.body || raw.method === "GET" || raw.method === "HEAD") return await next();
    const declared = raw.headers.get("content-length");
    if (declared && !raw.headers.has("transfer-encoding") && Number(declared) > maxSize) {
      return fail(413, "payload_too_large", "The request body is too large");
    }
    const read = await readLimited(raw.body, maxSize, c.var.deps.config.BODY_TIMEOUT_MS);
    if (!read.ok) {
      if (read.reason === "too_large") {
        return fail(413, "payload_too_large", "The request body is too large");
      }
      if (read.reason === "timeout") {
        return fail(408, "body_timeout", "The request body was not received in time");
      }
      return fail(400, "body_unreadable", "The request body could not be read");
    }
    const body = read.body;
    c.req.raw = new Request(raw, { body });
    await next();
  };
}
