/**
 * The jobs wing's retry and concurrency rules (server/jobs/), shared by every kind of job and by
 * the leavers' card stops.
 */

/**
 * Delay before attempt `attempts + 1`: base · 2^(attempts-1), capped, with ±20 % jitter so
 * that messages failed together (a mail server restart) do not come back together.
 */
export function backoffMs(attempts: number, baseMs: number, maxMs: number): number {
  const raw = Math.min(maxMs, baseMs * 2 ** Math.max(0, Math.min(attempts - 1, 40)));
  return Math.round(Math.min(maxMs, raw * (0.8 + Math.random() * 0.4)));
}

/** Rejects with an error naming the limit if `p` has not settled within `ms` (a temporary failure). */
export async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** At most `n` holders at a time. */
export class Semaphore {
  private waiting: (() => void)[] = [];
  constructor(private free: number) {}

  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((r) => this.waiting.push(r));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}
