import { Hono } from "hono";
import {
  CHANGE_HEARTBEAT_MS,
  CHANGE_STREAM_MS,
  CHANGE_STREAM_PATH,
  type ChangeBatch,
  changes as contract,
} from "../../client/shared/contract/changes.ts";
import { reachableTeams } from "../domain/approval_rules.ts";
import type { AppEnv, Deps } from "../domain/env.ts";
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
export const streamStats = { open: 0, opened: 0, events: 0, watches: 0 };

/**
 * One `kv.watch` per channel in this process, shared by every stream of that channel (a team's
 * approvers, a user's devices): a change wakes the channel's streams from one watch instead of
 * one watch per stream. Ended when its last stream leaves.
 */
interface ChannelWatch {
  subscribers: Set<() => void>;
  stop: () => void;
}
const hubs = new WeakMap<Deno.Kv, Map<string, ChannelWatch>>();

function subscribe(kv: Deno.Kv, channel: string, wake: () => void): () => void {
  let hub = hubs.get(kv);
  if (!hub) hubs.set(kv, hub = new Map());
  let w = hub.get(channel);
  if (!w) {
    const reader = kv.watch([["chgv", channel]]).getReader();
    const subscribers = new Set<() => void>();
    const created: ChannelWatch = {
      subscribers,
      stop: () => void reader.cancel().catch(() => {}),
    };
    w = created;
    hub.set(channel, w);
    streamStats.watches++;
    void (async () => {
      try {
        while (true) {
          const next = await reader.read();
          if (next.done) break;
          // Its first answer too: a change between a stream's first read and this watch's start
          // is not missed (a wake with nothing new sends nothing).
          for (const s of [...subscribers]) s();
        }
      } catch {
        // The store went away: the streams end and the phones reconnect.
        for (const s of [...subscribers]) s();
      } finally {
        if (hub!.get(channel) === created) hub!.delete(channel);
        streamStats.watches--;
      }
    })();
  }
  const mine = w;
  mine.subscribers.add(wake);
  return () => {
    mine.subscribers.delete(wake);
    if (mine.subscribers.size === 0) {
      if (hub!.get(channel) === mine) hub!.delete(channel);
      mine.stop();
    }
  };
}

/**
 * Reads of one wake shared by streams at the same place (a user's devices at one cursor): one
 * read of the store for all of them.
 */
const inFlight = new Map<string, Promise<ChangeBatch>>();

function sharedBatch(deps: Deps, channels: string[], cursor: Cursor): Promise<ChangeBatch> {
  const key = `${channels.join(",")}|${cursorText(cursor)}`;
  let p = inFlight.get(key);
  if (!p) {
    p = batch(deps, channels, cursor);
    inFlight.set(key, p);
    const drop = () => inFlight.delete(key);
    p.then(drop, drop);
  }
  return p;
}

/**
 * Every open stream's heartbeat, from one timer for the process (not one per stream): a comment
 * line each CHANGE_HEARTBEAT_MS, the stream's end after CHANGE_STREAM_MS (to the nearest beat).
 */
const beats = new Set<(now: number) => void>();
let beating: ReturnType<typeof setInterval> | undefined;

function ensureBeating(): void {
  if (beating !== undefined) return;
  beating = setInterval(() => {
    if (beats.size === 0) {
      clearInterval(beating);
      beating = undefined;
      return;
    }
    const now = Date.now();
    for (const b of [...beats]) b(now);
  }, CHANGE_HEARTBEAT_MS);
  // Not what keeps a process alive (tests end with their streams).
  Deno.unrefTimer(beating);
}

/** How often a stream checks that its device is still active (logged out, wiped, left). */
const DEVICE_CHECK_MS = 30_000;

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
    let stop = () => {};
    const body = new ReadableStream<Uint8Array>({
      start(ctl) {
        streamStats.open++;
        streamStats.opened++;
        let ended = false;
        const send = (text: string) => {
          if (ended) return;
          try {
            ctl.enqueue(enc.encode(text));
          } catch {
            end();
          }
        };
        let reading: Promise<void> | null = null;
        let again = false;
        // Reads what changed after the cursor and sends it: one read at a time per stream, and
        // once more after it when a wake came meanwhile.
        const read = (first = false): void => {
          if (ended) return;
          if (reading) {
            again = true;
            return;
          }
          reading = (async () => {
            try {
              const out = await sharedBatch(deps, channels, cursor);
              cursor = parseCursor(out.cursor);
              if (first || out.changes.length > 0 || out.full) {
                streamStats.events++;
                send(`id: ${out.cursor}\ndata: ${JSON.stringify(out)}\n\n`);
              }
            } catch {
              end(); // the store went away: the phone reconnects from its cursor
            } finally {
              reading = null;
              if (again && !ended) {
                again = false;
                read();
              }
            }
          })();
        };
        const unsubscribe = channels.slice(0, 64).map((ch) =>
          subscribe(deps.store.kv, ch, () => read())
        );
        const openedAt = Date.now();
        let sinceCheck = openedAt;
        const beat = (now: number) => {
          if (now - openedAt >= CHANGE_STREAM_MS) return end();
          send(":\n\n");
          if (now - sinceCheck < DEVICE_CHECK_MS) return;
          sinceCheck = now;
          // A device logged out, wiped or gone with its user: its stream ends with its access.
          void deps.store.devices.get(auth.device.deviceId).then(
            (d) => (!d.value || d.value.status !== "active") && end(),
            () => end(),
          );
        };
        beats.add(beat);
        ensureBeating();
        function end(): void {
          if (ended) return;
          ended = true;
          beats.delete(beat);
          for (const u of unsubscribe) u();
          streamStats.open--;
          try {
            ctl.close();
          } catch { /* cancelled */ }
        }
        stop = end;
        // A retry delay for EventSource readers; the app reconnects on its own schedule.
        send("retry: 2000\n\n");
        read(true);
      },
      cancel() {
        stop();
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
