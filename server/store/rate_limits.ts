/**
 * Fixed-window counters in KV (expire with their window). Used for activation emails,
 * secret answers and code checks, per email, per device and per client address.
 */
export class RateLimitRepo {
  constructor(private kv: Deno.Kv) {}

  /** Counts one hit; returns false when the limit for the window is already reached. */
  async hit(kind: string, key: string, limit: number, windowMs: number): Promise<boolean> {
    const k: Deno.KvKey = ["ratelimit", kind, key];
    for (let i = 0; i < 10; i++) {
      const cur = await this.kv.get<number>(k);
      const n = cur.value ?? 0;
      if (n >= limit) return false;
      const ok = await this.kv.atomic().check(cur).set(k, n + 1, { expireIn: windowMs }).commit();
      if (ok.ok) return true;
    }
    return false;
  }

  async peek(kind: string, key: string): Promise<number> {
    return (await this.kv.get<number>(["ratelimit", kind, key])).value ?? 0;
  }
}
