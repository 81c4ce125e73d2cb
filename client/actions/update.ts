import { effect } from "@preact/signals-react";
import { t } from "../i18n/index.ts";
import { SKIP_WAITING } from "../sw/messages.ts";
import { askConfirm, confirmRequest } from "../state/ui.ts";

// spec §4 'New version available. Load New Version?' (engineering.md habit 8, squoosh's pattern).
// A new service worker installs beside the running one and waits; nothing changes under
// the person's feet until they accept. Yes → the waiting worker is told to skip waiting →
// `controllerchange` → one reload into the new build. No → it keeps waiting, and the next
// start (registration finds it in `waiting`) asks again.

/** How often an open app asks the server for a new sw.js, at most (on becoming visible). */
const CHECK_EVERY_MS = 30 * 60_000;

let asked = false;
let reloading = false;

/**
 * Watches a registration for a new version: one already waiting (declined last time, or
 * installed while the app was closed) is offered now, a later one once it is installed.
 * Only with a controller: the very first install is not an update.
 */
export function watchForUpdate(reg: ServiceWorkerRegistration): void {
  const sw = navigator.serviceWorker;
  const offerWhenInstalled = (worker: ServiceWorker | null) => {
    if (!worker) return;
    if (worker.state === "installed") return offer(worker);
    worker.addEventListener("statechange", () => {
      if (worker.state === "installed") offer(worker);
    });
  };
  if (reg.waiting) offer(reg.waiting);
  else offerWhenInstalled(reg.installing);
  reg.addEventListener("updatefound", () => offerWhenInstalled(reg.installing));

  let lastCheck = Date.now();
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState !== "visible" || Date.now() - lastCheck < CHECK_EVERY_MS) return;
    lastCheck = Date.now();
    reg.update().catch(() => {/* offline: next time */});
  });
  // The new worker takes over only after someone said yes (here, or in another tab: this
  // one reloads too, its old JS would otherwise ask for files the new build no longer has).
  // Without a controller at start this is the first install's claim, not an update.
  const hadController = !!sw.controller;
  sw.addEventListener("controllerchange", () => {
    if (reloading || !hadController) return;
    reloading = true;
    location.reload();
  });
}

/** Asks once per start; waits for any confirm already on screen to be answered first. */
function offer(worker: ServiceWorker): void {
  if (asked || !navigator.serviceWorker.controller) return;
  asked = true;
  const ask = () =>
    askConfirm({
      message: t("update.available"),
      showNo: true,
      yesLabel: t("update.load"),
      noLabel: t("update.later"),
      onYes: () => worker.postMessage({ type: SKIP_WAITING }),
    });
  if (!confirmRequest.value) return ask();
  let done = false;
  const stop = effect(() => {
    if (confirmRequest.value || done) return;
    done = true;
    queueMicrotask(() => {
      stop();
      ask();
    });
  });
}
