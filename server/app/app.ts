import { changeRoutes } from "../routes/changes.ts";
import { exportRoutes } from "../routes/export.ts";
import { listRoutes } from "../routes/lists.ts";
import { type Context, Hono } from "hono";
import type { AppEnv, Deps } from "../domain/env.ts";
import { HttpError, notFound } from "../errors.ts";
import { IssuerError, type IssuerErrorCode } from "../issuer/mod.ts";
import { requireBearer } from "../middleware/auth.ts";
import { bufferedBody, MAX_JSON_BODY } from "../middleware/body.ts";
import { callerFirst } from "../middleware/caller.ts";
import { idempotency } from "../middleware/idempotency.ts";
import { documentRoutes } from "../routes/documents.ts";
import { docServiceRoutes } from "../docservice/routes.ts";
import { edgePushEnabled, edgePushRoutes, recordEdgeRegistration } from "../push/edge.ts";
import { UPLOAD_PATH } from "../../client/shared/contract/documents.ts";
import { vatRoutes } from "../routes/vat.ts";
import { devOnly, relayedAcceptEncoding } from "../middleware/peer.ts";
import { compress } from "../middleware/compress.ts";
import { securityHeaders } from "../middleware/security.ts";
import { approvalRoutes } from "../routes/approvals.ts";
import { cardRoutes } from "../routes/cards.ts";
import { transactionRoutes } from "../routes/transactions.ts";
import { declarationRoutes } from "../routes/declarations.ts";
import { issuerRoutes } from "../testmode/routes.ts";
import { requestRoutes } from "../routes/requests.ts";
import { sessionRoutes } from "../routes/session.ts";
import { passkeyRoutes } from "../routes/passkey.ts";
import { healthRoutes } from "../routes/health.ts";
import { outboxRoutes } from "../routes/outbox.ts";
import { staticRoutes } from "../routes/static.ts";
import { DEFAULT_APP_COLOR, DEFAULT_CARD_COLOR } from "../org/schema.ts";
import { createLogger, errorText, type Logger } from "../log.ts";
import { requestLog } from "../middleware/request_log.ts";
import { StoreUnavailableError } from "../store/unavailable.ts";
import { type RelayOptions, relayRoutes, upstreamProbe } from "../relay/relay.ts";
import { scimRoutes } from "../routes/scim.ts";

const ISSUER_STATUS: Partial<Record<IssuerErrorCode, 400 | 404 | 409 | 422>> = {
  card_not_found: 404,
  session_invalid: 404,
  authorization_not_found: 404,
  invalid_state: 409,
  card_closed: 409,
  card_frozen: 409,
  conflict: 409,
  idempotency_conflict: 422,
  invalid_request: 400,
};

/** Pages for developers and tests (/_outbox, /_issuer): every path under it, see devOnly. */
export const DEV_PREFIX = "/_";

export { MAX_JSON_BODY } from "../middleware/body.ts";

/**
 * Builds the whole HTTP app from its dependencies. No side effects: nothing is opened,
 * read or started here (engineering.md habit 1), so tests build as many apps as they like.
 */
export function createApp(
  deps: Deps,
  opts: { frameSrc?: string[]; logger?: Logger; relay?: RelayOptions } = {},
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // First: one JSON line a request and the X-Request-Id header (docs/deploying.md); quiet unless
  // given.
  app.use("*", requestLog(opts.logger ?? createLogger("off")));
  app.use("*", securityHeaders(opts.frameSrc));
  app.use("*", async (c, next) => {
    c.set("deps", deps);
    await next();
  });

  // Relay mode (docs/relay.md): the system of record is UPSTREAM_URL; /bonita and /docservice are
  // relayed to it (server/relay/), the rest (the client, support pages, push) stays here.
  const relay = deps.config.UPSTREAM_URL
    ? relayRoutes({
      onPushRegistered: (d, body) =>
        recordEdgeRegistration(d, body as Parameters<typeof recordEdgeRegistration>[1]),
      ...opts.relay,
    })
    : null;
  if (relay) {
    app.route("/bonita", relay);
    app.route("/docservice", relay);
  }

  const api = new Hono<AppEnv>();
  api.use("*", async (c, next) => {
    await next();
    // API answers carry personal data (and later card data): never stored by any cache.
    c.header("Cache-Control", "no-store");
  });
  // Behind a trusted edge, the codings its client accepts (the edge passes the answer on as
  // it is: server/relay/headers.ts).
  api.use("*", compress({ acceptEncoding: (c) => relayedAcceptEncoding(c as Context<AppEnv>) }));
  // The caller before any body: a bearer call without a valid bearer is answered 401 unread.
  api.use("*", callerFirst());
  // Bodies are read whole within MAX_JSON_BODY, except the upload's (spec §3 Upload form fields),
  // which its handler reads after the bearer check within the file, preview and multipart
  // allowance.
  const jsonBody = bufferedBody({ maxSize: MAX_JSON_BODY });
  api.use("*", (c, next) => c.req.path === `/bonita${UPLOAD_PATH}` ? next() : jsonBody(c, next));
  // Writes carrying Idempotency-Key are carried out once for their bearer (the
  // offline queue's replays; engineering.md §6: POST only, no 4xx, nothing secret kept).
  api.use("*", idempotency());
  api.route("/", sessionRoutes());
  api.route("/", listRoutes());
  api.route("/", passkeyRoutes());
  api.route("/", requestRoutes());
  api.route("/", approvalRoutes());
  api.route("/", cardRoutes());
  api.route("/", transactionRoutes());
  api.route("/", declarationRoutes());
  api.route("/", documentRoutes());
  api.route("/", vatRoutes());
  api.route("/", changeRoutes());
  api.route("/", exportRoutes());
  // Unknown API paths: unauthenticated callers learn nothing (401), others get 404.
  api.all("*", async (c) => {
    await requireBearer(c);
    throw notFound("No such call");
  });
  if (!relay) {
    app.route("/bonita", api);
    // The document service (spec §7 remote document delete): advanced-security documents, its own
    // tokens, no bearer.
    app.route("/docservice", docServiceRoutes());
  }
  // SCIM 2.0 provisioning (docs/people.md): only with SCIM_TOKEN, never on a relay.
  if (deps.config.SCIM_TOKEN && !relay) {
    app.use("/scim/v2/*", bufferedBody({ maxSize: MAX_JSON_BODY }));
    app.route("/scim/v2", scimRoutes(deps.config.SCIM_TOKEN));
  }
  // Relay mode (docs/relay.md): the upstream hands pushes to the edge, signed
  // (server/push/edge.ts).
  if (edgePushEnabled(deps.config)) app.route("/edge/push", edgePushRoutes());

  // Development pages: loopback peer and Host (or DEV_SECRET) only, never in production, no
  // cross-site writes; every /_ path, so a page added later is covered too.
  const dev = devOnly();
  app.use("*", (c, next) => c.req.path.startsWith(DEV_PREFIX) ? dev(c, next) : next());
  const upstream = deps.config.UPSTREAM_URL;
  app.route("/healthz", healthRoutes({ upstream: upstream ? upstreamProbe(upstream) : undefined }));
  if (deps.outbox) app.route("/_outbox", outboxRoutes(deps.outbox));
  // The issuer's test mode: purchases, captures, refunds by hand. Never mounted in
  // production, and loopback-only like the outbox.
  // (An edge in relay mode has no cards of its own: the upstream's test mode is the one.)
  if (deps.config.APP_ENV === "development" && !relay) {
    app.use("/_issuer/*", bufferedBody({ maxSize: MAX_JSON_BODY }));
    app.route("/_issuer", issuerRoutes());
  }
  // The first screens in the organisation's colours (an edge in relay mode has none of its
  // own: the app asks the upstream's appcolor).
  staticRoutes(app, deps.config, {
    colors: relay ? undefined : async () => {
      const s = (await deps.store.org.meta())?.settings;
      // spec §9's slate and green are the stylesheet's own: the build's file as it is.
      if (!s || (s.appColor === DEFAULT_APP_COLOR && s.cardColor === DEFAULT_CARD_COLOR)) {
        return null;
      }
      return { appcolor: s.appColor, cardcolor: s.cardColor };
    },
  });

  app.notFound((c) => c.json({ error: "not_found", message: "Not found" }, 404));
  app.onError((err, c) => {
    if (err instanceof HttpError) {
      c.set("errorCode", err.code);
      c.set("errorMessage", err.message);
      return c.json({ error: err.code, message: err.message, ...err.extra }, err.status);
    }
    // The store is away or too busy (PostgreSQL down): nothing to fix on the caller's side, so
    // it is told when to try again (the offline queue keeps the write until then).
    if (err instanceof StoreUnavailableError) {
      c.header("Retry-After", String(err.retryAfterS));
      return c.json({
        error: "store_unavailable",
        message: "QCard cannot reach its data just now. Please try again in a moment.",
      }, 503);
    }
    // The issuer's refusals (server/issuer/): its messages never carry card data.
    if (err instanceof IssuerError && ISSUER_STATUS[err.code]) {
      return c.json({ error: err.code, message: err.message }, ISSUER_STATUS[err.code]!);
    }
    const path = new URL(c.req.url).pathname;
    // With the process's logger: one JSON line (no request data). Without (tests): the stack.
    if (opts.logger) {
      opts.logger.error("unhandled", { method: c.req.method, path, error: errorText(err) });
    } else console.error(`${c.req.method} ${path} failed:`, err);
    return c.json({ error: "internal", message: "Something went wrong" }, 500);
  });
  return app;
}
