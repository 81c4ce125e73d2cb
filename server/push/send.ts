import webpush from "web-push";
import type { Vapid } from "./keys.ts";
import { endpointIssue, type PushSubscriptionJson } from "../push_subscription.ts";

export type Urgency = "very-low" | "low" | "normal" | "high";

/**
 * What became of one push (RFC 8030 §5, and what FCM, Mozilla and Apple answer):
 * `delivered` (2xx); `gone` (404/410: the subscription expired or was withdrawn, drop it);
 * `retry` (429, 5xx, network or timeout: try again later, honouring Retry-After);
 * `refused` (400, 413 and other 4xx: this message can never succeed, give it up).
 */
export type PushOutcome =
  | { kind: "delivered"; status: number }
  | { kind: "gone"; status: number }
  | { kind: "retry"; status: number | null; error: string; retryAfterMs?: number }
  | { kind: "refused"; status: number; error: string };

export interface SendOptions {
  ttlSeconds: number;
  urgency: Urgency;
  timeoutMs: number;
  /**
   * The push services allowed (config PUSH_HOSTS): a subscription stored before they were
   * narrowed is not posted to, and is dropped as gone.
   */
  hosts?: readonly string[];
}

/**
 * Encrypts `payload` for the subscription (aes128gcm, RFC 8291) and signs the VAPID JWT with
 * web-push's generateRequestDetails, then POSTs it with fetch (web-push's sendNotification
 * goes through node:https, which cannot be used here). Never throws for the far end's
 * answers: they are classified.
 */
export async function sendPush(
  sub: PushSubscriptionJson,
  payload: string,
  vapid: Vapid,
  opts: SendOptions,
): Promise<PushOutcome> {
  if (opts.hosts && endpointIssue(new URL(sub.endpoint), opts.hosts)) {
    return { kind: "gone", status: 0 };
  }
  // The VAPID JWT is signed once per push service and hour, not once per push (half the
  // cost of a push under Deno's node:crypto); web-push still encrypts each payload.
  const d = webpush.generateRequestDetails(sub, payload, {
    headers: { Authorization: vapidHeader(new URL(sub.endpoint).origin, vapid) },
    TTL: opts.ttlSeconds,
    urgency: opts.urgency,
  });
  const headers = new Headers();
  for (const [k, v] of Object.entries(d.headers)) {
    // fetch computes Content-Length from the body itself.
    if (k.toLowerCase() !== "content-length") headers.set(k, String(v));
  }
  let res: Response;
  try {
    res = await fetch(d.endpoint, {
      method: "POST",
      headers,
      body: d.body ? new Uint8Array(d.body) : null,
      redirect: "error",
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
  } catch (err) {
    const error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    return { kind: "retry", status: null, error: error.slice(0, 300) };
  }
  const status = res.status;
  // Push services answer short texts; read a little of it for the log, never more.
  const text = status >= 300 ? (await res.text().catch(() => "")).slice(0, 200) : "";
  if (status < 300) await res.body?.cancel();
  if (status >= 200 && status < 300) return { kind: "delivered", status };
  if (status === 404 || status === 410) return { kind: "gone", status };
  const error = `HTTP ${status}${text ? `: ${text.replace(/\s+/g, " ")}` : ""}`;
  if (status === 429 || status >= 500) {
    return { kind: "retry", status, error, retryAfterMs: retryAfter(res.headers) };
  }
  return { kind: "refused", status, error };
}

const JWT_LIFETIME_S = 12 * 3600;
const JWT_REUSE_MS = 60 * 60_000;
const jwts = new Map<string, { header: string; until: number }>();

/**
 * `vapid t=<JWT>, k=<public key>` for one push service (RFC 8292 aud = its origin), valid 12 h
 * and reused for an hour.
 */
export function vapidHeader(audience: string, vapid: Vapid): string {
  const key = `${audience} ${vapid.publicKey} ${vapid.subject}`;
  const now = Date.now();
  const hit = jwts.get(key);
  if (hit && hit.until > now) return hit.header;
  const h = webpush.getVapidHeaders(
    audience,
    vapid.subject,
    vapid.publicKey,
    vapid.privateKey,
    "aes128gcm",
    Math.floor(now / 1000) + JWT_LIFETIME_S,
  );
  if (jwts.size > 1000) jwts.clear();
  jwts.set(key, { header: h.Authorization, until: now + JWT_REUSE_MS });
  return h.Authorization;
}

/** Retry-After as seconds or an HTTP date, in ms (undefined when absent or unreadable). */
function retryAfter(h: Headers): number | undefined {
  const v = h.get("retry-after");
  if (!v) return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined;
}
