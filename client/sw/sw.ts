/**
 * Service worker entry: wiring only. build.ts bundles it to /sw.js as an IIFE (a classic
 * worker, so `navigator.serviceWorker.register("/sw.js")` needs no `type: "module"`) and
 * replaces `self.__WB_MANIFEST` with the precache list of that build.
 */
import type { PrecacheEntry } from "workbox-precaching";
import { listenForSkipWaiting, type SkipWaitingScope } from "./messages.ts";
import { setupPrecache } from "./precache.ts";

/** The part of the worker's global scope used here (deno.json types against lib dom). */
interface ServiceWorkerGlobalScope extends SkipWaitingScope {
  /** Injected by build.ts through esbuild `define`. */
  readonly __WB_MANIFEST: Array<PrecacheEntry | string>;
}

declare const self: ServiceWorkerGlobalScope;

setupPrecache(self.__WB_MANIFEST);
listenForSkipWaiting(self);
