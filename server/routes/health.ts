import { Hono } from "hono";
import type { AppEnv } from "../env.ts";

/** A message waiting longer than this makes the status `degraded`. */
export const STALE_PENDING_SECONDS = 15 * 60;

/**
 * GET /healthz, for monitoring: 200 `{status, messages: {pending, failed,
 * oldestPendingAgeSeconds}}` — `ok`, or `degraded` when a message failed for good or one has
 * waited more than 15 minutes (mail server away); 503 `{status: "error"}` when the store
 * cannot be read. Counts and an age only: no content, no addresses. Never cached.
 */
export function healthRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get("/", async (c) => {
    c.header("Cache-Control", "no-store");
    try {
      const s = await c.var.deps.messages.stats();
      const pending = s.pending + s.sending;
      const age = s.oldestPendingAgeSeconds;
      const degraded = s.failed > 0 || (age !== null && age > STALE_PENDING_SECONDS);
      return c.json({
        status: degraded ? "degraded" : "ok",
        messages: { pending, failed: s.failed, oldestPendingAgeSeconds: age },
      });
    } catch (err) {
      console.error("healthz: the store could not be read:", err);
      return c.json({ status: "error" }, 503);
    }
  });
  return app;
}
