import type { Context, MiddlewareHandler } from "hono";
import { contract, type Endpoint } from "../../client/shared/contract/mod.ts";
import type { AppEnv } from "../domain/env.ts";
import { unauthorized } from "../errors.ts";
import { authenticate } from "./auth.ts";

/**
 * The API's calls that answer without a bearer (spec §6: registration and PIN calls by the
 * device-id header, the public lists and colours): `METHOD /bonita/path`. HEAD is GET's.
 */
const OPEN_CALLS = new Set(
  Object.values(contract).flatMap((group) => Object.values(group) as Endpoint[])
    .filter((ep) => ep.auth !== "bearer")
    .map((ep) => `${ep.method} /bonita${ep.path}`),
);

/** Whether `method path` (a path under /bonita, as routed) may be called without a bearer. */
export function isOpenCall(method: string, path: string): boolean {
  return OPEN_CALLS.has(`${method === "HEAD" ? "GET" : method} ${path}`);
}

/** Behind the connection guard (server/net/guard.ts): end the connection after this answer. */
function closeAfterAnswer(c: Context<AppEnv>): void {
  (c.env as { closeAfterAnswer?: () => void } | undefined)?.closeAfterAnswer?.();
}

/**
 * The caller first, then the body (engineering.md §6: a middleware never does work for a caller it
 * has not identified). Mounted before every body read of the API: the bearer is checked here and
 * kept for the request (routes and the idempotency middleware reuse it). A call that needs a bearer
 * and has none (every call but the open ones, unknown paths included, as their 401 says) is
 * answered 401 at once, its body never read; with a body still on the wire the answer closes the
 * connection, so the peer cannot make the server take the rest.
 */
export function callerFirst(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const auth = c.req.header("authorization") ? await authenticate(c) : null;
    if (auth) c.set("auth", auth);
    else if (!isOpenCall(c.req.method, c.req.path)) {
      const body = c.req.raw.body;
      if (body) {
        // Unread and let go: the server stops taking it and closes after the answer.
        c.header("Connection", "close");
        body.cancel().catch(() => {});
        closeAfterAnswer(c);
      }
      throw unauthorized("A valid bearer token is required");
    }
    await next();
  };
}
