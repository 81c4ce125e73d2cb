/**
 * Connection guard (docs/security.md): real sockets on loopback, short deadlines (300 ms header,
 * 500 ms idle). Closing is asserted by reading EOF on the client side, within a slack for two
 * shared cores (the sweeper runs every quarter of the shortest timeout).
 */
import assert from "node:assert/strict";
import { type GuardedServer, type GuardOptions, serveGuarded } from "../../server/net/guard.ts";
import { testApp } from "../helpers.ts";

const HEADER_MS = 300;
const IDLE_MS = 500;
/** Allowed lateness of a close: one sweep (75 ms here) plus scheduling on a busy box. */
const SLACK_MS = 600;
const TIMEOUT_408 =
  "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";
/** Deno's fetch option (the DOM RequestInit type in scope does not know it). */
type WithClient = RequestInit & { client: Deno.HttpClient };
const enc = new TextEncoder();
const dec = new TextDecoder();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the test handler answers: who it saw, and what it read. */
interface Seen {
  hostname: string;
  port: number;
  bytes?: number;
  sha256?: string;
}

/** Body reads that failed in the handler: a cut connection must unwind them, not pin them. */
const bodyErrors: string[] = [];

async function echo(
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

async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(d, (b) => b.toString(16).padStart(2, "0")).join("");
}

function start(opts: Partial<GuardOptions> = {}, hostname = "127.0.0.1"): GuardedServer {
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
async function untilClosed(conn: Deno.Conn, maxMs = 5000) {
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
async function readAnswer(conn: Deno.Conn): Promise<{ status: number; seen: Seen }> {
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

const connect = (s: GuardedServer, hostname = "127.0.0.1") =>
  Deno.connect({ hostname, port: s.addr.port });
const GET = (path = "/") => enc.encode(`GET ${path} HTTP/1.1\r\nHost: qcard.test\r\n\r\n`);
const POST_100 = "POST / HTTP/1.1\r\nHost: qcard.test\r\nContent-Length: 100\r\n\r\n";

function assertClosedAround(ms: number, expected: number) {
  assert.ok(ms >= expected - 30, `closed after ${ms.toFixed(0)} ms, before ${expected} ms`);
  assert.ok(ms <= expected + SLACK_MS, `closed after ${ms.toFixed(0)} ms, not by ${expected} ms`);
}

/** Waits until the handler's body reads have failed `n` times in all (or 2 s went by). */
async function bodyErrorsReach(n: number) {
  for (let i = 0; i < 100 && bodyErrors.length < n; i++) await sleep(20);
  assert.equal(bodyErrors.length, n, "the handler still waits on the body of a cut request");
}

Deno.test("[guard] a connection that sends nothing gets 408 after the header timeout", async () => {
  await using s = start();
  const r = await untilClosed(await connect(s));
  assert.ok(r.closed, "still open");
  assertClosedAround(r.ms, HEADER_MS);
  assert.equal(r.text, TIMEOUT_408);
  assert.deepEqual(s.stats().timedOut, { header: 1, request: 0, idle: 0 });
});

Deno.test("[guard] a partial header gets 408 and is closed after the header timeout", async () => {
  await using s = start();
  const conn = await connect(s);
  await conn.write(enc.encode("GET / HTTP/1.1\r\nHost: qcard.test\r\n"));
  const r = await untilClosed(conn);
  assert.ok(r.closed, "still open");
  assertClosedAround(r.ms, HEADER_MS);
  assert.equal(r.text, TIMEOUT_408);
  assert.deepEqual(s.stats().timedOut, { header: 1, request: 0, idle: 0 });
});

Deno.test("[guard] a slow but complete header within the deadline is answered 200", async () => {
  await using s = start();
  const conn = await connect(s);
  const parts = ["GET /slow?ms=0 HT", "TP/1.1\r\nHo", "st: qcard.test\r\nAccept: */*\r\n", "\r\n"];
  for (const p of parts) {
    await conn.write(enc.encode(p));
    await sleep(40); // complete after 3 × 40 ms, well inside the 300 ms
  }
  assert.equal((await readAnswer(conn)).status, 200);
  const r = await untilClosed(conn); // then idle: closed after the idle timeout, no answer
  assert.ok(r.closed);
  assertClosedAround(r.ms, IDLE_MS);
  assert.equal(r.text, "");
  assert.deepEqual(s.stats().timedOut, { header: 0, request: 0, idle: 1 });
});

Deno.test("[guard] a kept-alive connection serves 2 requests, then is closed when idle", async () => {
  await using s = start();
  const conn = await connect(s);
  await conn.write(GET());
  const first = await readAnswer(conn);
  // Longer than the header timeout, shorter than the idle one: the connection is still good.
  await sleep(HEADER_MS + 20);
  await conn.write(GET());
  const second = await readAnswer(conn);
  assert.equal(first.status, 200);
  assert.equal(second.status, 200);
  assert.equal(second.seen.port, first.seen.port, "same connection");
  const r = await untilClosed(conn);
  assert.ok(r.closed);
  assertClosedAround(r.ms, IDLE_MS);
  assert.deepEqual(s.stats().timedOut, { header: 0, request: 0, idle: 1 });
});

Deno.test("[guard] the next request on a kept-alive connection owes its header in time", async () => {
  await using s = start();
  const conn = await connect(s);
  await conn.write(GET());
  assert.equal((await readAnswer(conn)).status, 200);
  await sleep(100);
  await conn.write(enc.encode("GET / HTTP/1.1\r\nHo")); // and nothing more
  const r = await untilClosed(conn);
  assert.ok(r.closed);
  assertClosedAround(r.ms, HEADER_MS);
  assert.equal(r.text, TIMEOUT_408);
  assert.deepEqual(s.stats().timedOut, { header: 1, request: 0, idle: 0 });
});

Deno.test("[guard] the handler sees the real peer address (IPv4)", async () => {
  await using s = start();
  const conn = await connect(s);
  const me = conn.localAddr as Deno.NetAddr;
  await conn.write(GET());
  const { seen } = await readAnswer(conn);
  assert.deepEqual(seen, { hostname: "127.0.0.1", port: me.port });
  conn.close();
});

const hasIPv6 = (() => {
  try {
    Deno.listen({ hostname: "::1", port: 0 }).close();
    return true;
  } catch {
    return false;
  }
})();

Deno.test({
  name: "[guard] the handler sees the real peer address (IPv6 loopback)",
  ignore: !hasIPv6,
  fn: async () => {
    await using s = start({}, "::1");
    const conn = await connect(s, "::1");
    const me = conn.localAddr as Deno.NetAddr;
    await conn.write(GET());
    const { seen } = await readAnswer(conn);
    assert.deepEqual(seen, { hostname: "::1", port: me.port });
    conn.close();
  },
});

Deno.test("[guard] a POST body streamed in chunks arrives whole", async () => {
  await using s = start();
  const chunks = Array.from({ length: 16 }, (_, i) => {
    const c = crypto.getRandomValues(new Uint8Array(64 * 1024));
    c[0] = i;
    return c;
  });
  const all = new Uint8Array(chunks.length * 65536);
  chunks.forEach((c, i) => all.set(c, i * 65536));
  let i = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(ctl) {
      if (i === chunks.length) return ctl.close();
      await sleep(25); // ~400 ms in all: past the header timeout, within the request one
      ctl.enqueue(chunks[i++]);
    },
  });
  using client = Deno.createHttpClient({});
  const url = `http://127.0.0.1:${s.addr.port}/upload`;
  const res = await fetch(url, { method: "POST", body, client } as WithClient);
  assert.equal(res.status, 200);
  const seen: Seen = await res.json();
  assert.equal(seen.bytes, all.length);
  assert.equal(seen.sha256, await sha256(all));
});

Deno.test("[guard] a body that stalls is cut after the idle timeout; the handler unwinds", async () => {
  await using s = start();
  const before = bodyErrors.length;
  const conn = await connect(s);
  await conn.write(enc.encode(POST_100 + "0123456789"));
  const r = await untilClosed(conn);
  assert.ok(r.closed);
  assertClosedAround(r.ms, IDLE_MS);
  assert.equal(r.text, "");
  assert.deepEqual(s.stats().timedOut, { header: 0, request: 1, idle: 0 });
  await bodyErrorsReach(before + 1);
});

Deno.test("[guard] a body trickled past the request timeout is cut off", async () => {
  await using s = start({ requestTimeoutMs: 400 });
  const before = bodyErrors.length;
  const conn = await connect(s);
  await conn.write(enc.encode(POST_100));
  let stop = false;
  const writer = (async () => {
    while (!stop) {
      await sleep(50); // a byte every 50 ms: never idle, never done
      await conn.write(enc.encode("x")).catch(() => (stop = true));
    }
  })();
  const r = await untilClosed(conn);
  stop = true;
  await writer;
  assert.ok(r.closed);
  assertClosedAround(r.ms, 400);
  assert.deepEqual(s.stats().timedOut, { header: 0, request: 1, idle: 0 });
  await bodyErrorsReach(before + 1);
});

Deno.test("[guard] 300 silent and half-sent sockets are all closed; a normal fetch still works", async () => {
  await using s = start();
  const conns = await Promise.all(Array.from({ length: 300 }, () => connect(s)));
  await Promise.all(
    conns.filter((_, i) => i % 2).map((c) => c.write(enc.encode("GET / HTTP/1.1\r\nHo"))),
  );
  const closing = Promise.all(conns.map((c) => untilClosed(c)));
  using client = Deno.createHttpClient({});
  const res = await fetch(`http://127.0.0.1:${s.addr.port}/`, { client } as WithClient);
  assert.equal(res.status, 200);
  assert.equal(((await res.json()) as Seen).hostname, "127.0.0.1");
  const results = await closing;
  assert.equal(results.filter((r) => r.closed).length, 300);
  const latest = Math.max(...results.map((r) => r.ms));
  assert.ok(latest <= HEADER_MS + SLACK_MS, `last closed after ${latest.toFixed(0)} ms`);
  assert.equal(s.stats().timedOut.header, 300);
});

Deno.test("[guard] connections over maxConnections or the per-peer cap are closed at once", async () => {
  await using s = start({ maxConnections: 3, maxConnectionsPerPeer: 2 });
  const held = [await connect(s), await connect(s)];
  await sleep(30); // accepted and counted
  const t0 = performance.now();
  const extra = await untilClosed(await connect(s));
  assert.ok(extra.closed && extra.ms < 200, `over the per-peer cap, open ${extra.ms} ms`);
  assert.equal(extra.text, "");
  assert.equal(s.stats().refused, 1);
  assert.ok(performance.now() - t0 < HEADER_MS, "refused before the others timed out");
  // Once the held ones time out, the peer may connect again.
  for (const c of held) assert.ok((await untilClosed(c)).closed);
  const again = await connect(s);
  await again.write(GET());
  assert.equal((await readAnswer(again)).status, 200);
  again.close();
});

Deno.test("[guard] trusted proxies are not held to the per-peer cap", async () => {
  await using s = start({ maxConnectionsPerPeer: 1, unlimitedPeers: ["127.0.0.1"] });
  const a = await connect(s);
  const b = await connect(s);
  for (const c of [a, b]) {
    await c.write(GET());
    assert.equal((await readAnswer(c)).status, 200);
    c.close();
  }
  assert.equal(s.stats().refused, 0);
});

Deno.test("[guard] a body refused unread: the answer is sent, then the connection ends at once", async () => {
  // Idle and request deadlines far away: only closeAfterAnswer can end it soon.
  await using s = start({ idleTimeoutMs: 20_000, requestTimeoutMs: 20_000 });
  const conn = await connect(s);
  await conn.write(
    enc.encode("POST /refuse HTTP/1.1\r\nHost: qcard.test\r\nContent-Length: 11000000\r\n\r\n"),
  );
  // The client goes on sending its body meanwhile, as far as the server takes it.
  const chunk = new Uint8Array(64 * 1024);
  let sent = 0;
  const sending = (async () => {
    try {
      while (sent < 11_000_000) sent += await conn.write(chunk);
    } catch { /* closed by the server */ }
  })();
  const r = await untilClosed(conn, 5000);
  await sending;
  assert.ok(r.closed, "still open");
  assert.ok(r.ms < 2000, `closed after ${r.ms.toFixed(0)} ms`);
  assert.match(r.text, /^HTTP\/1\.1 401 /);
  assert.match(r.text, /no$/);
  assert.ok(sent < 11_000_000, "the whole body was taken");
});

Deno.test("[guard] shutdown closes idle connections at once and lets an answer finish", async () => {
  const s = start();
  const silent = await connect(s);
  const kept = await connect(s);
  await kept.write(GET());
  await readAnswer(kept);
  const busy = await connect(s);
  await busy.write(GET("/slow?ms=300"));
  await sleep(50);
  const t0 = performance.now();
  const down = s.shutdown();
  for (const c of [silent, kept]) {
    const r = await untilClosed(c);
    assert.ok(r.closed && r.ms < 200, `idle connection open ${r.ms.toFixed(0)} ms after shutdown`);
  }
  assert.equal((await readAnswer(busy)).status, 200);
  assert.ok((await untilClosed(busy)).closed);
  await down;
  await s.finished;
  assert.ok(performance.now() - t0 < 1000);
  await assert.rejects(connect(s), Deno.errors.ConnectionRefused);
});

Deno.test("[guard] an aborted signal shuts the server down", async () => {
  const ac = new AbortController();
  const s = start({ signal: ac.signal });
  const conn = await connect(s);
  await sleep(20);
  ac.abort();
  const r = await untilClosed(conn);
  assert.ok(r.closed && r.ms < 200);
  await s.finished;
  assert.equal(s.stats().open, 0);
});

Deno.test("[guard] the inner server answers 421 to a connection that is not the front's", async () => {
  // Another process on this host could find the loopback port: it must not pass for a client.
  await using s = start();
  assert.ok(s.guarded && s.innerAddr);
  const { hostname, port } = s.innerAddr;
  const stranger = await Deno.connect({ hostname, port });
  await stranger.write(GET());
  assert.equal((await readAnswer(stranger)).status, 421);
  stranger.close();
});

Deno.test("[guard] on Deno Deploy it is Deno.serve as it is (the platform fronts connections)", async () => {
  Deno.env.set("DENO_DEPLOYMENT_ID", "test");
  try {
    await using s = start();
    assert.equal(s.guarded, false);
    assert.equal(s.innerAddr, null);
    using client = Deno.createHttpClient({});
    const res = await fetch(`http://127.0.0.1:${s.addr.port}/`, { client } as WithClient);
    assert.equal(((await res.json()) as Seen).hostname, "127.0.0.1");
  } finally {
    Deno.env.delete("DENO_DEPLOYMENT_ID");
  }
});

Deno.test("[guard] the app behind it, wired as main.ts wires it, sees the loopback peer", async () => {
  // /_outbox is served to a direct loopback peer only (server/middleware/peer.ts devOnly).
  const api = await testApp();
  try {
    await using s = serveGuarded(
      { port: 0, hostname: "127.0.0.1", headerTimeoutMs: HEADER_MS, idleTimeoutMs: IDLE_MS },
      (req, info) => api.app.fetch(req, { remoteAddr: info.remoteAddr }),
    );
    using client = Deno.createHttpClient({});
    const url = `http://127.0.0.1:${s.addr.port}/_outbox`;
    const local = await fetch(
      url,
      { client, headers: { accept: "application/json" } } as WithClient,
    );
    assert.equal(local.status, 200);
    await local.body?.cancel();
    const inProcess = await api.app.request("/_outbox"); // no peer address at all
    assert.equal(inProcess.status, 404);
  } finally {
    await api.close();
  }
});
