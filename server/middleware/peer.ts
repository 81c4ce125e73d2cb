import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../domain/env.ts";
import { timingSafeEqual } from "../secrets.ts";
import { forbidden } from "../errors.ts";

/** The peer address Deno.serve hands to app.fetch; null in-process (app.request). */
export function peerAddress(c: Context<AppEnv>): string | null {
  const env = c.env as { remoteAddr?: { hostname?: string } } | undefined;
  return env?.remoteAddr?.hostname ?? null;
}

/**
 * The caller's address: the peer's, or, when the peer is a trusted proxy (TRUSTED_PROXIES:
 * an edge in relay mode), the last X-Forwarded-For entry, the address that edge saw. Earlier
 * entries are whatever the client wrote and are never believed.
 */
export function clientAddress(c: Context<AppEnv>): string | null {
  const peer = peerAddress(c);
  if (!fromTrustedProxy(c)) return peer;
  const last = c.req.header("x-forwarded-for")?.split(",").at(-1)?.trim();
  return last && /^[0-9a-fA-F.:]{2,45}$/.test(last) ? last : peer;
}

/** The peer is one of TRUSTED_PROXIES (an edge in relay mode in front of this server). */
export function fromTrustedProxy(c: Context<AppEnv>): boolean {
  const peer = peerAddress(c);
  const trusted = c.var.deps?.config.TRUSTED_PROXIES ?? [];
  return !!peer && trusted.includes(peer.replace(/^::ffff:/, ""));
}

/** The header an edge passes its client's Accept-Encoding in (its own says identity). */
export const RELAYED_ACCEPT_ENCODING = "x-qcard-accept-encoding";

/** From a trusted edge, its client's Accept-Encoding; otherwise undefined. */
export function relayedAcceptEncoding(c: Context<AppEnv>): string | undefined {
  return fromTrustedProxy(c) ? c.req.header(RELAYED_ACCEPT_ENCODING) : undefined;
}

/**
 * The key per-address limits count under: the IPv4 address, or the /64 of an IPv6 one
 * (one subscriber gets a whole /64 and can rotate inside it for free).
 */
export function addressKey(c: Context<AppEnv>): string {
  const a = clientAddress(c) ?? "in-process";
  if (!a.includes(":") || a.startsWith("::ffff:")) return a.replace(/^::ffff:/, "");
  const groups = expandIPv6(a);
  return groups ? `${groups.slice(0, 4).join(":")}::/64` : a;
}

function expandIPv6(a: string): string[] | null {
  const [head, tail] = a.split("::");
  const h = head ? head.split(":") : [];
  const t = tail !== undefined && tail !== "" ? tail.split(":") : [];
  if (tail === undefined) return h.length === 8 ? h : null;
  const fill = 8 - h.length - t.length;
  return fill < 0 ? null : [...h, ...Array(fill).fill("0"), ...t];
}

/** 127.0.0.0/8, ::1 and their IPv4-mapped forms. */
export function isLoopback(addr: string | null): boolean {
  if (!addr) return false;
  const a = addr.replace(/^::ffff:/, "");
  return a === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}

const FORWARDED = ["forwarded", "x-forwarded-for", "x-real-ip", "via"];

/** `localhost`, a 127.0.0.0/8 address or `[::1]`, with any port: a Host naming this machine. */
const LOOPBACK_HOST = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])(:\d{1,5})?$/i;

/**
 * The host the request names is this machine: its Host header (when sent) and the authority
 * of its URL (Deno builds it from Host, or from HTTP/2's :authority) are loopback names.
 * A page reached through a name that resolves here (DNS rebinding) is not.
 */
export function loopbackHost(c: Context<AppEnv>): boolean {
  const header = c.req.header("host");
  if (header !== undefined && !LOOPBACK_HOST.test(header)) return false;
  try {
    return LOOPBACK_HOST.test(new URL(c.req.url).host);
  } catch {
    return false;
  }
}

const SAFE_METHODS = ["GET", "HEAD", "OPTIONS"];

/**
 * A write another site made the browser send: `Sec-Fetch-Site` other than same-origin (or
 * none, the user's own navigation), or an `Origin` other than the page's own. The page's own
 * form arrives with `Origin: null` (our Referrer-Policy is no-referrer, and Chromium then
 * sends null on a POST): believed only with `Sec-Fetch-Site: same-origin`, which no other
 * site can make a browser send. Tools that send neither header (curl, the tests' JSON calls)
 * are not browsers carrying someone's session.
 */
export function crossSiteWrite(c: Context<AppEnv>): boolean {
  if (SAFE_METHODS.includes(c.req.method)) return false;
  const site = c.req.header("sec-fetch-site");
  if (site !== undefined && site !== "same-origin" && site !== "none") return true;
  const origin = c.req.header("origin");
  if (origin === undefined) return false;
  if (origin === "null") return site === undefined;
  try {
    return origin !== new URL(c.req.url).origin;
  } catch {
    return true;
  }
}

/**
 * Development pages (every path starting with "/_": /_outbox, /_issuer): never in
 * production; otherwise only to a direct loopback peer that names a loopback Host (a request
 * relayed by a proxy on this host carries forwarding headers and is not trusted as local; a
 * foreign Host is a rebinding page, docs/development.md) or to a caller presenting
 * DEV_SECRET in the `x-dev-secret` header. Anyone else gets the same 404 as a path that does
 * not exist. A write another site sent (a form posting a purchase) is refused with 403.
 */
export function devOnly(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const { config } = c.var.deps;
    const secret = c.req.header("x-dev-secret");
    const local = isLoopback(peerAddress(c)) && loopbackHost(c) &&
      !FORWARDED.some((h) => c.req.header(h));
    const bySecret = !!config.DEV_SECRET && !!secret && timingSafeEqual(secret, config.DEV_SECRET);
    if (config.APP_ENV === "production" || !(local || bySecret)) {
      return c.json({ error: "not_found", message: "Not found" }, 404);
    }
    if (crossSiteWrite(c)) {
      throw forbidden("cross_site", "Development pages accept writes from their own pages only");
    }
    await next();
  };
}
