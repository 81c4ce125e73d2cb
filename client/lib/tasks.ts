/**
 * Work split into tasks of its own, so that the main thread answers a tap between them (issue
 * 41: on a phone's CPU one start-up task of 50 ms or more is a tap that waits).
 */

/** Runs `fn` in a task of its own, after what the browser has queued (input, a frame). */
export function nextTask(fn: () => void): void {
  setTimeout(fn, 0);
}

/**
 * Runs `fn` when the main thread is idle, within `timeout` ms at the latest. Safari before 16.4
 * has no `requestIdleCallback`: a short timer there.
 */
export function whenIdle(fn: () => void, timeout = 2_000): void {
  if (typeof requestIdleCallback === "function") requestIdleCallback(() => fn(), { timeout });
  else setTimeout(fn, 50);
}

/** `value`, in a task after this one: what the awaiting code does next is a task of its own. */
export function afterTask<T>(value: T): Promise<T> {
  return new Promise((resolve) => setTimeout(() => resolve(value), 0));
}
