import type { Hono } from "hono";
import type { AppEnv } from "../env.ts";

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  json: "application/json",
  webmanifest: "application/manifest+json",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
  txt: "text/plain; charset=utf-8",
  map: "application/json",
  woff2: "font/woff2",
};

/**
 * Serves the built client. Hashed files under /assets/ never change, so they are
 * `immutable`; index.html and sw.js must be revalidated so a new version is found.
 */
export function staticRoutes(app: Hono<AppEnv>, dir: string): void {
  app.get("*", async (c, next) => {
    let path: string;
    try {
      path = decodeURIComponent(new URL(c.req.url).pathname);
    } catch {
      return await next(); // malformed percent-encoding: not a file of ours (404)
    }
    if (path === "/") path = "/index.html";
    if (path.includes("..") || path.includes("\0")) return await next();
    const ext = path.slice(path.lastIndexOf(".") + 1);
    const type = TYPES[ext];
    if (!type) return await next();
    let body: Uint8Array;
    try {
      body = await Deno.readFile(`${dir}${path}`);
    } catch {
      return await next();
    }
    const cache = path.startsWith("/assets/")
      ? "public, max-age=31536000, immutable"
      : path === "/index.html" || path === "/sw.js"
      ? "no-cache"
      : "public, max-age=3600";
    return c.body(body as Uint8Array<ArrayBuffer>, 200, {
      "Content-Type": type,
      "Cache-Control": cache,
    });
  });
}
