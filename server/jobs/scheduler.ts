import { claimPeriod, leaseTtl, runLeased } from "../store/lease.ts";

/**
 * A periodic duty of the server (docs/jobs.md): the blob sweep, the issuer reconciliation, the
 * leavers' card stops, the receipt reminders, the overdue-receipt check. Each step of a duty is
 * checked on its own (safe beside another run): the lease only saves N processes doing it N times.
 */
export interface Duty {
  /** Its lease's name (["lease", name]) and its cron period's (["periodic", name]). */
  name: string;
  everyMs: number;
  run(): Promise<unknown>;
  /**
   * "leased" (default): one process on the store at a time — a timer run holds the lease while it
   * runs, a cron tick claims the period (one isolate of many). "each": every process runs it each
   * period (cheap looks, e.g. card stops due now).
   */
  mode?: "leased" | "each";
  /** When the first run comes after start (default: one period). */
  firstAfterMs?: number;
  /**
   * The first run takes no lease: for a repair every process should make at its start (a
   * process killed while it held the lease must not keep its successor waiting for it to end).
   */
  firstUnleased?: boolean;
}

/**
 * The one scheduler of the periodic duties: one timer a duty, one lease mechanism
 * (server/store/lease.ts), never two runs of a duty at once in a process, and `tick()` for
 * Deno.cron (every minute, where isolates stop between requests). A failed run is logged; the
 * next period tries again.
 */
export class Scheduler {
  private duties: Duty[] = [];
  private timers: ReturnType<typeof setTimeout>[] = [];
  private running = new Map<string, Promise<void>>();
  private stopped = false;

  constructor(
    private kv: Deno.Kv,
    private o: { now: () => number; log: (line: string) => void },
  ) {}

  add(duty: Duty): this {
    this.duties.push(duty);
    return this;
  }

  start(): this {
    for (const d of this.duties) {
      const first = d.firstAfterMs ?? d.everyMs;
      const leased = d.mode !== "each";
      this.timers.push(setTimeout(() => this.run(d, leased && !d.firstUnleased), first));
      this.timers.push(setInterval(() => this.run(d, leased), d.everyMs));
    }
    return this;
  }

  /**
   * One cron run: each duty whose period has passed since its last cron run on the store (one
   * isolate claims it), or every "each" duty; runs them, not under the lease, and waits.
   */
  async tick(): Promise<void> {
    await Promise.all(this.duties.map(async (d) => {
      if (d.mode === "each" || await claimPeriod(this.kv, d.name, d.everyMs, this.o.now())) {
        await this.run(d, false);
      }
    }));
  }

  /** Runs a duty now, out of its period (tests, operators); waits for it. */
  async runNow(name: string): Promise<void> {
    const d = this.duties.find((x) => x.name === name);
    if (!d) throw new Error(`no duty ${name}`);
    await this.run(d, false);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
    await Promise.all(this.running.values());
  }

  /** One run of `d` unless one is under way in this process (then that one is awaited). */
  private run(d: Duty, leased: boolean): Promise<void> {
    const under = this.running.get(d.name);
    if (under || this.stopped) return under ?? Promise.resolve();
    const job = leased
      ? () => runLeased(this.kv, d.name, leaseTtl(d.everyMs), () => d.run())
      : () => d.run();
    const p = job().then(
      () => {},
      (err) => this.o.log(`[${d.name}] run failed: ${err instanceof Error ? err.stack : err}`),
    ).finally(() => this.running.delete(d.name));
    this.running.set(d.name, p);
    return p;
  }
}
