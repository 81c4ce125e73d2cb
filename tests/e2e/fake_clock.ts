/**
 * A fake clock for the app's timers, installed in a running page: the `setTimeout` calls made
 * from then on with one of the chosen delays wait for the test's `tick` instead of the real
 * clock; every other timer stays real (so network, retries and the frameworks' schedulers run
 * as usual). The app calls the global `setTimeout` at each use, so replacing it at any time
 * takes effect for the next timer. Ticking fires the due timers in order, each at its own
 * fake instant, so a test sees the state just before and just after a threshold, however
 * loaded the machine is.
 */
import type { Page } from "puppeteer-core";

interface FakeTimers {
  now: number;
  timers: Map<number, { due: number; fn: () => void }>;
  tick(ms: number): number;
}

/** Takes over the page's timers whose delay is one of `delays` (ms). */
export async function installFakeClock(page: Page, delays: number[]): Promise<void> {
  await page.evaluate((watched: number[]) => {
    const w = window as unknown as { __clock?: FakeTimers };
    if (w.__clock) return;
    const realSet = globalThis.setTimeout.bind(globalThis);
    const realClear = globalThis.clearTimeout.bind(globalThis);
    let nextId = 1_000_000_000;
    const clock: FakeTimers = {
      now: 0,
      timers: new Map(),
      /** Advances the fake time by `ms`; how many timers fired. */
      tick(ms: number): number {
        const target = clock.now + ms;
        let fired = 0;
        for (;;) {
          let first: [number, { due: number; fn: () => void }] | null = null;
          for (const e of clock.timers) if (!first || e[1].due < first[1].due) first = e;
          if (!first || first[1].due > target) break;
          clock.timers.delete(first[0]);
          clock.now = first[1].due;
          fired++;
          first[1].fn();
        }
        clock.now = target;
        return fired;
      },
    };
    w.__clock = clock;
    // deno-lint-ignore no-explicit-any
    (globalThis as any).setTimeout = (fn: unknown, ms?: number, ...args: unknown[]) => {
      if (typeof fn !== "function" || !watched.includes(Number(ms))) {
        return realSet(fn as TimerHandler, ms, ...args);
      }
      const id = nextId++;
      clock.timers.set(id, { due: clock.now + Number(ms), fn: () => fn(...args) });
      return id;
    };
    // deno-lint-ignore no-explicit-any
    (globalThis as any).clearTimeout = (id?: number) => {
      if (id !== undefined && clock.timers.delete(id)) return;
      realClear(id);
    };
  }, delays);
}

/** The fake timers waiting, by delay left: what the app scheduled and is not due yet. */
export async function pendingTimers(page: Page): Promise<number[]> {
  return await page.evaluate(() => {
    const c = (window as unknown as { __clock: FakeTimers }).__clock;
    return [...c.timers.values()].map((t) => t.due - c.now).sort((a, b) => a - b);
  });
}

/**
 * Waits until the pending timers are exactly `want` (ms left, sorted): a timer set in an
 * effect after the change a test waited for may come a moment later on a loaded machine.
 */
export async function untilPending(page: Page, want: number[]): Promise<void> {
  await page.waitForFunction(
    (w: number[]) => {
      const c = (window as unknown as { __clock: FakeTimers }).__clock;
      const left = [...c.timers.values()].map((t) => t.due - c.now).sort((a, b) => a - b);
      return JSON.stringify(left) === JSON.stringify(w);
    },
    {},
    [...want].sort((a, b) => a - b),
  );
}

/** Waits until one pending timer has exactly `ms` left. */
export async function untilPendingHas(page: Page, ms: number): Promise<void> {
  await page.waitForFunction(
    (n: number) => {
      const c = (window as unknown as { __clock: FakeTimers }).__clock;
      return [...c.timers.values()].some((t) => t.due - c.now === n);
    },
    {},
    ms,
  );
}

/** Advances the fake clock by `ms`; the number of timers that fired. */
export async function tick(page: Page, ms: number): Promise<number> {
  return await page.evaluate(
    (n) => (window as unknown as { __clock: FakeTimers }).__clock.tick(n),
    ms,
  );
}
