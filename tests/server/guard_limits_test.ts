/**
 * This file: connection caps, trusted proxies, unread bodies, shutdown, the inner server, Deploy,
 * the app behind (the same subject goes on in guard_test.ts).
 *
 * Connection guard (docs/security.md): real sockets on loopback, short deadlines (300 ms header,
 * 500 ms idle). Closing is asserted by reading EOF on the client side, within a slack for two
 * shared cores (the sweeper runs every quarter of the shortest timeout).
 */
import assert from "node:assert/strict";
import { serveGuarded } from "../../server/net/guard.ts";
import { testApp } from "../helpers.ts";
import {
  connect,
  enc,
  GET,
  HEADER_MS,
  IDLE_MS,
  readAnswer,
  Seen,
  SLACK_MS,
  sleep,
  start,
  untilClosed,
  WithClient,
} from "./guard_helpers.ts";

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
