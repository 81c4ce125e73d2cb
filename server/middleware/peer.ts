import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../env.ts";
import { timingSafeEqual } from "../domain/secrets.ts";

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

/**
 * Development pages (/_outbox, later /_issuer): never in production; otherwise only to a
 * direct loopback peer (a request relayed by a proxy on this host carries forwarding
 * headers and is not trusted as local) or to a caller presenting DEV_SECRET in the
 * `x-dev-secret` header. Anyone else gets the same 404 as a path that does not exist.
 */
export function devOnly(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const { config } = c.var.deps;
    const secret = c.req.header("x-dev-secret");
    const local = isLoopback(peerAddress(c)) && !FORWARDED.some((h) => c.req.header(h));
    const bySecret = !!config.DEV_SECRET && !!secret && timingSafeEqual(secret, config.DEV_SECRET);
    if (config.APP_ENV === "production" || !(local || bySecret)) {
      return c.json({ error: "not_found", message: "Not found" }, 404);
    }
    await next();
  };
}
