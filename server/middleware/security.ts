import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../domain/env.ts";
import { SUPPORT_PREFIX } from "../support/pages.ts";

/** The receipt reader's files (client/build/ocr.ts: `/assets/ocr-<hash>/`). */
const OCR_PREFIX = "/assets/ocr-";

/**
 * Security headers on every response, 404s and errors included: strict CSP (an inline style
 * or script only by the hash the static route names: the static shells' stylesheet and boot
 * script), HSTS, nosniff, Referrer-Policy and frame-ancestors. The support tab (spec §2) may
 * embed our own support pages ('self') and the origins in `frameSrc` (an external support
 * address). Nothing may frame our pages, except the support pages under SUPPORT_PREFIX,
 * which only our own origin may frame (the support tab).
 *
 * Cross-Origin-Opener-Policy `same-origin` cuts any other site's handle on our window (a page
 * that opened or linked to us), except on a document the person opened themselves (the address
 * bar, a bookmark, the home-screen icon: `Sec-Fetch-Site: none`, `Sec-Fetch-Dest: document`):
 * no other page took part in that navigation, so there is no handle to cut, and the policy's
 * browsing-context-group swap would start a fresh renderer before the first paint (on Chromium
 * 156: 65-120 ms of main thread at full CPU speed, first paint 0.30-0.40 s instead of 0.16-0.21 s;
 * docs/benchmarks.md). The one handle it leaves: a window another site opened empty, into which
 * the person then types our address. The service worker's copy of the shell is fetched by the
 * worker (not a document navigation), so it keeps the policy.
 */
export function securityHeaders(frameSrc: string[] = []): MiddlewareHandler<AppEnv> {
  const policy = (ancestors: string, styles: string[] = [], scripts: string[] = []) =>
    [
      "default-src 'self'",
      ["script-src 'self'", ...scripts].join(" "),
      ["style-src 'self'", ...styles].join(" "),
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
    // The static shells' inline stylesheet and script, by their hashes (server/routes/static.ts).
    const styles = c.get("styleHashes");
    // The receipt reader's engine (client/build/ocr.ts) is WebAssembly, compiled in its own
    // worker: that worker's script alone may compile it.
    const scripts = c.req.path.startsWith(OCR_PREFIX)
      ? ["'wasm-unsafe-eval'"]
      : c.get("scriptHashes");
    h.set(
      "Content-Security-Policy",
      styles?.length || scripts?.length
        ? policy(framed ? "'self'" : "'none'", styles, scripts)
        : framed
        ? framedCsp
        : csp,
    );
    h.set("Strict-Transport-Security", "max-age=63072000; includeSubDomains");
    h.set("X-Content-Type-Options", "nosniff");
    h.set("Referrer-Policy", "no-referrer");
    h.set("X-Frame-Options", framed ? "SAMEORIGIN" : "DENY");
    if (!openedByThePerson(c.req.raw.headers)) h.set("Cross-Origin-Opener-Policy", "same-origin");
    if (/^text\/html/.test(h.get("Content-Type") ?? "")) {
      // The policy depends on these two request headers: a cache must key the page by them.
      const vary = h.get("Vary");
      h.set("Vary", [vary, "Sec-Fetch-Site", "Sec-Fetch-Dest"].filter(Boolean).join(", "));
    }
    h.set("Permissions-Policy", "camera=(self), geolocation=(), microphone=()");
  };
}

/** A top-level document the person opened themselves: no other page took part. */
export function openedByThePerson(headers: Headers): boolean {
  return headers.get("Sec-Fetch-Site") === "none" && headers.get("Sec-Fetch-Dest") === "document";
}
