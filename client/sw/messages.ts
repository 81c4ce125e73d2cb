/**
 * Messages from the page. A new version waits until the user accepts 'Load New Version?'
 * (engineering.md habit 8, squoosh's pattern): only then does the page post SKIP_WAITING, and it
 * reloads on `controllerchange`. Installing never skips waiting by itself, so an open tab
 * never runs old JS against a new service worker mid-session.
 */

/** The message the page posts to the waiting worker once the user accepts the update. */
export const SKIP_WAITING = "SKIP_WAITING";

/** The part of ServiceWorkerGlobalScope this module uses (deno.json has no webworker lib). */
export interface SkipWaitingScope {
  addEventListener(
    type: "message",
    listener: (event: { data: unknown }) => void,
  ): void;
  skipWaiting(): Promise<void>;
}

/** Whether a posted message asks the waiting worker to take over. */
export function isSkipWaiting(data: unknown): boolean {
  return typeof data === "object" && data !== null &&
    (data as { type?: unknown }).type === SKIP_WAITING;
}

/** Takes over from the previous worker when the page says the user accepted the update. */
export function listenForSkipWaiting(scope: SkipWaitingScope): void {
  scope.addEventListener("message", (event) => {
    if (isSkipWaiting(event.data)) void scope.skipWaiting();
  });
}
