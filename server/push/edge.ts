/**
 * The edge's side of push in relay mode (docs/relay.md): POST /edge/push delivers a notification
 * the upstream asks for (signed with PUSH_RELAY_SECRET, relay.ts) with the edge's VAPID keys, to a
 * subscription registered through this edge only; recordEdgeRegistration is how the relay remembers
 * those registrations.
 *
 * KV: ["edge_push", sha256(endpoint)] → EdgeRegistration, and ["edge_push_device", deviceId] →
 * that hash (so a device's deregistration or new subscription retires its old endpoint), both
 * expiring REGISTRATION_TTL_MS after the last registration (browsers register again every
 * 7 days, spec §9).
 */
import { Hono } from "hono";
import * as z from "zod";
import type { Config } from "../config.ts";
import type { AppEnv, Deps } from "../domain/env.ts";
import { sha256 } from "../issuer/encoding.ts";
import { bufferedBody } from "../middleware/body.ts";
import { vapidKeys } from "./keys.ts";
import { type EdgePushRequest, verifyRelay } from "./relay.ts";
import { sendPush } from "./send.ts";
import { parsePushSubscription } from "../push_subscription.ts";

/** A relay request's body is read up to this, and refused (413) beyond. */
export const EDGE_PUSH_MAX_BODY = 16 * 1024;
/** A registration recorded at the edge lives this long after it was last made. */
export const REGISTRATION_TTL_MS = 60 * 86_400_000;

const ENDPOINT_KEY = "edge_push";
const DEVICE_KEY = "edge_push_device";

export interface EdgeRegistration {
  deviceId: string;
  isIOS: boolean;
  at: number;
}

/**
 * Whether this process serves POST /edge/push: it is an edge (UPSTREAM_URL set: the
 * registrations pass through its relay) and shares a PUSH_RELAY_SECRET with the upstream. An
 * upstream with the secret (and PUSH_RELAY_URL) never opens it: it sends, it does not deliver.
 */
export function edgePushEnabled(c: Pick<Config, "UPSTREAM_URL" | "PUSH_RELAY_SECRET">): boolean {
  return !!c.UPSTREAM_URL && !!c.PUSH_RELAY_SECRET;
}

const RequestSchema = z.object({
  subscription: z.record(z.string(), z.unknown()),
  // Push services take about 4 KB of payload (RFC 8291 record of 4096 bytes).
  payload: z.string().min(1).max(4000),
  ttlSeconds: z.number().int().min(0).max(28 * 86_400),
  urgency: z.enum(["very-low", "low", "normal", "high"]),
}) satisfies z.ZodType<Omit<EdgePushRequest, "subscription"> & { subscription: unknown }>;

const endpointKey = async (endpoint: string) => [ENDPOINT_KEY, await sha256(endpoint)];

/** Push services' answers may name URLs (a failed fetch does): never pass an endpoint on. */
const noUrls = (s: string) => s.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, "<url>").slice(0, 300);

/**
 * POST /edge/push (mount at "/edge/push" when edgePushEnabled). Order: the body is read within
 * EDGE_PUSH_MAX_BODY, its signature, timestamp and nonce checked (401 `unsigned`,
 * `bad_signature`, `stale_request`, `replayed_request`) before the JSON is parsed, then
 * validated (400), the endpoint looked up among those registered here (410 `unknown_subscription`
 * otherwise), and the push sent. Answers: 201 `{result: "delivered", status}`; 410 `gone` (the
 * push service dropped the subscription: so does the edge); 503 `push_unavailable` with
 * Retry-After when the push service asks to retry, or `push_off` without VAPID keys; 400
 * `push_refused` when the push service refuses this message for good.
 */
export function edgePushRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", bufferedBody({ maxSize: EDGE_PUSH_MAX_BODY }));
  app.post("/", async (c) => {
    c.header("Cache-Control", "no-store");
    const deps = c.var.deps;
    const { config } = deps;
    const kv = deps.store.kv;
    const fail = (status: 400 | 401 | 408 | 410 | 413 | 503, error: string, message: string) =>
      c.json({ error, message }, status);
    // Read whole within EDGE_PUSH_MAX_BODY by bufferedBody (413, 408, 400 as everywhere).
    const raw = c.req.raw;
    if (!raw.body) return fail(400, "invalid_request", "A JSON body is required");
    const read = { body: new Uint8Array(await raw.arrayBuffer()) };
    const refusal = await verifyRelay(config.PUSH_RELAY_SECRET!, raw.headers, read.body, {
      kv,
      now: deps.now(),
    });
    if (refusal) return fail(401, refusal, REFUSALS[refusal]);
    let json: unknown;
    try {
      json = JSON.parse(new TextDecoder().decode(read.body));
    } catch {
      return fail(400, "invalid_json", "The body is not JSON");
    }
    const parsed = RequestSchema.safeParse(json);
    if (!parsed.success) {
      const i = parsed.error.issues[0];
      return fail(400, "invalid_request", `${i.path.join(".") || "body"}: ${i.message}`);
    }
    const req = parsed.data;
    const sub = parsePushSubscription(JSON.stringify(req.subscription), {
      hosts: config.PUSH_HOSTS,
    });
    if (typeof sub === "string") return fail(400, "invalid_subscription", sub);
    const key = await endpointKey(sub.endpoint);
    if (!(await kv.get(key)).value) {
      return fail(410, "unknown_subscription", "This subscription was not registered here");
    }
    const vapid = await vapidKeys(config, kv);
    if (!vapid) return fail(503, "push_off", "Push is off on the edge (no VAPID keys)");
    const outcome = await sendPush(sub, req.payload, vapid, {
      hosts: config.PUSH_HOSTS,
      ttlSeconds: req.ttlSeconds,
      urgency: req.urgency,
      timeoutMs: Math.min(config.MESSAGE_SEND_TIMEOUT_MS, 30_000),
    });
    switch (outcome.kind) {
      case "delivered":
        return c.json({ result: "delivered", status: outcome.status }, 201);
      case "gone":
        await kv.delete(key);
        return fail(410, "gone", `The push service answered ${outcome.status}`);
      case "retry":
        if (outcome.retryAfterMs !== undefined) {
          c.header("Retry-After", String(Math.ceil(outcome.retryAfterMs / 1000)));
        }
        return fail(503, "push_unavailable", noUrls(outcome.error));
      case "refused":
        return fail(400, "push_refused", noUrls(outcome.error));
    }
  });
  return app;
}

const REFUSALS: Record<string, string> = {
  unsigned: "The request is not signed",
  bad_signature: "The signature does not match",
  stale_request: "The request's timestamp is too far from the edge's clock",
  replayed_request: "This request was already received",
};

/**
 * Records at the edge a push subscription the upstream accepted (the relay calls it after a
 * relayed pwaregisterpushtoken answered 2xx): only subscriptions recorded here are delivered
 * by POST /edge/push. A registration refreshes the record's lifetime; an empty token (the
 * device deregisters) or a new endpoint retires the device's previous one. A token the edge
 * cannot use is ignored (the upstream judged it); only a KV failure rejects.
 */
export async function recordEdgeRegistration(
  deps: Deps,
  body: { pushToken: string; deviceId: string; isIOS: boolean },
): Promise<void> {
  const kv = deps.store.kv;
  // The relay passes the client's body on: check its shape. KV keys are at most 2 KiB; device
  // ids are far shorter (the upstream checked this one).
  const { pushToken, deviceId } = body as { pushToken: unknown; deviceId: unknown };
  if (typeof pushToken !== "string" || typeof deviceId !== "string") return;
  if (!deviceId || deviceId.length > 256) return;
  const sub = body.pushToken
    ? parsePushSubscription(body.pushToken, { hosts: deps.config.PUSH_HOSTS })
    : null;
  if (typeof sub === "string") return;
  const newKey = sub ? await endpointKey(sub.endpoint) : null;
  const devKey = [DEVICE_KEY, body.deviceId];
  for (let i = 0; i < 5; i++) {
    const prev = await kv.get<Deno.KvKey>(devKey);
    const op = kv.atomic().check(prev);
    // The device's previous endpoint goes, unless another device holds it now.
    if (prev.value && (!newKey || prev.value[1] !== newKey[1])) {
      const old = await kv.get<EdgeRegistration>(prev.value);
      if (old.value?.deviceId === body.deviceId) op.check(old).delete(prev.value);
    }
    if (newKey) {
      const rec: EdgeRegistration = { deviceId: body.deviceId, isIOS: body.isIOS, at: deps.now() };
      op.set(newKey, rec, { expireIn: REGISTRATION_TTL_MS });
      op.set(devKey, newKey, { expireIn: REGISTRATION_TTL_MS });
    } else op.delete(devKey);
    if ((await op.commit()).ok) return;
  }
  throw new Error("could not record the push registration at the edge");
}
