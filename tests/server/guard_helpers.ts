/** Helpers shared by the guard tests (guard_test.ts, guard_limits_test.ts). */
import { type GuardedServer, type GuardOptions, serveGuarded } from "../../server/net/guard.ts";

export const HEADER_MS = 300;

export const IDLE_MS = 500;

/** Allowed lateness of a close: one sweep (75 ms here) plus scheduling on a busy box. */
export const SLACK_MS = 600;

/** Deno's fetch option (the DOM RequestInit type in scope does not know it). */
export type WithClient = RequestInit & { client: Deno.HttpClient };

export const enc = new TextEncoder();

export const dec = new TextDecoder();

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the test handler answers: who it saw, and what it read. */
export interface Seen {
  hostname: string;
  port: number;
  bytes?: number;
  sha256?: string;
}

/** Body reads that failed in the handler: a cut connection must unwind them, not pin them. */
export const bodyErrors: string[] = [];

export async function echo(
  req: Request,
  info: { remoteAddr: Deno.NetAddr; closeAfterAnswer?: () => void },
): Promise<Response> {
  const url = new URL(req.url);
  if (url.pathname === "/refuse") {
    // A body refused unread, as the API refuses a bearer call without a bearer.
    info.closeAfterAnswer?.();
    return new Response("no", { status: 401 });
  }
  if (url.pathname === "/slow") await sleep(Number(url.searchParams.get("ms")));
  const seen: Seen = { hostname: info.remoteAddr.hostname, port: info.remoteAddr.port };
  if (req.body) {
    const body = await req.arrayBuffer().catch((e) => {
      bodyErrors.push(String(e));
      throw e;
    });
    seen.bytes = body.byteLength;
    seen.sha256 = await sha256(new Uint8Array(body));
  }
  return Response.json(seen);
}

export async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(d, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function start(opts: Partial<GuardOptions> = {}, hostname = "127.0.0.1"): GuardedServer {
  return serveGuarded({
    port: 0,
    hostname,
    headerTimeoutMs: HEADER_MS,
    idleTimeoutMs: IDLE_MS,
    requestTimeoutMs: 2000,
    onError: () => new Response(null, { status: 500 }),
    ...opts,
  }, echo);
}

/** Reads until the server closes (EOF or reset); gives up after `maxMs` and closes itself. */
export async function untilClosed(conn: Deno.Conn, maxMs = 5000) {
  const t0 = performance.now();
  const buf = new Uint8Array(16 * 1024);
  let text = "";
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    conn.close();
  }, maxMs);
  try {
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      text += dec.decode(buf.subarray(0, n));
    }
  } catch (e) {
    if (!timedOut && !(e instanceof Deno.errors.ConnectionReset)) throw e;
  } finally {
    clearTimeout(timer);
  }
  if (!timedOut) conn.close();
  return { ms: performance.now() - t0, text, closed: !timedOut };
}

/** Reads one answer (Content-Length framed) from a kept-alive connection. */
export async function readAnswer(conn: Deno.Conn): Promise<{ status: number; seen: Seen }> {
  const buf = new Uint8Array(16 * 1024);
  let text = "";
  for (;;) {
    const n = await conn.read(buf);
    if (n === null) throw new Error(`closed mid-answer: ${JSON.stringify(text)}`);
    text += dec.decode(buf.subarray(0, n));
    const end = text.indexOf("\r\n\r\n");
    if (end < 0) continue;
    const length = Number(/content-length: (\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
    if (text.length < end + 4 + length) continue;
    const status = Number(text.slice(9, 12));
    const body = text.slice(end + 4, end + 4 + length);
    return { status, seen: status === 200 ? JSON.parse(body) : body };
  }
}

export const connect = (s: GuardedServer, hostname = "127.0.0.1") =>
  Deno.connect({ hostname, port: s.addr.port });

export const GET = (path = "/") => enc.encode(`GET ${path} HTTP/1.1\r\nHost: qcard.test\r\n\r\n`);
