import type { Deps } from "../domain/env.ts";
import { type DomainEvent, NOTIFY, type NotifyEvent } from "../domain/events.ts";
import type { JobKind, JobRunner } from "../jobs/runner.ts";
import { vapidKeys } from "./keys.ts";
import { type Notice, noticesFor } from "./notify.ts";
import { addJobs, newCounts, PUSH_SEND, type PushCounts, pushSendKind } from "./outbox.ts";
import { checkOverdue } from "./overdue.ts";
import { type PushSender, relayConfigured, relaySender } from "./relay.ts";
import { sendPush } from "./send.ts";

export { vapidKeys } from "./keys.ts";

/** Period of the overdue-receipt check. */
export const OVERDUE_CHECK_MS = 10 * 60_000;

export interface PushService {
  /** The jobs runner's kick, and what push's jobs came to (tests and the bench). */
  worker: { kick(): void; counts: PushCounts };
  /**
   * The overdue-receipt check, once (a periodic duty of the scheduler, every OVERDUE_CHECK_MS):
   * the number of pushes queued.
   */
  checkOverdue(): Promise<number>;
  /** Resolves once every queued push was delivered or given up. */
  idle(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

const services = new WeakMap<Deps, PushService>();

/** The push service startPush started for these deps (tests and the bench). */
export function pushService(deps: Deps): PushService | undefined {
  return services.get(deps);
}

/**
 * Web push (spec §1 push notifications), in the jobs wing (server/jobs/): a change that notifies
 * writes an `event.notify` job with itself (domain/events.ts notifyAfter); running it makes the
 * notices (notify.ts) and one `push.send` job per subscribed device of each recipient, which the
 * runner sends; receipts becoming overdue are checked periodically. Nothing is sent while push is
 * off (production without VAPID keys). In relay mode (PUSH_RELAY_URL and PUSH_RELAY_SECRET set)
 * every push is handed to the edge, which holds the VAPID keys (relay.ts): this server needs none
 * of its own.
 */
export function startPush(
  deps: Deps,
  opts: { jobs: JobRunner; log?: (line: string) => void },
): PushService {
  const log = opts.log ?? ((line: string) => console.log(line));
  const c = deps.config;
  const sender = pushSender(deps);
  if (c.PUSH_RELAY_URL && !c.PUSH_RELAY_SECRET) {
    log("[push] PUSH_RELAY_URL is set without PUSH_RELAY_SECRET: push is off");
  }
  const counts = newCounts();
  const { jobs } = opts;
  jobs.register(
    PUSH_SEND,
    pushSendKind({
      store: deps.store,
      sender,
      sendTimeoutMs: pushSendTimeoutMs(c),
      maxAttempts: c.MESSAGE_MAX_ATTEMPTS,
      counts,
      log,
    }),
  );
  jobs.register(NOTIFY, notifyKind(deps, sender));
  const unsubscribe = deps.events.subscribe(async (e) => {
    if (e.type === "device.unregistered") {
      // Its jobs find no subscription and are dropped.
      await deps.store.pushSubs.remove(deps.store.kv.atomic(), e.userOid, e.deviceId).commit();
    }
  });
  const overdue = async () => {
    if (!(await sender())) return 0;
    return await checkOverdue(deps);
  };
  const service: PushService = {
    worker: { kick: () => jobs.kick(), counts },
    checkOverdue: overdue,
    idle: (ms) => jobs.idle(ms, [NOTIFY, PUSH_SEND]),
    stop() {
      unsubscribe();
      services.delete(deps);
      return Promise.resolve();
    },
  };
  services.set(deps, service);
  return service;
}

/** A push's own timeout: the messages' send timeout, at most 30 s. */
export const pushSendTimeoutMs = (c: Deps["config"]) => Math.min(c.MESSAGE_SEND_TIMEOUT_MS, 30_000);

/** Mutations a notify job adds to its own end at most; beyond, the sends are written apart. */
const FAN_OUT_IN_ONE_WRITE = 800;

/**
 * Running an `event.notify` job: the notices of the event (notify.ts, each in its recipient's
 * language, read now: an approval level decided meanwhile notifies nobody), and a `push.send` job
 * for each subscribed device, written with the notify job's end (one write: the sends exist
 * exactly when the notify job is gone). A fan-out too large for one write is written in parts
 * first: a crash between them sends some twice (the same tag: one notification on the device).
 */
function notifyKind(deps: Deps, sender: () => Promise<PushSender | null>): JobKind<NotifyEvent> {
  return {
    async run(job, done) {
      if (!(await sender())) return { kind: "done" };
      const notices = await noticesFor(deps, job.data);
      const fan: { notice: Notice; subs: { userOid: string; deviceId: string }[] }[] = [];
      for (const notice of notices) {
        fan.push({ notice, subs: await deps.store.pushSubs.forUser(notice.userOid) });
      }
      const total = fan.reduce((n, f) => n + f.subs.length, 0);
      if (total > FAN_OUT_IN_ONE_WRITE) {
        await enqueue(deps, notices);
        return { kind: "done" };
      }
      const now = deps.now();
      for (const { notice, subs } of fan) {
        addJobs(done, now, subs, JSON.stringify(notice.payload), notice);
      }
      return { kind: "done" };
    },
  };
}

/**
 * How this server sends pushes: through the edge in relay mode; else with its VAPID keys
 * (null when there are none: push is off). PUSH_RELAY_URL without PUSH_RELAY_SECRET is off too:
 * this server's own keys are not the ones the browsers subscribed with.
 */
export function pushSender(deps: Deps): () => Promise<PushSender | null> {
  const c = deps.config;
  if (relayConfigured(c)) {
    const relay = relaySender({ url: c.PUSH_RELAY_URL, secret: c.PUSH_RELAY_SECRET });
    return () => Promise.resolve(relay);
  }
  if (c.PUSH_RELAY_URL) return () => Promise.resolve(null);
  return async () => {
    const vapid = await vapidKeys(c, deps.store.kv);
    return vapid &&
      ((sub, payload, opts) => sendPush(sub, payload, vapid, { ...opts, hosts: c.PUSH_HOSTS }));
  };
}

/** Queues the notices for every subscribed device of their users; the number queued. */
export async function enqueue(deps: Deps, notices: Notice[]): Promise<number> {
  const { store } = deps;
  let n = 0;
  for (const notice of notices) {
    const subs = await store.pushSubs.forUser(notice.userOid);
    const payload = JSON.stringify(notice.payload);
    for (let i = 0; i < subs.length; i += 500) {
      const part = subs.slice(i, i + 500);
      const r = await addJobs(store.kv.atomic(), deps.now(), part, payload, notice).commit();
      if (!r.ok) throw new Error("could not queue push jobs");
      n += part.length;
    }
  }
  return n;
}

export type { DomainEvent };
