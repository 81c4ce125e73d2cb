import { Hono } from "hono";
import type { AppEnv, Deps } from "../domain/env.ts";
import { createLogger, errorText } from "../log.ts";
import { StoreUnavailableError } from "../store/unavailable.ts";

/** A message waiting longer than this makes the status `degraded`. */
export const STALE_PENDING_SECONDS = 15 * 60;

/** A store or upstream probe slower than this counts as unreachable. */
export const PROBE_TIMEOUT_MS = 2_000;

/**
 * Whether the upstream answers (relay mode, UPSTREAM_URL): resolves true or false, never
 * throws. The relay passes one to healthRoutes; none yet (relay mode is later work).
 */
export type UpstreamProbe = (signal: AbortSignal) => Promise<boolean>;

/**
 * GET /healthz, for load balancers, Deno Deploy and monitoring: 200 `{status, messages:
 * {pending, failed, oldestPendingAgeSeconds}}` — `ok`, or `degraded` when a message failed for
 * good or one has waited more than 15 minutes (mail server away); 503 `{status: "error",
 * store: "unreachable"}` when the store cannot be read (a key read, then the message counts,
 * within PROBE_TIMEOUT_MS). With UPSTREAM_URL set the body also carries `upstream: "ok" |
 * "unreachable" | "unchecked"` (503 when unreachable). Counts and an age only: no content, no
 * addresses. Never cached. While the store is unreachable the 503 says why (`reason`, e.g.
 * "connection refused": server/store/pg_outage.ts) with a `Retry-After`, at once: the store fails
 * fast while it is known to be down.
 */
export function healthRoutes(opts: { upstream?: UpstreamProbe } = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/", async (c) => {
    c.header("Cache-Control", "no-store");
    const deps = c.var.deps;
    let s;
    try {
      s = await within(PROBE_TIMEOUT_MS, async () => {
        // Reachability first: one read of a key no one writes.
        await deps.store.kv.get(["healthz"]);
        return await deps.messages.stats();
      });
    } catch (err) {
      const down = err instanceof StoreUnavailableError;
      // An outage is logged once by the store, not again at every probe of the balancer.
      if (!down) {
        createLogger(deps.config.LOG_LEVEL).error("healthz: the store could not be read", {
          error: errorText(err),
        });
      }
      const reason = down
        ? err.reason
        : /^no answer within/.test((err as Error)?.message ?? "")
        ? `no answer within ${PROBE_TIMEOUT_MS} ms`
        : "the store could not be read";
      c.header("Retry-After", String(down ? err.retryAfterS : 5));
      return c.json({ status: "error", store: "unreachable", reason }, 503);
    }
    const pending = s.pending + s.sending;
    const age = s.oldestPendingAgeSeconds;
    const degraded = s.failed > 0 || (age !== null && age > STALE_PENDING_SECONDS);
    const upstream = await upstreamState(deps, opts.upstream);
    const body = {
      status: upstream === "unreachable" ? "error" : degraded ? "degraded" : "ok",
      messages: { pending, failed: s.failed, oldestPendingAgeSeconds: age },
      ...(upstream ? { upstream } : {}),
    };
    return c.json(body, upstream === "unreachable" ? 503 : 200);
  });
  return app;
}

async function upstreamState(
  deps: Deps,
  probe: UpstreamProbe | undefined,
): Promise<"ok" | "unreachable" | "unchecked" | undefined> {
  if (!deps.config.UPSTREAM_URL) return undefined;
  if (!probe) return "unchecked";
  const ctl = new AbortController();
  try {
    const ok = await within(PROBE_TIMEOUT_MS, () => probe(ctl.signal), () => ctl.abort());
    return ok ? "ok" : "unreachable";
  } catch {
    return "unreachable";
  }
}

/** `f()`, or a rejection after `ms` (then `onTimeout`). */
async function within<T>(ms: number, f: () => Promise<T>, onTimeout?: () => void): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout?.();
      reject(new Error(`no answer within ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([f(), late]);
  } finally {
    clearTimeout(timer);
  }
}
