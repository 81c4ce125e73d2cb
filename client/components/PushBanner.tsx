import { lazy, Suspense, useEffect } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { COOKIE_NAMES, getCookie } from "../lib/cookies.ts";
import { isDecisionLink, parsePushLink, PUSH_OPEN_PARAM } from "../shared/push_links.ts";
import { isPushPageMessage, PUSH_MESSAGE } from "../sw/push.ts";
import { inAppPush, pendingLink, showInAppPush } from "../state/push.ts";
import { appConfig, phase } from "../state/session.ts";
import { logout } from "../actions/session.ts";
import { loadMainChunk } from "../state/main_chunk.ts";

// spec §2 "Push message and error banners", and the page's side of web push (spec §1 push
// notifications). Mounted with the error banners, so it is part of the first load: it keeps to
// signals and message plumbing. The banner's view, opening items and refreshing the registration
// come with the main screen's chunk (client/app/push_main.ts), fetched while the PIN is typed.

/** The main screen's chunk (client/state/main_chunk.ts): push's unlocked half is in it. */
const mainChunk = () => loadMainChunk().then((m) => m.push);

/**
 * A deep link the app was started with (a notification opened a new window) becomes the
 * pending link, and leaves the address bar, so a reload does not open it again. Other `open`
 * values (the manifest's shortcuts, client/actions/shortcuts.ts) are left to their reader.
 */
function takeStartLink(): void {
  if (!parsePushLink(location.search)) return;
  const url = new URL(location.href);
  pendingLink.value = url.href;
  url.searchParams.delete(PUSH_OPEN_PARAM);
  history.replaceState(history.state, "", url.pathname + url.search + url.hash);
}

/**
 * A clicked notification's link. A decision chosen on it ("Approve", "Reject") is confirmed by
 * this person's unlock, never by an app that stayed unlocked behind a locked phone or in
 * another tab: the app locks first (as Menu → Lock does), so the PIN pad or the passkey asks
 * before the approval opens with the decision pre-selected (docs/messages.md, push actions).
 */
function openFromNotification(url: string): void {
  if (isDecisionLink(url) && phase.peek() === "main") logout();
  pendingLink.value = url;
}

/** Messages from the service worker: a push while on screen, or a clicked notification. */
function listenToWorker(): () => void {
  const sw = typeof navigator !== "undefined" ? navigator.serviceWorker : undefined;
  if (!sw) return () => {};
  const onMessage = (event: MessageEvent) => {
    const m = event.data;
    if (!isPushPageMessage(m)) return;
    if (m.type === PUSH_MESSAGE) {
      showInAppPush({
        title: m.title,
        body: m.body,
        url: m.url,
        ...(m.actions ? { actions: m.actions } : {}),
      });
      // The lists it touches, through the change registry (its module is the main screen's).
      const c = m.change;
      if (c) void import("../actions/changes.ts").then((x) => x.pushedChange(c.kind, c.id));
    } else openFromNotification(m.url);
  };
  sw.addEventListener("message", onMessage);
  sw.startMessages?.();
  return () => sw.removeEventListener("message", onMessage);
}

/**
 * Once unlocked (never before the PIN): the pending deep link opens its item, and a push
 * registration older than 7 days is made again (spec §9).
 */
function useAfterUnlock(unlocked: boolean, link: string | null): void {
  useEffect(() => {
    if (!unlocked || !link) return;
    pendingLink.value = null;
    mainChunk()
      .then((m) => m.openLink(link))
      .catch((err) => console.warn("deep link not opened", link, err));
  }, [unlocked, link]);
  useEffect(() => {
    if (!unlocked || !getCookie(COOKIE_NAMES.push)) return;
    mainChunk()
      .then((m) => m.refreshPush(appConfig.peek().vapidPublicKey))
      .catch((err) => console.warn("push registration refresh failed", err));
  }, [unlocked]);
}

/** The banner itself comes with the main screen's chunk; only a push brings it in. */
const PushBannerView = lazy(() => mainChunk().then((m) => ({ default: m.PushBannerView })));

/**
 * spec §2 push message banner, and the page's side of web push: the deep link the app was
 * started with, the service worker's messages, and what happens once the app is unlocked.
 */
export function PushBanner() {
  useSignals();
  useEffect(() => {
    takeStartLink();
    return listenToWorker();
  }, []);
  useAfterUnlock(phase.value === "main", pendingLink.value);
  return inAppPush.value
    ? (
      <Suspense fallback={null}>
        <PushBannerView />
      </Suspense>
    )
    : null;
}
