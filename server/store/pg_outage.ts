/**
 * Failing fast while PostgreSQL is unreachable. Without this, every call waited
 * for its own connection attempt, and postgres.js spaces reconnection attempts by a growing
 * backoff (up to 20 s): calls took 4–12 s to fail, and some over 15 s after the database was
 * back. Now a call that cannot connect fails with StoreUnavailableError (503 + Retry-After)
 * and has a probe look at once: when the probe cannot connect either, the store is down, every
 * call fails at once while it is, and one probe a PROBE_MS looks for the database, so calls
 * succeed again within PROBE_MS of its return. (The probe's look keeps one slow connection
 * attempt — an event loop held up under load — from failing every call.) A connection lost
 * under a call (the server restarted, a proxy dropped it) fails that call with 503 too, but
 * marks nothing down: the next call connects again, or finds that it cannot.
 */
import { createLogger, type LogFields } from "../log.ts";
import { StoreUnavailableError } from "./unavailable.ts";

/** How often the probe looks for a database that is down (and so how soon calls recover). */
export const PROBE_MS = 500;
/** Retry-After while the store is down, in seconds. */
const RETRY_AFTER_S = 2;

/**
 * Failures to reach the database, by `code` (socket errors, postgres.js's and SQLSTATEs): the
 * reason in words (never an address or a URL), and whether the database is away (`down`: no
 * connection can be made, or the server is going) or only this connection was lost.
 */
const CODES: Record<string, { reason: string; down: boolean }> = {
  ECONNREFUSED: { reason: "connection refused", down: true },
  CONNECT_TIMEOUT: { reason: "no connection within the connect timeout", down: true },
  ETIMEDOUT: { reason: "connection timed out", down: true },
  EHOSTUNREACH: { reason: "host unreachable", down: true },
  ENETUNREACH: { reason: "network unreachable", down: true },
  ENOTFOUND: { reason: "host name not found", down: true },
  EAI_AGAIN: { reason: "host name not resolved", down: true },
  "57P01": { reason: "the database server is shutting down", down: true },
  "57P02": { reason: "the database server crashed", down: true },
  "57P03": { reason: "the database server is starting up or shutting down", down: true },
  "08001": { reason: "no connection could be made (SQLSTATE 08001)", down: true },
  "08004": { reason: "the database server refused the connection (SQLSTATE 08004)", down: true },
  ECONNRESET: { reason: "connection reset", down: false },
  EPIPE: { reason: "connection lost", down: false },
  CONNECTION_CLOSED: { reason: "connection closed by the server", down: false },
  CONNECTION_DESTROYED: { reason: "connection lost", down: false },
};

/**
 * Whether `err` is a failure to reach the database (and then why, and whether it is away), or
 * null when it is an error of the call itself (a statement, a serialisation failure, a bug).
 */
export function reachFailure(err: unknown): { reason: string; down: boolean } | null {
  if (err instanceof StoreUnavailableError) return { reason: err.reason, down: false };
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return null;
  if (code in CODES) return CODES[code];
  if (/^08[0-9A-Z]{3}$/.test(code)) {
    return { reason: `connection failure (SQLSTATE ${code})`, down: false };
  }
  return null;
}

/** What /healthz reads: up, or down since when and why. */
export type StoreState = { up: true } | { up: false; reason: string; since: number };

/**
 * The store's reachability. `check()` before a call throws at once while the store is down;
 * `failed(err)` after a call turns a connection failure into StoreUnavailableError (marking
 * the store down and starting the probe) and hands any other error back unchanged.
 */
export class Outage {
  #down: { reason: string; since: number } | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  #confirming = false;

  constructor(
    private probe: () => Promise<unknown>,
    private log: (level: "warn" | "info", msg: string, fields?: LogFields) => void = defaultLog,
    private probeMs = PROBE_MS,
  ) {}

  get state(): StoreState {
    return this.#down ? { up: false, ...this.#down } : { up: true };
  }

  /** Throws StoreUnavailableError while the store is known to be down. */
  check(): void {
    if (this.#down) throw new StoreUnavailableError(this.#down.reason, RETRY_AFTER_S);
  }

  /**
   * The error to throw for `err`: StoreUnavailableError for a failure to reach the database
   * (and when no connection could be made, a probe looks whether the store is down), `err`
   * itself otherwise.
   */
  failed(err: unknown): unknown {
    if (err instanceof StoreUnavailableError) return err;
    const f = reachFailure(err);
    if (!f) return err;
    if (f.down && !this.#down) void this.#confirm();
    return new StoreUnavailableError(f.reason, RETRY_AFTER_S, { cause: err });
  }

  /** One probe now: the store is down when it cannot connect either. */
  async #confirm(): Promise<void> {
    if (this.#confirming || this.#closed) return;
    this.#confirming = true;
    try {
      await this.probe();
    } catch (err) {
      const f = reachFailure(err);
      if (f?.down && !this.#down && !this.#closed) {
        this.#down = { reason: f.reason, since: Date.now() };
        this.log("warn", "store unreachable: calls answer 503 until it is back", {
          reason: f.reason,
        });
        this.#schedule();
      }
    } finally {
      this.#confirming = false;
    }
  }

  /** Stops probing (the store is being closed). */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  #schedule(): void {
    if (this.#closed) return;
    const timer = setTimeout(() => void this.#probeOnce(), this.probeMs);
    // A probe never keeps the process alive.
    Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  async #probeOnce(): Promise<void> {
    try {
      await this.probe();
    } catch (err) {
      const f = reachFailure(err);
      if (this.#down && f?.down) this.#down = { ...this.#down, reason: f.reason };
      return this.#schedule();
    }
    if (!this.#down) return;
    const ms = Date.now() - this.#down.since;
    this.#down = null;
    this.log("info", "store reachable again", { downMs: ms });
  }
}

const logger = createLogger("info");
function defaultLog(level: "warn" | "info", msg: string, fields?: LogFields): void {
  logger.log(level, msg, fields);
}
