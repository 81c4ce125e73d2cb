/**
 * Precache list and the routes that answer from it (engineering.md habit 8).
 *
 * The shell (index.html, hashed JS/CSS, manifest, icons) is precached so the app starts
 * offline (spec §1: works from locally cached data when the network fails). API answers are
 * never cached here: card numbers and CVCs must not sit in Cache Storage.
 */
import {
  cleanupOutdatedCaches,
  createHandlerBoundToURL,
  precacheAndRoute,
  type PrecacheEntry,
} from "workbox-precaching";
import { NavigationRoute, registerRoute } from "workbox-routing";

/**
 * The URL the precache stores the shell under; navigations fall back to it. Not index.html:
 * that one shows the activation screen before any script (build.ts), and a worker cannot
 * read the cookies that choose between it and the PIN pad on every phone. This one has an
 * empty root; the app renders the screen the cookies choose, from the cache.
 */
export const SHELL_URL = "/app.html";

/**
 * Paths the service worker must never answer or store: the API (card data must never be
 * cached by the SW) and every development page (/_outbox, /_issuer and any other path
 * starting with "/_": the server's own pages, never the app shell). Matched against
 * pathname + search.
 */
export const PASS_THROUGH: readonly RegExp[] = [
  /^\/bonita(?:[/?]|$)/,
  /^\/_/,
];

/** Navigations that do not get the shell: pass-through paths and paths naming a file. */
export const NOT_SHELL: readonly RegExp[] = [
  ...PASS_THROUGH,
  /\/[^/?]+\.[^/?]+(?:\?|$)/,
];

/** Whether a same-origin path (with its search) is kept away from every SW route. */
export function isPassThrough(pathAndSearch: string): boolean {
  return PASS_THROUGH.some((re) => re.test(pathAndSearch));
}

/** Whether a navigation to this path (with its search) is answered with the shell. */
export function isShellNavigation(pathAndSearch: string): boolean {
  return !NOT_SHELL.some((re) => re.test(pathAndSearch));
}

/**
 * Precaches the build's manifest and routes navigations to the shell. Hashed assets carry
 * revision null (the name is the revision); the rest carry a content hash from build.ts.
 */
export function setupPrecache(
  manifest: ReadonlyArray<PrecacheEntry | string>,
): void {
  // Defence in depth: even a wrong manifest must not put API paths in the cache.
  const entries = manifest.filter((entry) =>
    !isPassThrough(typeof entry === "string" ? entry : entry.url)
  );
  precacheAndRoute(entries, { directoryIndex: SHELL_URL.slice(1), cleanURLs: false });
  cleanupOutdatedCaches();
  // No URL routes (spec §2): any navigation not to a file gets the shell, offline too.
  registerRoute(
    new NavigationRoute(createHandlerBoundToURL(SHELL_URL), {
      denylist: [...NOT_SHELL],
    }),
  );
}
