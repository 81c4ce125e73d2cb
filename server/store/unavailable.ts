/**
 * The store cannot serve a call now: PostgreSQL is down or refusing connections, or a write
 * kept failing to serialise against others. Thrown by the store (server/store/pg_outage.ts),
 * answered `503 {error: "store_unavailable", message}` with `Retry-After` by app.ts, and named
 * by /healthz. A client tries again later (the offline queue does, client/actions/replay.ts):
 * nothing the caller sent is lost, and a write it repeats with its Idempotency-Key is done once.
 */
export class StoreUnavailableError extends Error {
  constructor(
    /** Why, for the log and /healthz: a cause in words, never an address or a URL. */
    readonly reason: string,
    /** Seconds after which a new try may succeed (the answer's Retry-After). */
    readonly retryAfterS = 2,
    options?: ErrorOptions,
  ) {
    super(`The store is unavailable: ${reason}`, options);
    this.name = "StoreUnavailableError";
  }
}
