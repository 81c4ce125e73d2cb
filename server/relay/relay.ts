import { Hono } from "hono";
import type { Context } from "hono";
import type { AppEnv, Deps } from "../domain/env.ts";
import { session } from "../../client/shared/contract/session.ts";
import { requests } from "../../client/shared/contract/requests.ts";
import { UPLOAD_PATH } from "../../client/shared/contract/documents.ts";
import { pickLocale, translate } from "../i18n.ts";
import { peerAddress } from "../middleware/peer.ts";
import { bufferedBody, MAX_JSON_BODY } from "../middleware/body.ts";
import { compress } from "../middleware/compress.ts";
import { vapidKeys } from "../push/keys.ts";
import { clientResponseHeaders, upstreamRequestHeaders } from "./headers.ts";
import { askedLocale, FRESH_WAIT_MS, keepTranslation, keptTranslation } from "./translations.ts";
import { relayTarget } from "./path.ts";
import { edgeCommentUploadUrl } from "./comment_upload.ts";
import { addCommentAsSpec, rejectAsSpec, type Send, SPEC_CALL_PATHS } from "./spec_calls.ts";
import { badRequest } from "../errors.ts";

/**
 * Relay mode (docs/relay.md): with UPSTREAM_URL, this edge serves the client (build, precache,
 * support pages) and relays every /bonita/* and /docservice/* call to the upstream, the
 * system of record: method, path, query and body streamed both ways (uploads and downloads
 * are never held whole), headers per ./headers.ts, redirects passed on, not followed.
 * Only a path that passes ./path.ts is relayed, and the upstream URL is built from that
 * checked path: dot segments and encoded separators are refused (400) before anything else.
 *
 * The upstream's answer (its headers) is awaited UPSTREAM_TIMEOUT_MS, plus UPLOAD_TIMEOUT_MS
 * on the upload call (a 10 MB upload on a slow link is not a slow upstream): past it 504,
 * and an upstream that cannot be reached 502, both `{error, message}` in the caller's
 * language. Every answer leaves with the edge's security headers and `no-store`, whatever
 * the upstream sent.
 *
 * What only the edge can do stays here: translations are kept per locale (./translations.ts),
 * `initialize` carries the edge's VAPID public key (the edge sends the pushes: the upstream
 * hands them over through POST /edge/push, server/push/edge.ts), and a push registration the
 * upstream accepted is also recorded at the edge (`onPushRegistered`).
 */
export interface RelayOptions {
  /** Called after the upstream accepted a pwaregisterpushtoken, with its JSON body. */
  onPushRegistered?: (deps: Deps, body: unknown) => Promise<void>;
}

const INITIALIZE = `/bonita${session.initialize.path}`;
const TRANSLATION = `/bonita${session.translation.path}`;
const REGISTER_PUSH = `/bonita${session.registerPushToken.path}`;
const COMMENTS = `/bonita${requests.comments.path}`;
const IDEMPOTENCY_KEY = "idempotency-key";

/** Why the upstream gave no answer: 502 or 504. */
class UpstreamError extends Error {
  constructor(readonly status: 502 | 504, readonly code: string, cause: unknown) {
    super(code, { cause });
  }
}

export function relayRoutes(opts: RelayOptions = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", async (c, next) => {
    await next();
    c.res.headers.set("Cache-Control", "no-store");
  });
  // The path rule first: a refused path reaches neither the upstream nor a body reader.
  app.use("*", async (c, next) => {
    if (relayTarget(c.req.url) === null) throw refusedPath();
    await next();
  });
  app.use("*", compress());
  // The one body the edge reads: read whole within the upstream's own JSON limit.
  app.use(session.registerPushToken.path, bufferedBody({ maxSize: MAX_JSON_BODY }));
  for (const path of SPEC_CALL_PATHS) {
    app.use(path.slice("/bonita".length), bufferedBody({ maxSize: MAX_JSON_BODY }));
  }
  app.all("*", async (c) => {
    try {
      const path = c.req.path;
      if (c.req.method === "GET" && path === TRANSLATION) return await translation(c);
      if (c.req.method === "GET" && path === INITIALIZE) return await initialize(c);
      if (c.req.method === "POST" && path === REGISTER_PUSH) return await registerPush(c, opts);
      if (c.req.method === "GET" && path === COMMENTS) return await comments(c);
      if (c.req.method === "POST" && SPEC_CALL_PATHS.includes(path)) return await specCall(c);
      return passOn(await forward(c));
    } catch (err) {
      if (err instanceof UpstreamError) return await upstreamFailed(c, err);
      throw err;
    }
  });
  return app;
}

const refusedPath = () =>
  badRequest("invalid_path", "This path is not relayed (dot segments or encoded separators)");

/**
 * The upstream URL for a checked path and query (./path.ts relayTarget): UPSTREAM_URL's
 * origin and base path, then that path.
 */
export function upstreamUrl(upstream: string, pathAndSearch: string): string {
  const base = new URL(upstream);
  const prefix = base.pathname.replace(/\/+$/, "");
  return `${base.origin}${prefix}${pathAndSearch}`;
}

/** A call the edge makes in the client's name instead of the client's own (./spec_calls.ts). */
interface Instead {
  method: "GET" | "POST";
  /** A /bonita path (and query) the edge builds: checked by the same rule as the client's. */
  path: string;
  body?: unknown;
  /** The Idempotency-Key to send: the client's (undefined), another, or none (null). */
  key?: string | null;
}

/**
 * Sends the request upstream and resolves with its answer (headers; the body streams).
 * `read`: the edge reads the answer itself, so it must cross plain (not in the client's coding).
 * `instead`: another call, with the client's credentials and forwarding headers.
 */
async function forward(c: Context<AppEnv>, read = false, instead?: Instead): Promise<Response> {
  const { config } = c.var.deps;
  const raw = c.req.raw;
  const url = new URL(raw.url);
  // The same check as the route's first middleware: what is sent is what was checked.
  const target = relayTarget(instead ? `${url.origin}${instead.path}` : raw.url);
  if (target === null) throw refusedPath();
  const headers = upstreamRequestHeaders(raw.headers, {
    peer: peerAddress(c),
    proto: url.protocol.replace(/:$/, ""),
    host: raw.headers.get("host"),
    passEncoding: !read && !instead,
  });
  if (instead) {
    headers.delete("content-length");
    headers.delete("content-encoding");
    if (instead.body !== undefined) headers.set("content-type", "application/json");
    else headers.delete("content-type");
    if (instead.key === null) headers.delete(IDEMPOTENCY_KEY);
    else if (instead.key !== undefined) headers.set(IDEMPOTENCY_KEY, instead.key);
  }
  const ctl = new AbortController();
  let timedOut = false;
  const method = instead?.method ?? raw.method;
  const hasBody = method !== "GET" && method !== "HEAD";
  // The request's own stream is handed to fetch as it is: Deno then pipes the connection's
  // body to the upstream without a copy through JavaScript. The answer is awaited for
  // UPSTREAM_TIMEOUT_MS, plus the upload allowance on the upload call (a 10 MB file on a
  // slow link is not a slow upstream; the upstream bounds the body's own time).
  const sent = instead
    ? (instead.body === undefined ? null : JSON.stringify(instead.body))
    : hasBody
    ? raw.body
    : null;
  const upload = !instead && raw.method === "POST" && c.req.path === `/bonita${UPLOAD_PATH}`;
  const timer = setTimeout(() => {
    timedOut = true;
    ctl.abort();
  }, config.UPSTREAM_TIMEOUT_MS + (upload ? config.UPLOAD_TIMEOUT_MS : 0));
  try {
    return await fetch(upstreamUrl(config.UPSTREAM_URL!, target), {
      method,
      headers,
      body: sent,
      redirect: "manual",
      signal: ctl.signal,
      // @ts-ignore: Deno's fetch streams a request body with duplex "half".
      duplex: "half",
    });
  } catch (err) {
    if (timedOut) throw new UpstreamError(504, "upstream_timeout", err);
    throw new UpstreamError(502, "upstream_unreachable", err);
  } finally {
    // The clock must not fire once the answer came (its abort would cut the body).
    clearTimeout(timer);
  }
}

/** The upstream's answer as the client gets it (the edge's headers are added around it). */
function passOn(res: Response, body: BodyInit | null = res.body): Response {
  const headers = clientResponseHeaders(res.headers);
  if (body !== res.body) headers.delete("content-length");
  return new Response(body, { status: res.status, statusText: res.statusText, headers });
}

async function upstreamFailed(c: Context<AppEnv>, err: UpstreamError): Promise<Response> {
  const tr = await translate(pickLocale(c.req.header("accept-language")));
  const message = err.status === 504 ? tr("relay.timeout") : tr("relay.unreachable");
  return c.json({ error: err.code, message }, err.status);
}

/** initialize: the upstream's answer with the edge's VAPID public key (the edge pushes). */
async function initialize(c: Context<AppEnv>): Promise<Response> {
  const res = await forward(c, true);
  if (res.status !== 200 || !/json/.test(res.headers.get("content-type") ?? "")) {
    return passOn(res);
  }
  const text = await readText(res);
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text);
  } catch {
    return passOn(res, text);
  }
  const { config, store } = c.var.deps;
  json.vapidPublicKey = (await vapidKeys(config, store.kv))?.publicKey ?? null;
  return passOn(res, JSON.stringify(json));
}

/**
 * pwaexpensecomments: relayed; a comment upload URL the upstream names (spec §7) is handed
 * on as the edge's own /bonita path, or null when it is not one (./comment_upload.ts).
 */
async function comments(c: Context<AppEnv>): Promise<Response> {
  const res = await forward(c, true);
  if (res.status !== 200 || !/json/.test(res.headers.get("content-type") ?? "")) {
    return passOn(res);
  }
  const text = await readText(res);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return passOn(res, text);
  }
  if (typeof json !== "object" || json === null || !("commentUploadUrl" in json)) {
    return passOn(res, text);
  }
  const o = json as Record<string, unknown>;
  o.commentUploadUrl = edgeCommentUploadUrl(c.var.deps.config.UPSTREAM_URL!, o.commentUploadUrl);
  return passOn(res, JSON.stringify(o));
}

/**
 * pwareject with a note and pwaaddcomment, sent upstream as the spec sends them (./spec_calls.ts),
 * or relayed as they are.
 */
async function specCall(c: Context<AppEnv>): Promise<Response> {
  // bufferedBody read it (413, 408, 400 as every JSON call): a copy to translate.
  const text = c.req.raw.body ? await c.req.raw.clone().text() : "";
  const send: Send = (method, path, body, key) => forward(c, true, { method, path, body, key });
  const key = c.req.header(IDEMPOTENCY_KEY) ?? null;
  const { deps } = c.var;
  const res = await rejectAsSpec(c.req.path, text, send, key) ??
    await addCommentAsSpec(c.req.path, text, send, deps.config.UPSTREAM_URL!, deps.now);
  return res ? passOn(res) : passOn(await forward(c));
}

/** pwaregisterpushtoken: relayed, and once the upstream accepted it, recorded at the edge. */
async function registerPush(c: Context<AppEnv>, opts: RelayOptions): Promise<Response> {
  // bufferedBody read it (413, 408, 400 as every JSON call): a copy for the edge's record.
  const text = c.req.raw.body ? await c.req.raw.clone().text() : "";
  const res = await forward(c);
  if (res.ok && opts.onPushRegistered) {
    try {
      await opts.onPushRegistered(c.var.deps, JSON.parse(text));
    } catch {
      // The upstream has it; the edge's record is refreshed by the next registration.
    }
  }
  return passOn(res);
}

/** pwatranslation with the edge's kept answers (see ./translations.ts). */
async function translation(c: Context<AppEnv>): Promise<Response> {
  const deps = c.var.deps;
  const kv = deps.store.kv;
  const locale = askedLocale(c.req.url, c.req.header("accept-language") ?? null);
  const kept = locale ? await keptTranslation(kv, locale) : null;
  const fresh = (async () => {
    const res = await forward(c, true);
    if (res.status !== 200) return passOn(res);
    const text = await readText(res);
    await keepTranslation(kv, text, deps.now()).catch(() => {});
    return passOn(res, text);
  })();
  if (!kept) return await fresh;
  // Whatever happens to the relayed call now, it must not be an unhandled rejection.
  fresh.catch(() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((r) => timer = setTimeout(() => r("late"), FRESH_WAIT_MS));
  try {
    const first = await Promise.race([fresh, late]);
    if (first !== "late" && first.status < 500) return first;
  } catch {
    // unreachable or timed out: the kept answer below
  } finally {
    clearTimeout(timer);
  }
  // The relayed call goes on (it records the language and refreshes the kept answer); an
  // answer no one will read is let go.
  fresh.then((r) => r.body?.cancel()).catch(() => {});
  return new Response(new Uint8Array(kept.body), {
    headers: { "content-type": "application/json; charset=UTF-8", "x-qcard-cache": "stale" },
  });
}

async function readText(res: Response): Promise<string> {
  try {
    return await res.text();
  } catch (err) {
    throw new UpstreamError(502, "upstream_unreachable", err);
  }
}

/**
 * The upstream probe of GET /healthz in relay mode: the upstream's own /healthz (any answer
 * below 500 means it answers; a QCard upstream whose store is down says 503).
 */
export function upstreamProbe(upstream: string) {
  return async (signal: AbortSignal): Promise<boolean> => {
    try {
      const res = await fetch(upstreamUrl(upstream, "/healthz"), {
        signal,
        redirect: "manual",
      });
      await res.body?.cancel();
      return res.status < 500;
    } catch {
      return false;
    }
  };
}
