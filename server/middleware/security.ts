import type { MiddlewareHandler } from "hono";

/**
 * Security headers on every response, 404s and errors included: strict CSP with no inline
 * script, HSTS, nosniff, Referrer-Policy and frame-ancestors. `frameSrc` lists origins the
 * support tab may embed (spec §2).
 */
export function securityHeaders(frameSrc: string[] = []): MiddlewareHandler {
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "worker-src 'self'",
    "manifest-src 'self'",
    `frame-src ${frameSrc.length ? frameSrc.join(" ") : "'none'"}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
  return async (c, next) => {
    await next();
    const h = c.res.headers;
    h.set("Content-Security-Policy", csp);
    h.set("Strict-Transport-Security", "max-age=63072000; includeSubDomains");
    h.set("X-Content-Type-Options", "nosniff");
    h.set("Referrer-Policy", "no-referrer");
    h.set("X-Frame-Options", "DENY");
    h.set("Cross-Origin-Opener-Policy", "same-origin");
    h.set("Permissions-Policy", "camera=(self), geolocation=(), microphone=()");
  };
}
