import { commentUploadPath } from "../../client/shared/contract/request_bodies.ts";
import { relayTarget } from "./path.ts";

/**
 * spec §7 comment upload in relay mode: the upstream may name, in its pwaexpensecomments
 * answer, the URL comments are POSTed to ({oid, entityType 'expense', record, id, archive,
 * comment}). The browser reaches only this edge, on /bonita/* (CSP, and the relay's paths),
 * so the URL is handed on as the edge's own path: an absolute URL under UPSTREAM_URL (its
 * origin and base path) or a path becomes that path, kept only if it is a plain /bonita path
 * the relay forwards (./path.ts) and the client accepts (commentUploadPath). Anything else —
 * another origin, dot segments, a query, /admin — becomes null: comments then go through
 * pwaaddcomment. The POST itself is relayed like any /bonita call.
 */
export function edgeCommentUploadUrl(upstream: string, supplied: unknown): string | null {
  if (typeof supplied !== "string" || supplied.length > 2048) return null;
  const base = new URL(upstream);
  const prefix = base.pathname.replace(/\/+$/, "");
  let path: string;
  if (supplied.startsWith("/") && !supplied.startsWith("//")) path = supplied;
  else {
    let u: URL;
    try {
      u = new URL(supplied);
    } catch {
      return null;
    }
    if (u.origin !== base.origin || u.search || u.hash) return null;
    // The raw form, as written: the path rule must see dot segments before resolution.
    const raw = supplied.slice(u.origin.length);
    if (prefix && !raw.startsWith(`${prefix}/`)) return null;
    path = raw.slice(prefix.length);
  }
  if (relayTarget(`http://edge${path}`) !== path) return null;
  return commentUploadPath(path);
}
