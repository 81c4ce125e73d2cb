import * as z from "zod";

/** A browser's PushSubscription as JSON (`JSON.stringify(subscription)`), validated. */
export interface PushSubscriptionJson {
  endpoint: string;
  expirationTime?: number | null;
  keys: { p256dh: string; auth: string };
}

const b64urlOf = (bytes: number) =>
  z.string().regex(/^[A-Za-z0-9_-]+$/, "must be base64url").refine(
    (s) => s.replace(/=+$/, "").length === Math.ceil(bytes * 4 / 3),
    `must be ${bytes} bytes`,
  );

const Schema = z.object({
  endpoint: z.string().max(2048),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({
    // RFC 8291: the user agent's P-256 public key (uncompressed point) and 16-byte auth secret.
    p256dh: b64urlOf(65).refine((s) => s.startsWith("B"), "must be an uncompressed P-256 point"),
    auth: b64urlOf(16),
  }),
});

/**
 * The push services' hosts (docs/configuration.md: PUSH_HOSTS), the default allow-list of
 * endpoint hosts: Chromium browsers (Chrome, Opera, Samsung Internet…) FCM; Firefox Mozilla's
 * autopush; Safari Apple's Web Push; Edge on Windows WNS (a host per region).
 */
export const KNOWN_PUSH_HOSTS: readonly string[] = [
  "fcm.googleapis.com",
  "updates.push.services.mozilla.com",
  "push.services.mozilla.com",
  "web.push.apple.com",
  "*.notify.windows.com",
];

/** Names that never reach a push service: this network's own, or reserved (RFC 6761, 8375). */
const INTERNAL =
  /(^|\.)(localhost|local|internal|intranet|lan|home\.arpa|corp|test|invalid|example)$/;
const DNS_NAME =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * Why a PUSH_HOSTS entry is refused, or null. An entry is a push service's host name, a
 * wildcard `*.` followed by one, or an exact origin (`http://127.0.0.1:8125`: a local test
 * receiver, named one by one in tests and development; production takes https origins only).
 */
export function pushHostIssue(entry: string, production: boolean): string | null {
  if (entry.includes("://")) {
    let u: URL;
    try {
      u = new URL(entry);
    } catch {
      return `${entry}: not a URL`;
    }
    if (u.origin === "null" || u.origin !== entry) {
      return `${entry}: an origin only (scheme, host, port)`;
    }
    if (u.protocol !== "https:" && (production || u.protocol !== "http:")) {
      return `${entry}: ${production ? "production takes https origins only" : "http or https"}`;
    }
    return null;
  }
  const name = entry.startsWith("*.") ? entry.slice(2) : entry;
  if (!DNS_NAME.test(name) || INTERNAL.test(name)) {
    return `${entry}: a push service's public host name (no IP address, port or trailing dot)`;
  }
  return null;
}

/** Splits PUSH_HOSTS (comma-separated, case-insensitive). */
export function pushHostList(text: string): string[] {
  return text.split(",").map((e) => e.trim().toLowerCase().replace(/\/+$/, "")).filter(Boolean);
}

/**
 * Why a push endpoint is refused, or null (spec §7 pwaregisterpushtoken; docs/messages.md,
 * web push: the server POSTs to it, so it must be a real push service). An exact origin of
 * `hosts` is taken as configured; otherwise https on the default port, a public DNS name (no IP
 * literal, no trailing dot, no internal name) that one of `hosts` names.
 */
export function endpointIssue(url: URL, hosts: readonly string[]): string | null {
  if (url.username || url.password) return "endpoint: no credentials allowed";
  if (hosts.includes(url.origin)) return null;
  if (url.protocol !== "https:") return "endpoint: must be https";
  if (url.port !== "") return "endpoint: a push service's default port only";
  const host = url.hostname;
  if (host.endsWith(".") || host.startsWith("[") || /^[\d.]+$/.test(host)) {
    return "endpoint: must be a push service's host name";
  }
  if (!DNS_NAME.test(host) || INTERNAL.test(host)) {
    return "endpoint: must be a push service's host name";
  }
  const listed = hosts.some((h) =>
    h.startsWith("*.") ? host.endsWith(h.slice(1)) : !h.includes("://") && host === h
  );
  return listed ? null : "endpoint: not a known push service (PUSH_HOSTS)";
}

/**
 * Parses and checks a push token (spec §7 pwaregisterpushtoken): the subscription's shape,
 * and its endpoint against the push services allowed (`hosts`, config PUSH_HOSTS; see
 * endpointIssue). Returns the subscription or the reason it is refused.
 */
export function parsePushSubscription(
  text: string,
  opts: { hosts: readonly string[] },
): PushSubscriptionJson | string {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return "the push token is not JSON";
  }
  const r = Schema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0];
    return `${i.path.join(".") || "push token"}: ${i.message}`;
  }
  let url: URL;
  try {
    url = new URL(r.data.endpoint);
  } catch {
    return "endpoint: not a URL";
  }
  return endpointIssue(url, opts.hosts) ?? normalised(r.data);
}

function normalised(s: z.infer<typeof Schema>): PushSubscriptionJson {
  return {
    endpoint: s.endpoint,
    expirationTime: s.expirationTime ?? null,
    keys: { p256dh: s.keys.p256dh.replace(/=+$/, ""), auth: s.keys.auth.replace(/=+$/, "") },
  };
}
