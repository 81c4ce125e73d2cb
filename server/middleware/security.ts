import type { MiddlewareHandler } from "hono";
import { SUPPORT_PREFIX } from "../support/pages.ts";

/**
 * Security headers on every response, 404s and errors included: strict CSP with no inline
 * script, HSTS, nosniff, Referrer-Policy and frame-ancestors. The support tab (spec §2) may
 * embed our own support pages ('self') and the origins in `frameSrc` (an external support
 * address). Nothing may frame our pages, except the support pages under SUPPORT_PREFIX,
 * which only our own origin may frame (the support tab).
 */
export function securityHeaders(frameSrc: string[] = []): MiddlewareHandler {
  const policy = (ancestors: string) =>
    [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data: blob:",
      "font-src 'self'",
      "connect-src 'self'",
      "worker-src 'self'",
      "manifest-src 'self'",
      `frame-src ${["'self'", ...frameSrc].join(" ")}`,
      "object-src 'none'",
      "base-uri 'none'",
      "form-action 'self'",
      `frame-ancestors ${ancestors}`,
    ].join("; ");
  const csp = policy("'none'");
  const framedCsp = policy("'self'");
  return async (c, next) => {
    await next();
    const h = c.res.headers;
    const framed = c.req.path.startsWith(SUPPORT_PREFIX);
    h.set("Content-Security-Policy", framed ? framedCsp : csp);
    h.set("Strict-Transport-Security", "max-age=63072000; includeSubDomains");
    h.set("X-Content-Type-Options", "nosniff");
    h.set("Referrer-Policy", "no-referrer");
    h.set("X-Frame-Options", framed ? "SAMEORIGIN" : "DENY");
    h.set("Cross-Origin-Opener-Policy", "same-origin");
    h.set("Permissions-Policy", "camera=(self), geolocation=(), microphone=()");
  };
}
