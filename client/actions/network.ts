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
  reach.report = (ok) => (ok ? netUp() : netDown());
  if (typeof navigator !== "undefined" && navigator.onLine === false) netDown();
}
