import { RELAYED_ACCEPT_ENCODING } from "../middleware/peer.ts";

/**
 * Header rules of the relay (docs/relay.md): what crosses the edge in each direction.
 *
 * Hop-by-hop headers (RFC 9110 §7.6.1: Connection and the fields it names, Keep-Alive,
 * Proxy-*, TE, Trailer, Transfer-Encoding, Upgrade) belong to one connection and never cross.
 * Host is the upstream's (fetch sets it); Content-Length is recomputed by fetch for a
 * streamed body. Forwarding headers are the edge's to write: the client's Forwarded,
 * X-Forwarded-Proto/-Host, X-Real-IP and Via never cross (an upstream or a proxy behind the
 * edge could take them for the edge's word). Everything else the client sent crosses:
 * Authorization, the spec's `device-id`, Idempotency-Key, the upload bypass header,
 * Accept-Language, X-Request-Id.
 */
const HOP_BY_HOP = [
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
];

/** Headers the edge sets itself on every answer (server/middleware/security.ts and no-store). */
const EDGE_OWNED = [
  "cache-control",
  "content-security-policy",
  "strict-transport-security",
  "x-content-type-options",
  "referrer-policy",
  "x-frame-options",
  "cross-origin-opener-policy",
  "permissions-policy",
  "x-request-id",
  "expires",
  "pragma",
];

function dropHopByHop(h: Headers): Headers {
  const out = new Headers(h);
  // Fields named by Connection are hop-by-hop too (RFC 9110 §7.6.1).
  for (const name of (h.get("connection") ?? "").split(",")) {
    const n = name.trim().toLowerCase();
    if (n) out.delete(n);
  }
  for (const n of HOP_BY_HOP) out.delete(n);
  return out;
}

export interface Forwarding {
  /** The edge's peer (the phone, or the proxy in front of the edge). */
  peer: string | null;
  /** The scheme the client used to reach the edge. */
  proto: string;
  /** The Host the client asked for. */
  host: string | null;
  /** false: the edge reads the answer itself (it must arrive plain). */
  passEncoding?: boolean;
}

/**
 * The request headers sent upstream: the client's minus hop-by-hop, Host and Content-Length,
 * with X-Forwarded-For (the peer appended to any earlier hops: the upstream trusts only the
 * last entry, the one this edge adds), X-Forwarded-Proto and X-Forwarded-Host set, and
 * `Accept-Encoding: identity`, the client's codings passed in X-QCard-Accept-Encoding.
 */
export function upstreamRequestHeaders(h: Headers, f: Forwarding): Headers {
  const out = dropHopByHop(h);
  out.delete("host");
  out.delete("content-length");
  out.delete("forwarded");
  out.delete("x-forwarded-proto");
  out.delete("x-forwarded-host");
  out.delete("x-real-ip");
  out.delete("via");
  const before = h.get("x-forwarded-for");
  if (f.peer) out.set("x-forwarded-for", before ? `${before}, ${f.peer}` : f.peer);
  out.set("x-forwarded-proto", f.proto);
  if (f.host) out.set("x-forwarded-host", f.host);
  // Deno's fetch inflates any encoded answer unless the request says identity (and keeps the
  // Content-Encoding header, a trap): so identity here, and the client's codings in a header of
  // our own, which a QCard upstream that trusts this edge (TRUSTED_PROXIES) compresses for. The
  // answer then crosses compressed and leaves as it came; another upstream sends it plain and
  // the edge compresses it.
  const accepted = h.get("accept-encoding");
  out.delete(RELAYED_ACCEPT_ENCODING);
  if (accepted && f.passEncoding !== false) out.set(RELAYED_ACCEPT_ENCODING, accepted);
  out.set("accept-encoding", "identity");
  return out;
}

/**
 * The answer's headers as the client gets them: the upstream's minus hop-by-hop and minus
 * what the edge owns (its security headers, cache policy and request id are set after).
 * Content-Length stays when the body is passed through untouched.
 */
export function clientResponseHeaders(h: Headers): Headers {
  const out = dropHopByHop(h);
  for (const n of EDGE_OWNED) out.delete(n);
  return out;
}
