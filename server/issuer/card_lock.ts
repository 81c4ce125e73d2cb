/**
 * One change at a time per card within this process (a promise chain per key, as ids.ts
 * hands out ids): 50 concurrent purchases on one card queue here instead of all racing the
 * same checked write and starving. Writes stay checked and retried, which settles races with
 * other processes on the same KV; this only keeps one process from racing itself.
 */
export class CardLocks {
  readonly #tails = new Map<string, Promise<void>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = prev.then(() => mine);
    this.#tails.set(key, tail);
    try {
      await prev;
      return await fn();
    } finally {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}

/** A short random wait after a few lost races (other processes), growing with the count. */
export async function backoff(tries: number): Promise<void> {
  if (tries < 3) return;
  await new Promise((r) => setTimeout(r, Math.random() * Math.min(25, tries)));
}
