import type { MiddlewareHandler } from "hono";
import type { Logger } from "../log.ts";

/** An incoming X-Request-Id is kept only when it looks like an id (no injection into logs). */
export const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;

/**
 * One JSON line a request (docs/deploying.md, operating): `{t, level, msg: "request", id, method,
 * path, status, ms}`. The path is logged without its query string; nothing from headers or bodies
 * is logged (tokens, card numbers, codes, PINs and addresses travel there). The request id comes
 * from `X-Request-Id` when it matches REQUEST_ID, else a new UUID, and is sent back in the answer's
 * `X-Request-Id`. 5xx answers log at error, others at info. Mounted first in createApp, so it also
 * times and counts what the other middleware refuse.
 */
export function requestLog(logger: Logger): MiddlewareHandler {
  return async (c, next) => {
    const start = performance.now();
    const incoming = c.req.header("x-request-id");
    const id = incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    try {
      await next();
    } finally {
      // After an uncaught error Hono's onError has already set c.res (500).
      const status = c.res?.status ?? 500;
      try {
        c.res.headers.set("X-Request-Id", id);
      } catch {
        // Immutable headers (a fetched Response, e.g. relayed): copy it with the header.
        c.res = new Response(c.res.body, c.res);
        c.res.headers.set("X-Request-Id", id);
      }
      const level = status >= 500 ? "error" : "info";
      if (logger.enabled(level)) {
        logger.log(level, "request", {
          id,
          method: c.req.method,
          path: new URL(c.req.url).pathname,
          status,
          ms: Math.round((performance.now() - start) * 10) / 10,
        });
      }
    }
  };
}
