/**
 * Push through an edge (relay mode, docs/relay.md). The edge holds the VAPID keys; the upstream
 * (the system of record, where domain events happen) hands each push to the edge's POST /edge/push
 * (edge.ts) instead of sending it to the push service itself. Both sides share PUSH_RELAY_SECRET;
 * every request is signed:
 *
 *   X-QCard-Push-Timestamp  ms since the epoch, when it was signed
 *   X-QCard-Push-Nonce      16 random bytes, base64url (22 characters)
 *   X-QCard-Push-Signature  base64url HMAC-SHA256(secret, `${timestamp}.${nonce}.` + body bytes)
 *
 * The edge refuses (401) a bad signature, a timestamp more than RELAY_WINDOW_MS away from its
 * clock, and a nonce it has seen: nonces are kept in KV for the whole window with a checked
 * set, so two edge processes on one store cannot both accept the same request.
 */
import { base64url } from "../issuer/encoding.ts";
import type { PushOutcome, SendOptions } from "./send.ts";
import type { PushSubscriptionJson } from "../push_subscription.ts";

export const TIMESTAMP_HEADER = "x-qcard-push-timestamp";
export const NONCE_HEADER = "x-qcard-push-nonce";
export const SIGNATURE_HEADER = "x-qcard-push-signature";

/** A request signed further than this from the edge's clock (either way) is refused. */
export const RELAY_WINDOW_MS = 5 * 60_000;
/**
 * How long a seen nonce is kept: a timestamp is accepted from `ts - window` to `ts + window`,
 * so a nonce must be remembered for two windows after it was first seen, plus a margin.
 */
export const NONCE_TTL_MS = 2 * RELAY_WINDOW_MS + 60_000;
/** Where the upstream posts, under PUSH_RELAY_URL. */
export const EDGE_PUSH_PATH = "/edge/push";
/** The edge has its own push attempt to make within the relay request: it gets this more. */
export const RELAY_TIMEOUT_MARGIN_MS = 5_000;

const NONCE_KEY = "push_relay_nonce";
const te = new TextEncoder();

/** The JSON the upstream posts to the edge (edge.ts validates it). */
export interface EdgePushRequest {
  subscription: PushSubscriptionJson;
  /** JSON of client/shared/push_links.ts PushPayload, already in the recipient's language. */
  payload: string;
  ttlSeconds: number;
  urgency: SendOptions["urgency"];
}

const hmacKeys = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let k = hmacKeys.get(secret);
  if (!k) {
    k = crypto.subtle.importKey(
      "raw",
      te.encode(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      [
        "sign",
      ],
    );
    // One secret per process in practice; tests use a few.
    if (hmacKeys.size > 8) hmacKeys.clear();
    hmacKeys.set(secret, k);
  }
  return k;
}

async function mac(secret: string, timestamp: string, nonce: string, body: Uint8Array) {
  const head = te.encode(`${timestamp}.${nonce}.`);
  const data = new Uint8Array(head.length + body.length);
  data.set(head);
  data.set(body, head.length);
  return new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(secret), data));
}

/** The three headers that authenticate `body` (upstream side, and tests). */
export async function signRelay(
  secret: string,
  body: Uint8Array,
  now = Date.now(),
  nonce = base64url(crypto.getRandomValues(new Uint8Array(16))),
): Promise<Record<string, string>> {
  const timestamp = String(Math.floor(now));
  return {
    [TIMESTAMP_HEADER]: timestamp,
    [NONCE_HEADER]: nonce,
    [SIGNATURE_HEADER]: base64url(await mac(secret, timestamp, nonce, body)),
  };
}

/** Why a relay request was refused (the edge answers 401 with it as `error`). */
export type RelayRefusal = "unsigned" | "bad_signature" | "stale_request" | "replayed_request";

/** Constant time in the length of `a` (the signature's length is public). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

function unb64url(s: string): Uint8Array {
  return Uint8Array.from(atob(s.replaceAll("-", "+").replaceAll("_", "/")), (c) => c.charCodeAt(0));
}

/**
 * Checks a relay request's headers against its raw body (before the body is parsed): the
 * signature (constant-time comparison), then the timestamp window, then the nonce, recorded
 * in KV with a checked set only once the signature is good (strangers cannot fill the store).
 * Null when accepted, else the reason.
 */
export async function verifyRelay(
  secret: string,
  headers: Headers,
  body: Uint8Array,
  opts: { kv: Deno.Kv; now: number },
): Promise<RelayRefusal | null> {
  const timestamp = headers.get(TIMESTAMP_HEADER) ?? "";
  const nonce = headers.get(NONCE_HEADER) ?? "";
  const signature = headers.get(SIGNATURE_HEADER) ?? "";
  if (
    !/^\d{1,16}$/.test(timestamp) || !/^[A-Za-z0-9_-]{22}$/.test(nonce) ||
    !/^[A-Za-z0-9_-]{43}$/.test(signature)
  ) return "unsigned";
  const expected = await mac(secret, timestamp, nonce, body);
  if (!sameBytes(expected, unb64url(signature))) return "bad_signature";
  if (Math.abs(opts.now - Number(timestamp)) > RELAY_WINDOW_MS) return "stale_request";
  const key = [NONCE_KEY, nonce];
  const r = await opts.kv.atomic()
    .check({ key, versionstamp: null })
    .set(key, Number(timestamp), { expireIn: NONCE_TTL_MS })
    .commit();
  return r.ok ? null : "replayed_request";
}

/** Sends one push: directly (send.ts with VAPID keys) or through the edge (relaySender). */
export type PushSender = (
  sub: PushSubscriptionJson,
  payload: string,
  opts: SendOptions,
) => Promise<PushOutcome>;

/** Relay mode on the upstream: both PUSH_RELAY_URL and PUSH_RELAY_SECRET set. */
export function relayConfigured(
  c: { PUSH_RELAY_URL?: string; PUSH_RELAY_SECRET?: string },
): c is { PUSH_RELAY_URL: string; PUSH_RELAY_SECRET: string } {
  return !!c.PUSH_RELAY_URL && !!c.PUSH_RELAY_SECRET;
}

/**
 * The upstream's sender in relay mode: POSTs {subscription, payload, ttlSeconds, urgency},
 * signed, to `${url}/edge/push` (no redirects followed, within the send timeout plus
 * RELAY_TIMEOUT_MARGIN_MS) and maps the edge's answer to the push job's outcomes (outbox.ts):
 *   2xx → delivered; 410 → gone (the edge does not know the subscription, or the push service
 *   said it is gone: the upstream drops it, and the device registers again at its next refresh);
 *   401/403 → retry, with an error naming the cause (PUSH_RELAY_SECRET differs, or the clocks
 *   are more than 5 minutes apart): the worker logs every failed attempt and the give-up, so a
 *   misconfiguration shows in the log and never drops a subscription;
 *   404 → retry (no /edge/push there: PUSH_RELAY_URL is wrong or the edge lacks the secret);
 *   408, 429, 5xx, network errors, timeouts, redirects → retry, honouring Retry-After;
 *   other 4xx (400 invalid or refused by the push service, 413) → refused: it can never succeed.
 */
export function relaySender(opts: { url: string; secret: string }): PushSender {
  const target = opts.url.replace(/\/+$/, "") + EDGE_PUSH_PATH;
  return async (subscription, payload, o) => {
    const req: EdgePushRequest = {
      subscription,
      payload,
      ttlSeconds: o.ttlSeconds,
      urgency: o.urgency,
    };
    const body = te.encode(JSON.stringify(req));
    let res: Response;
    try {
      res = await fetch(target, {
        method: "POST",
        headers: { "content-type": "application/json", ...await signRelay(opts.secret, body) },
        body,
        redirect: "error",
        signal: AbortSignal.timeout(o.timeoutMs + RELAY_TIMEOUT_MARGIN_MS),
      });
    } catch (err) {
      const error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      return { kind: "retry", status: null, error: `edge push relay: ${error}`.slice(0, 300) };
    }
    const status = res.status;
    if (status >= 200 && status < 300) {
      await res.body?.cancel();
      return { kind: "delivered", status };
    }
    const text = (await res.text().catch(() => "")).slice(0, 2000);
    let code = "";
    let message = "";
    try {
      const j = JSON.parse(text);
      code = typeof j.error === "string" ? j.error : "";
      message = typeof j.message === "string" ? j.message : "";
    } catch { /* not our JSON: a proxy's page */ }
    const said = `edge push relay: HTTP ${status}${code ? ` ${code}` : ""}${
      message ? `: ${message.replace(/\s+/g, " ").slice(0, 160)}` : ""
    }`;
    if (status === 410) return { kind: "gone", status };
    if (status === 401 || status === 403) {
      return {
        kind: "retry",
        status,
        error: `${said} (check that PUSH_RELAY_SECRET is the same on edge and upstream, ` +
          `and that their clocks agree within 5 minutes)`,
      };
    }
    if (status === 404) {
      return {
        kind: "retry",
        status,
        error: `${said} (no ${EDGE_PUSH_PATH} at PUSH_RELAY_URL: is it the edge, ` +
          `with PUSH_RELAY_SECRET and UPSTREAM_URL set?)`,
      };
    }
    if (status === 408 || status === 429 || status >= 500) {
      return { kind: "retry", status, error: said, retryAfterMs: retryAfter(res.headers) };
    }
    return { kind: "refused", status, error: said };
  };
}

/** Retry-After in seconds (what the edge sends), as ms. */
function retryAfter(h: Headers): number | undefined {
  const v = h.get("retry-after")?.trim();
  return v && /^\d+$/.test(v) ? Number(v) * 1000 : undefined;
}
