/**
 * Fixed-window counters in KV (expire with their window). Every secret check counts here
 * before the secret is evaluated (engineering.md §5): one checked atomic write per attempt, so N
 * parallel attempts count N.
 */
export class RateLimitRepo {
  constructor(private kv: Deno.Kv) {}

  /**
   * Counts one hit; returns false when the limit for the window is already reached, or
   * when the counter stays contended (treated as reached: the caller's safe path).
   */
  async hit(kind: string, key: string, limit: number, windowMs: number): Promise<boolean> {
    const k: Deno.KvKey = ["ratelimit", kind, key];
    for (let i = 0; i < 20; i++) {
      const cur = await this.kv.get<{ n: number; until: number }>(k);
      const now = Date.now();
      const live = cur.value && cur.value.until > now ? cur.value : null;
      if (live && live.n >= limit) return false;
      const next = live ? { n: live.n + 1, until: live.until } : { n: 1, until: now + windowMs };
      const ok = await this.kv.atomic().check(cur)
        .set(k, next, { expireIn: Math.max(1, next.until - now) }).commit();
      if (ok.ok) return true;
      await new Promise((r) => setTimeout(r, Math.random() * 5 * (i + 1)));
    }
    return false;
  }

  /** Gives one hit back (a check that turned out to be the rightful owner's). */
  async refund(kind: string, key: string): Promise<void> {
    const k: Deno.KvKey = ["ratelimit", kind, key];
    for (let i = 0; i < 20; i++) {
      const cur = await this.kv.get<{ n: number; until: number }>(k);
      if (!cur.value || cur.value.n <= 0) return;
      const next = { ...cur.value, n: cur.value.n - 1 };
      const expireIn = Math.max(1, next.until - Date.now());
      if ((await this.kv.atomic().check(cur).set(k, next, { expireIn }).commit()).ok) return;
    }
  }

  async peek(kind: string, key: string): Promise<number> {
    const v = (await this.kv.get<{ n: number; until: number }>(["ratelimit", kind, key])).value;
    return v && v.until > Date.now() ? v.n : 0;
  }
}
