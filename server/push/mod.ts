import type { Deps } from "../domain/env.ts";
import type { DomainEvent } from "../domain/events.ts";
import { vapidKeys } from "./keys.ts";
import { type Notice, noticesFor } from "./notify.ts";
import { addJobs, PushWorker } from "./outbox.ts";
import { checkOverdue } from "./overdue.ts";
import { claimPeriod, leaseTtl, runLeased } from "../store/lease.ts";
import { type PushSender, relayConfigured, relaySender } from "./relay.ts";
import { sendPush } from "./send.ts";

export { vapidKeys } from "./keys.ts";

/** Period of the overdue-receipt check. */
export const OVERDUE_CHECK_MS = 10 * 60_000;
/** Period of the poll for push jobs queued by other processes (or left by a crash). */
export const PUSH_POLL_MS = 2_000;
/** Pushes sent at the same time. */
export const PUSH_CONCURRENCY = 16;

export interface PushService {
  worker: PushWorker;
  /** Runs the overdue-receipt check now (also run every OVERDUE_CHECK_MS). */
  checkOverdue(): Promise<number>;
  /** One cron run: a look for due jobs, and the overdue check when its period has passed. */
  tick(): Promise<void>;
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
 * Web push (spec §1 push notifications), started beside the message worker (server/app/boot.ts
 * startDelivery): domain events become push jobs for the recipients' subscribed devices, queued in
 * KV (outbox.ts) and sent by the worker; receipts becoming overdue are checked periodically. Does
 * nothing but poll when push is off (production without VAPID keys). In relay mode (PUSH_RELAY_URL
 * and PUSH_RELAY_SECRET set) every push is handed to the edge, which holds the VAPID keys
 * (relay.ts): this server needs none of its own.
 */
export function startPush(
  deps: Deps,
  opts: { log?: (line: string) => void; overdueCheckMs?: number } = {},
): PushService {
  const log = opts.log ?? ((line: string) => console.log(line));
  const c = deps.config;
  const sender = pushSender(deps);
  if (c.PUSH_RELAY_URL && !c.PUSH_RELAY_SECRET) {
    log("[push] PUSH_RELAY_URL is set without PUSH_RELAY_SECRET: push is off");
  }
  const worker = new PushWorker({
    store: deps.store,
    sender,
    now: () => deps.now(),
    log,
    maxAttempts: c.MESSAGE_MAX_ATTEMPTS,
    backoffMs: c.MESSAGE_BACKOFF_MS,
    backoffMaxMs: c.MESSAGE_BACKOFF_MAX_MS,
    sendTimeoutMs: Math.min(c.MESSAGE_SEND_TIMEOUT_MS, 30_000),
    concurrency: PUSH_CONCURRENCY,
    pollMs: PUSH_POLL_MS,
  }).start();
  const unsubscribe = deps.events.subscribe(async (e) => {
    if (e.type === "device.unregistered") {
      // Its jobs find no subscription and are dropped.
      await deps.store.pushSubs.remove(deps.store.kv.atomic(), e.userOid, e.deviceId).commit();
      return;
    }
    if (!(await sender())) return;
    if (await enqueue(deps, await noticesFor(deps, e))) worker.kick();
  });
  const overdue = async () => {
    if (!(await sender())) return 0;
    const n = await checkOverdue(deps);
    if (n) worker.kick();
    return n;
  };
  let checking: Promise<unknown> = Promise.resolve();
  const tick = () => {
    // Scale-out (docs/stores.md): one process on the store checks at a time
    // (server/store/lease.ts).
    checking = runLeased(deps.store.kv, "push-overdue", leaseTtl(every), overdue)
      .catch((err) => log(`[push] overdue check failed: ${err?.stack ?? err}`));
  };
  const every = opts.overdueCheckMs ?? OVERDUE_CHECK_MS;
  const timer = setInterval(tick, every);
  tick();
  const service: PushService = {
    worker,
    checkOverdue: overdue,
    tick: async () => {
      worker.kick();
      if (await claimPeriod(deps.store.kv, "push-overdue", every, deps.now())) {
        tick();
        await checking;
      }
    },
    idle: (ms) => worker.idle(ms),
    async stop() {
      clearInterval(timer);
      unsubscribe();
      await checking;
      await worker.stop();
      services.delete(deps);
    },
  };
  services.set(deps, service);
  return service;
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
