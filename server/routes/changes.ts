import { Hono } from "hono";
import {
  CHANGE_HEARTBEAT_MS,
  CHANGE_STREAM_MS,
  CHANGE_STREAM_PATH,
  type ChangeBatch,
  changes as contract,
} from "../../client/shared/contract/changes.ts";
import { reachableTeams } from "../domain/approval_rules.ts";
import type { AppEnv, Deps } from "../env.ts";
import { badRequest } from "../errors.ts";
import { requireBearer } from "../middleware/auth.ts";
import {
  type Cursor,
  cursorText,
  parseCursor,
  teamChannel,
  userChannel,
} from "../store/changes.ts";
import type { User } from "../store/users.ts";
import { route } from "./define.ts";

/** The channels a user reads: their own and those of the teams whose approvals they see. */
export async function channelsOf(deps: Deps, user: User): Promise<string[]> {
  const snap = await deps.store.orgCache.snapshot();
  return [userChannel(user.oid), ...reachableTeams(user, snap.teams).map(teamChannel)];
}

async function batch(deps: Deps, channels: string[], cursor: Cursor): Promise<ChangeBatch> {
  const r = await deps.store.changes.since(channels, cursor);
  return { cursor: cursorText(r.cursor), changes: r.changes, full: r.full };
}

/** Streams open in this process (the bench and tests read it). */
export const streamStats = { open: 0, opened: 0, events: 0 };

/**
 * The change channel (docs/app.md): `pwachanges` once, and its stream. The stream watches the
 * channels' version keys (`kv.watch`: Deno KV's own, or LISTEN/NOTIFY on PostgreSQL), so it
 * costs nothing while nothing changes; a wake reads the records after the cursor and sends
 * them as one event whose id is the cursor after them. It ends after CHANGE_STREAM_MS (the
 * bearer is checked again on reconnecting) or when the device stops being active.
 */
export function changeRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  route(app, contract.since, async ({ c, query, auth }) => {
    const deps = c.var.deps;
    return await batch(deps, await channelsOf(deps, auth!.user), parseCursor(query.cursor));
  });

  app.get(CHANGE_STREAM_PATH, async (c) => {
    const deps = c.var.deps;
    const auth = await requireBearer(c);
    const given = c.req.query("cursor") ?? c.req.header("last-event-id") ?? "";
    if (given.length > 8192) throw badRequest("invalid_query", "cursor: Too big");
    const channels = await channelsOf(deps, auth.user);
    let cursor = parseCursor(given);
    const enc = new TextEncoder();
    const abort = new AbortController();
    const signal = abort.signal;
    c.req.raw.signal.addEventListener("abort", () => abort.abort(), { once: true });
    const body = new ReadableStream<Uint8Array>({
      async start(ctl) {
        streamStats.open++;
        streamStats.opened++;
        const send = (text: string) => {
          if (!signal.aborted) ctl.enqueue(enc.encode(text));
        };
        const heartbeat = setInterval(() => send(":\n\n"), CHANGE_HEARTBEAT_MS);
        const end = setTimeout(() => abort.abort(), CHANGE_STREAM_MS);
        try {
          // A retry delay for EventSource readers; the app reconnects on its own schedule.
          send("retry: 2000\n\n");
          let first = true;
          const watch = deps.store.kv.watch(deps.store.changes.versionKeys(channels.slice(0, 10)));
          const reader = watch.getReader();
          signal.addEventListener("abort", () => void reader.cancel().catch(() => {}), {
            once: true,
          });
          while (!signal.aborted) {
            const next = await reader.read().catch(() => ({ done: true as const }));
            if (next.done || signal.aborted) break;
            const out = await batch(deps, channels, cursor);
            cursor = parseCursor(out.cursor);
            if (first || out.changes.length > 0 || out.full) {
              streamStats.events++;
              send(`id: ${out.cursor}\ndata: ${JSON.stringify(out)}\n\n`);
            }
            first = false;
            // A device logged out or wiped meanwhile: its stream ends with its access.
            const dev = (await deps.store.devices.get(auth.device.deviceId)).value;
            if (!dev || dev.status !== "active") break;
          }
        } catch {
          // The store went away or the client left: the phone reconnects from its cursor.
        } finally {
          clearInterval(heartbeat);
          clearTimeout(end);
          streamStats.open--;
          try {
            ctl.close();
          } catch { /* cancelled */ }
        }
      },
      cancel() {
        abort.abort();
      },
    });
    return new Response(body, {
      headers: {
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-store",
        "X-Accel-Buffering": "no",
      },
    });
  });
  return app;
}
