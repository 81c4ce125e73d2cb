/**
 * The relay's path rule (docs/relay.md: only its two paths). The edge forwards only
 * /bonita/* and /docservice/*, and the path it forwards is the one it checked.
 *
 * Hono routes the raw request path while `new URL()` resolves dot segments (`..`, `.`, and
 * their percent-encoded forms `%2e`, which the URL standard treats as dots) and, for http(s),
 * reads `\` as `/`: `/bonita/../admin` is routed to the relay but resolves to `/admin`. So a
 * path is refused when its raw form holds a dot segment (plain or encoded, any case), a
 * backslash, or an encoded slash or backslash (`%2f`, `%5c`, which an upstream may decode
 * into a separator), and the resolved form must be that same path under one of the two
 * prefixes. Nothing of a refused request is sent upstream.
 */

const PREFIXES = ["/bonita", "/docservice"];

/** The path of a request URL as the client wrote it (no resolution, no decoding). */
export function rawPath(url: string): string {
  const scheme = url.indexOf("://");
  const start = url.indexOf("/", scheme < 0 ? 0 : scheme + 3);
  if (start < 0) return "/";
  const end = url.slice(start).search(/[?#]/);
  return end < 0 ? url.slice(start) : url.slice(start, start + end);
}

/** Whether a path holds nothing that resolves or decodes into another path. */
function plain(path: string): boolean {
  if (path.includes("\\") || /%(2f|5c)/i.test(path)) return false;
  return path.split("/").every((seg) => {
    const dots = seg.replace(/%2e/gi, ".");
    return dots !== "." && dots !== "..";
  });
}

const under = (path: string) => PREFIXES.some((p) => path === p || path.startsWith(`${p}/`));

/**
 * The path and query the relay forwards for this request URL, or null when the path is
 * refused (dot segments, backslashes, encoded separators, or outside /bonita and /docservice).
 */
export function relayTarget(url: string): string | null {
  const raw = rawPath(url);
  let resolved: URL;
  try {
    resolved = new URL(url);
  } catch {
    return null;
  }
  if (!plain(raw) || !under(raw) || resolved.pathname !== raw) return null;
  return `${resolved.pathname}${resolved.search}`;
}
