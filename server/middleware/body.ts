import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";

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
    const reader = raw.body.getReader();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      reader.cancel().catch(() => {});
    }, c.var.deps.config.BODY_TIMEOUT_MS);
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.length;
        if (size > maxSize) {
          reader.cancel().catch(() => {});
          return fail(413, "payload_too_large", "The request body is too large");
        }
        chunks.push(value);
      }
    } catch {
      if (!timedOut) return fail(400, "body_unreadable", "The request body could not be read");
    } finally {
      clearTimeout(timer);
    }
    if (timedOut) return fail(408, "body_timeout", "The request body was not received in time");
    const body = new Uint8Array(size);
    let at = 0;
    for (const ch of chunks) {
      body.set(ch, at);
      at += ch.length;
    }
    c.req.raw = new Request(raw, { body });
    await next();
  };
}
