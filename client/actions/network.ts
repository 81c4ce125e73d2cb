import { reach } from "../api/http.ts";
import { netDown, netUp } from "../state/ui.ts";

// Whether the phone reaches the server, for the offline strip (spec §1 offline: the app stays
// usable on its cached data, and says so as soon as the network drops, not when a write
// fails). Two witnesses: the browser's online/offline events, and every call's outcome.

let wired = false;

/** Starts following the network (once; the main screen's chunk calls it). */
export function followNetwork(): void {
  if (wired || typeof addEventListener === "undefined") return;
  wired = true;
  addEventListener("offline", netDown);
  addEventListener("online", netUp);
  // An answer while the browser says it is offline came from the service worker's cache: no
  // witness that the network is back ("Back online" while offline, then the strip gone).
  reach.report = (ok) => {
    if (!ok) netDown();
    else if (typeof navigator === "undefined" || navigator.onLine !== false) netUp();
  };
  if (typeof navigator !== "undefined" && navigator.onLine === false) netDown();
}
