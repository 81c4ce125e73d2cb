/**
 * Graceful shutdown (docs/deploying.md): on SIGTERM or SIGINT the server stops accepting, answers
 * in flight finish within SHUTDOWN_TIMEOUT_MS, the background workers stop (delivery, push, blob
 * sweep), KV is closed and the process exits 0. A second signal, or the bound running out, exits at
 * once (still 0 for the bound: the platform asked us to go).
 */
import type { Logger } from "../log.ts";
import { errorText } from "../log.ts";

export interface Stoppable {
  /** Stops accepting; settles when the answers in flight are sent. */
  shutdown(): Promise<void>;
}

export interface ShutdownParts {
  server: Stoppable;
  /** The background workers (startDelivery's worker: its stop() stops them all). */
  workers?: { stop(): Promise<void> };
  kv: { close(): void };
  timeoutMs: number;
  logger: Logger;
  /** Default Deno.exit; tests replace it. */
  exit?: (code: number) => void;
}

/**
 * Runs the steps above once; returns the exit code it used. Exported for tests; `onSignals`
 * wires it to the signals.
 */
export async function shutdownGracefully(p: ShutdownParts, reason: string): Promise<number> {
  const exit = p.exit ?? ((code: number) => Deno.exit(code));
  const started = performance.now();
  p.logger.info("shutdown", { reason, timeoutMs: p.timeoutMs });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), p.timeoutMs);
  });
  try {
    const drained = await Promise.race([p.server.shutdown().then(() => "drained" as const), bound]);
    if (drained === "timeout") {
      p.logger.warn("shutdown: answers still in flight at the bound", { timeoutMs: p.timeoutMs });
    }
    // The workers finish the item at hand; the same bound holds for them.
    if (p.workers) await Promise.race([p.workers.stop(), bound]);
  } catch (err) {
    p.logger.error("shutdown: a step failed", { error: errorText(err) });
  } finally {
    clearTimeout(timer);
  }
  try {
    p.kv.close();
  } catch { /* already closed */ }
  p.logger.info("stopped", { ms: Math.round(performance.now() - started) });
  exit(0);
  return 0;
}

const SIGNALS: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGTERM", "SIGINT"];

/** Calls shutdownGracefully on the first SIGTERM/SIGINT; a second one exits at once. */
export function onSignals(p: ShutdownParts): void {
  let running = false;
  const exit = p.exit ?? ((code: number) => Deno.exit(code));
  const handler = (signal: Deno.Signal) => () => {
    if (running) {
      p.logger.warn("shutdown: second signal, exiting now", { signal });
      exit(1);
      return;
    }
    running = true;
    shutdownGracefully(p, signal);
  };
  for (const s of SIGNALS) {
    try {
      Deno.addSignalListener(s, handler(s));
    } catch { /* a platform without this signal (Deno Deploy ends isolates itself) */ }
  }
}
