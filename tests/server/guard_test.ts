/**
 * This file: header and body deadlines, keep-alive, peer addresses (the same subject goes on in
 * guard_limits_test.ts).
 *
 * Connection guard (docs/security.md): real sockets on loopback, short deadlines (300 ms header,
 * 500 ms idle). Closing is asserted by reading EOF on the client side, within a slack for two
 * shared cores (the sweeper runs every quarter of the shortest timeout).
 */
import assert from "node:assert/strict";
import {
  bodyErrors,
  connect,
  enc,
  GET,
  HEADER_MS,
  IDLE_MS,
  readAnswer,
  Seen,
  sha256,
  SLACK_MS,
  sleep,
  start,
  untilClosed,
  WithClient,
} from "./guard_helpers.ts";

const TIMEOUT_408 =
  "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n";

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

const hasIPv6 = (() => {
  try {
    Deno.listen({ hostname: "::1", port: 0 }).close();
    return true;
  } catch {
    return false;
  }
})();

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
