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

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/**
 * Parses and checks a push token (spec §7 pwaregisterpushtoken): the endpoint is https on a
 * named host (a push service: never an IP literal or a local name, since the server POSTs
 * to it); outside production, http to loopback too (the tests' local push receiver).
 * Returns the subscription or the reason it is refused.
 */
export function parsePushSubscription(
  text: string,
  opts: { allowLoopbackHttp: boolean },
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
  if (url.username || url.password) return "endpoint: no credentials allowed";
  const host = url.hostname.toLowerCase();
  const loopback = LOOPBACK.has(host);
  if (url.protocol === "http:" && loopback && opts.allowLoopbackHttp) {
    return normalised(r.data);
  }
  if (url.protocol !== "https:") return "endpoint: must be https";
  if (!opts.allowLoopbackHttp) {
    const ipLiteral = /^[\d.]+$/.test(host) || host.startsWith("[");
    const local = loopback || !host.includes(".") || /\.(local|internal|localhost)$/.test(host);
    if (ipLiteral || local) return "endpoint: must be a push service's host name";
  }
  return normalised(r.data);
}

function normalised(s: z.infer<typeof Schema>): PushSubscriptionJson {
  return {
    endpoint: s.endpoint,
    expirationTime: s.expirationTime ?? null,
    keys: { p256dh: s.keys.p256dh.replace(/=+$/, ""), auth: s.keys.auth.replace(/=+$/, "") },
  };
}
