import type { MiddlewareHandler } from "hono";
import type { Logger } from "../log.ts";
import type { AppEnv } from "../domain/env.ts";

/** An incoming X-Request-Id is kept only when it looks like an id (no injection into logs). */
export const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;

/**
 * One JSON line a request (docs/deploying.md, operating): `{t, level, msg: "request", id, method,
 * path, status, ms}`. The path is logged without its query string; nothing from headers or bodies
 * is logged (tokens, card numbers, codes, PINs and addresses travel there). The request id comes
 * from `X-Request-Id` when it matches REQUEST_ID, else a new UUID, and is sent back in the answer's
 * `X-Request-Id`. 5xx answers log at error, others at info. Mounted first in createApp, so it also
 * times and counts what the other middleware refuse. A refusal names its `error` code (never its
 * message, which may quote what was sent); a set-up fault (SETUP_FAULTS) logs at warn with its
 * message, which names only configuration.
 */
/** Refusals caused by how the server is set up, not by the caller: an operator must see them. */
const SETUP_FAULTS = new Set(["origin_mismatch"]);

export function requestLog(logger: Logger): MiddlewareHandler<AppEnv> {
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
      const error = status >= 400 && status < 500 ? c.get("errorCode") : undefined;
      const fault = !!error && SETUP_FAULTS.has(error);
      const level = status >= 500 ? "error" : fault ? "warn" : "info";
      if (logger.enabled(level)) {
        logger.log(level, "request", {
          id,
          method: c.req.method,
          path: new URL(c.req.url).pathname,
          status,
          ms: Math.round((performance.now() - start) * 10) / 10,
          ...(error ? { error } : {}),
          ...(fault ? { message: c.get("errorMessage") } : {}),
        });
      }
    }
  };
}
