/**
 * Files fetched only when a feature needs them (pdf.js: its chunk, worker and decoders;
 * spec §2 PDF viewer). build.ts leaves them out of the precache, so a first visit on mobile data
 * does not download a PDF viewer it may never use; here they are cached at first use instead, so a
 * PDF opened once can be opened again offline. Their names carry a content hash, so a cached copy
 * is never stale: cache first, network once. A new version keeps only its own.
 */
import { registerRoute } from "workbox-routing";

/** Cache Storage name for on-demand files (apart from workbox's precache). */
export const ON_DEMAND_CACHE = "qc-on-demand-v1";

/** Answers the build's on-demand paths from ON_DEMAND_CACHE, filling it on a miss. */
export function routeOnDemand(paths: readonly string[]): void {
  const wanted = new Set(paths);
  registerRoute(
    ({ url, request }) =>
      request.method === "GET" && url.origin === location.origin && wanted.has(url.pathname),
    async ({ url, request }) => {
      const cache = await caches.open(ON_DEMAND_CACHE);
      const hit = await cache.match(url.pathname);
      if (hit) return hit;
      const res = await fetch(request);
      if (res.ok && res.status === 200) await cache.put(url.pathname, res.clone());
      return res;
    },
  );
}

/** Deletes cached on-demand files this build no longer names (run on activate). */
export async function pruneOnDemand(paths: readonly string[]): Promise<void> {
  const keep = new Set(paths);
  const cache = await caches.open(ON_DEMAND_CACHE);
  for (const req of await cache.keys()) {
    if (!keep.has(new URL(req.url).pathname)) await cache.delete(req);
  }
}
