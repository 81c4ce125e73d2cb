import "./styles/app.css";
import { effect } from "@preact/signals-react";
import { createRoot } from "react-dom/client";
import { App, mountPanels } from "./app/App.tsx";
import { loadMainArea } from "./app/main_chunk.ts";
import { boot, firstScreen } from "./actions/session.ts";
import { applyKeptColors, refreshAppColors } from "./actions/app_color.ts";
import { nextTask, whenIdle } from "./lib/tasks.ts";
import { phase } from "./state/session.ts";

// The start, one step a task (on a phone's CPU one long task is a tap on the first
// screen that waits): this module's evaluation, the first render (it takes the static first
// screen over), start-up (device id, initialize, translation), and once that is done and the
// main thread idle, what the first screen does not need: the service worker's install, the
// side panels, the main screen's chunk.

// The organisation's theme colours: the kept ones before the first paint, the server's after.
applyKeptColors();
// The screen index.html already shows (its static markup): the first render takes it over.
firstScreen();
nextTask(() => {
  createRoot(document.getElementById("root")!).render(<App />);
  nextTask(start);
});

/** At most this long the service worker's install waits for start-up (a network that hangs). */
const START_WAIT_MS = 5_000;

function start(): void {
  const started = boot().then(() => void refreshAppColors()).catch((err) => {
    // spec §8: if the application fails to start, the error is written to the console.
    console.error("QCard failed to start", err);
    phase.value = "failed";
  });
  const settled = new Promise((done) => setTimeout(done, START_WAIT_MS));
  void Promise.race([started, settled]).then(() => whenIdle(afterStart));
}

/**
 * What waits until start-up is done and the main thread is idle, one step an idle moment (the
 * worker's registration and the side panels' first render were one task of 30-35 ms on this
 * machine).
 */
function afterStart(): void {
  registerServiceWorker();
  whenIdle(mountPanels);
  // The main screen's chunk, fetched while the PIN is typed: from the PIN pad on, not on the
  // activation screen (a newcomer is an email and a new PIN away from the main screen).
  let asked = false;
  const stop = effect(() => {
    if (asked || !["definePin", "unlock", "main"].includes(phase.value)) return;
    asked = true;
    queueMicrotask(() => stop());
    whenIdle(() => loadMainArea().catch(() => {/* retried by the lazy component when needed */}));
  });
}

/**
 * spec §7: the service worker script registers at start; a new version waits for the person's
 * yes (spec §4 'Load New Version?', actions/update.ts). Registered once start-up is done: its
 * install fetches the whole precache list, which on a phone's network and CPU would compete
 * with the first screen and start-up's own requests.
 */
function registerServiceWorker(): void {
  if (!("serviceWorker" in navigator)) return;
  Promise.all([navigator.serviceWorker.register("/sw.js"), import("./actions/update.ts")])
    .then(([reg, update]) => update.watchForUpdate(reg))
    .catch((err) => console.error("service worker", err));
}
