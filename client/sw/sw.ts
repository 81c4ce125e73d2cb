/**
 * Service worker entry: wiring only. build.ts bundles it to /sw.js as an IIFE (a classic
 * worker, so `navigator.serviceWorker.register("/sw.js")` needs no `type: "module"`) and
 * replaces `self.__WB_MANIFEST` with the precache list of that build.
 */
import type { PrecacheEntry } from "workbox-precaching";
import { listenForSkipWaiting, type SkipWaitingScope } from "./messages.ts";
import { pruneOnDemand, routeOnDemand } from "./on_demand.ts";
import { setupPrecache } from "./precache.ts";
import { listenForPush, type PushScope } from "./push.ts";

/** The part of the worker's global scope used here (deno.json types against lib dom). */
interface ServiceWorkerGlobalScope extends SkipWaitingScope {
  /** Injected by build.ts through esbuild `define`. */
  readonly __WB_MANIFEST: Array<PrecacheEntry | string>;
  /** Injected by build.ts: files cached at first use instead of precached (pdf.js). */
  readonly __QC_ON_DEMAND: string[];
  addEventListener(
    type: "activate",
    listener: (event: { waitUntil(p: Promise<unknown>): void }) => void,
  ): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
}

declare const self: ServiceWorkerGlobalScope;

setupPrecache(self.__WB_MANIFEST);
routeOnDemand(self.__QC_ON_DEMAND);
self.addEventListener("activate", (event) => event.waitUntil(pruneOnDemand(self.__QC_ON_DEMAND)));
listenForSkipWaiting(self);
listenForPush(self as unknown as PushScope);
