import type { Store } from "../store/mod.ts";
import { addJob, type Job } from "../jobs/jobs.ts";
import type { JobKind, Outcome } from "../jobs/runner.ts";
import type { PushSender } from "./relay.ts";
import type { PushOutcome, Urgency } from "./send.ts";
import type { PushSubscriptionJson } from "../push_subscription.ts";

/**
 * One notification to one device, a job of the jobs wing (server/jobs/, kind "push.send"):
 * written with the change or the fan-out that causes it, claimed and retried by the runner,
 * given up after its time to live. The subscription is read at send time: a device that
 * deregistered meanwhile gets nothing.
 */
export interface PushSendData {
  userOid: string;
  deviceId: string;
  /** JSON of client/shared/push_links.ts PushPayload, in the recipient's language. */
  payload: string;
  urgency: Urgency;
  /** How long the push service should keep it for an offline device; also our own limit. */
  ttlSeconds: number;
}

export const PUSH_SEND = "push.send";

/** Adds one job per subscription to `op` (at most ~900 per op: KV's 1000-mutation limit). */
export function addJobs(
  op: Deno.AtomicOperation,
  now: number,
  targets: { userOid: string; deviceId: string }[],
  payload: string,
  opts: { urgency: Urgency; ttlSeconds: number },
): Deno.AtomicOperation {
  for (const t of targets) {
    const data: PushSendData = {
      userOid: t.userOid,
      deviceId: t.deviceId,
      payload,
      urgency: opts.urgency,
      ttlSeconds: opts.ttlSeconds,
    };
    addJob(op, now, PUSH_SEND, data, { expiresAt: now + opts.ttlSeconds * 1000 });
  }
  return op;
}

/** Figures for the bench and tests. */
export interface PushCounts {
  delivered: number;
  gone: number;
  retried: number;
  refused: number;
  dropped: number;
}

export const newCounts = (): PushCounts => ({
  delivered: 0,
  gone: 0,
  retried: 0,
  refused: 0,
  dropped: 0,
});

/**
 * Sending one push (kind "push.send"): through this server's VAPID keys, or the edge in relay
 * mode. At least once: a repeat after a crash shows as the same notification (same tag).
 */
export function pushSendKind(o: {
  store: Store;
  /** Null while push is off (production without VAPID keys): the job is dropped. */
  sender: () => Promise<PushSender | null>;
  sendTimeoutMs: number;
  /** The runner's attempts before giving up: the last failed one counts as refused. */
  maxAttempts: number;
  counts: PushCounts;
  log: (line: string) => void;
}): JobKind<PushSendData> {
  return {
    async run(job: Job<PushSendData>): Promise<Outcome> {
      const { kv, pushSubs } = o.store;
      const d = job.data;
      const what = `[push] ${job.id} to ${d.userOid}/${d.deviceId}`;
      const [sub, dev] = await kv.getMany<[unknown, unknown]>([
        pushSubs.key(d.userOid, d.deviceId),
        ["device", d.deviceId],
      ]);
      const rec = sub.value as { subscription: PushSubscriptionJson } | null;
      const device = dev.value as { status?: string; userOid?: string } | null;
      const send = await o.sender();
      if (!rec || !send || device?.status !== "active" || device.userOid !== d.userOid) {
        // Deregistered, device gone, or push turned off meanwhile: nothing to send.
        if (rec && (!device || device.userOid !== d.userOid)) {
          await kv.atomic().check(sub).delete(sub.key).commit();
        }
        o.counts.dropped++;
        return { kind: "done" };
      }
      const outcome: PushOutcome = await send(rec.subscription, d.payload, {
        ttlSeconds: d.ttlSeconds,
        urgency: d.urgency,
        timeoutMs: o.sendTimeoutMs,
      });
      const service = new URL(rec.subscription.endpoint).origin;
      switch (outcome.kind) {
        case "delivered":
          o.counts.delivered++;
          return { kind: "done" };
        case "gone":
          o.counts.gone++;
          if (await pushSubs.dropGone(d.userOid, d.deviceId, rec.subscription.endpoint)) {
            o.log(`${what}: ${service} answered ${outcome.status}, subscription dropped`);
          }
          return { kind: "done" };
        case "refused":
          // The payload is never logged: it holds amounts, names and reasons.
          o.counts.refused++;
          return { kind: "failed", error: `${service} refused it (${outcome.error})` };
        case "retry":
          if (job.attempts >= o.maxAttempts) o.counts.refused++;
          else o.counts.retried++;
          return { kind: "retry", error: outcome.error, retryAfterMs: outcome.retryAfterMs };
      }
    },
  };
}
