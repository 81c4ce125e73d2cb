/**
 * This file: refused paths, the comment upload URL (the same subject goes on in relay_test.ts,
 * relay_edge_test.ts, relay_streams_test.ts).
 *
 * Relay mode (docs/relay.md): an edge with UPSTREAM_URL in front of a real QCard upstream
 * (relay_fixture.ts). Every §7 call answers through the edge as the upstream answers it;
 * bodies stream both ways; a slow or absent upstream gives 504/502 JSON in the caller's
 * language; the edge's own headers win; translations are kept per locale; push keys and
 * registrations are the edge's.
 */
import assert from "node:assert/strict";
import { parseConfig } from "../../server/config.ts";
import { createApp } from "../../server/app/app.ts";
import { makeDeps } from "../../server/app/boot.ts";
import { edgeCommentUploadUrl } from "../../server/relay/comment_upload.ts";
import { newIssuerKeyText } from "../../server/issuer/mod.ts";
import { DEMO } from "../helpers.ts";
import { login } from "./api.ts";
import { relayed } from "./relay_fixture.ts";
import { opts } from "./relay_helpers.ts";

/** One raw HTTP/1.1 request on its own connection, the path sent as written (curl --path-as-is). */
async function rawRequest(port: number, head: string): Promise<{ status: number; body: string }> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(new TextEncoder().encode(head));
    const chunks: Uint8Array[] = [];
    const buf = new Uint8Array(16384);
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      chunks.push(buf.slice(0, n));
    }
    const text = new TextDecoder().decode(
      Uint8Array.from(chunks.flatMap((c) => [...c])),
    );
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
    return { status, body: text.slice(text.indexOf("\r\n\r\n") + 4) };
  } finally {
    try {
      conn.close();
    } catch { /* closed by the server */ }
  }
}

/** The path as the upstream received it, without resolving anything. */
function rawPathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("://") + 3);
  return url.slice(start).split("?")[0];
}

Deno.test({
  name:
    "[relay] dot segments and encoded separators are refused before anything reaches the upstream",
  ...opts,
  fn: async () => {
    // A logging upstream under a base path: every path (as it arrives) and its headers.
    const received: { path: string; headers: Headers }[] = [];
    const upstream = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, (req) => {
      received.push({ path: rawPathOf(req.url), headers: new Headers(req.headers) });
      return Response.json({ ok: true });
    });
    const config = parseConfig({
      KV_PATH: ":memory:",
      STATIC_DIR: "./dist/preact",
      ISSUER_KEY: newIssuerKeyText(),
      DEMO_HISTORY: "false",
      UPSTREAM_URL: `http://127.0.0.1:${upstream.addr.port}/base`,
    });
    const kv = await Deno.openKv(":memory:");
    const deps = await makeDeps(config, kv, { log: () => {} });
    const app = createApp(deps);
    const edge = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen: () => {} },
      (req, info) => app.fetch(req, { remoteAddr: info.remoteAddr }),
    );
    const port = edge.addr.port;
    const get = (path: string, extra = "") =>
      rawRequest(
        port,
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${extra}Connection: close\r\n\r\n`,
      );
    try {
      for (
        const path of [
          "/bonita/../admin/secret",
          "/bonita/%2e%2e/admin",
          "/bonita/%2E%2e/admin",
          "/bonita/.%2E/admin",
          "/bonita/./API/x",
          "/bonita/%2e/API/x",
          "/docservice/../x",
          "/docservice/a/../../x",
          "/bonita/a%2fb",
          "/bonita/a%2F..%2Fb",
          "/bonita/a%5cb",
          "/bonita/a%5C..%5Cadmin",
          "/bonita/API/../../admin?x=1",
        ]
      ) {
        const r = await get(path);
        assert.equal(r.status, 400, path);
        const json = JSON.parse(r.body);
        assert.equal(json.error, "invalid_path", path);
        assert.equal(typeof json.message, "string", path);
      }
      // A POST with a body (the push registration reads its body at the edge): refused first.
      const body = JSON.stringify({ pushToken: "", deviceId: "d", isIOS: false });
      const post = await rawRequest(
        port,
        `POST /bonita/../bonita/API/extension/pwaregisterpushtoken HTTP/1.1\r\nHost: x\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n` +
          `Connection: close\r\n\r\n${body}`,
      );
      assert.equal(post.status, 400);
      // A backslash is a separator to URL parsers: `/bonita/x\..\..\admin` resolves to /admin.
      assert.equal((await get("/bonita/x\\..\\..\\admin")).status, 400);
      assert.deepEqual(received.map((r) => r.path), [], "nothing reached the upstream");

      // A plain path is relayed under the base path, with the client's X-Real-IP and Via dropped.
      const ok = await get("/bonita/API/x?y=1", "X-Real-IP: 203.0.113.66\r\nVia: 1.1 evil\r\n");
      assert.equal(ok.status, 200);
      assert.deepEqual(received.map((r) => r.path), ["/base/bonita/API/x"]);
      assert.equal(received[0].headers.get("x-real-ip"), null);
      assert.equal(received[0].headers.get("via"), null);
      assert.equal(received[0].headers.get("x-forwarded-for"), "127.0.0.1");
    } finally {
      await edge.shutdown();
      await upstream.shutdown();
      kv.close();
    }
  },
});

Deno.test({
  name:
    "[relay] comment upload: the URL the upstream names is handed on as an edge path, and the POST reaches the upstream with spec §7's body",
  ...opts,
  fn: async () => {
    const r = await relayed();
    try {
      const emp = await login(r.api, DEMO.employee);
      const COMMENTS = "/bonita/scmapi/expense/pwaexpensecomments";
      const UPLOAD = "/bonita/scmapi/comments/upload";
      let named: unknown = `${r.upstreamUrl}${UPLOAD}`;
      let received: { body: unknown; auth: string | null } | null = null;
      // The fake upstream: names the URL in its comment list and takes the POST there.
      r.intercept = (req) => {
        const path = new URL(req.url).pathname;
        if (path === COMMENTS) return Response.json({ comments: [], commentUploadUrl: named });
        if (path !== UPLOAD || req.method !== "POST") return null;
        const body = new ReadableStream<Uint8Array>({
          async start(ctl) {
            received = {
              body: JSON.parse(await req.text()),
              auth: req.headers.get("authorization"),
            };
            ctl.enqueue(new TextEncoder().encode(`{"status":"OK"}`));
            ctl.close();
          },
        });
        return new Response(body, { headers: { "content-type": "application/json" } });
      };
      const list = async () => {
        const res = await fetch(`${r.edgeUrl}${COMMENTS}?oid=req-1`, { headers: emp.h });
        assert.equal(res.status, 200);
        return ((await res.json()) as { commentUploadUrl: string | null }).commentUploadUrl;
      };
      assert.equal(await list(), UPLOAD, "an edge path, not the upstream's address");
      const sent = {
        oid: "req-1",
        entityType: "expense",
        record: "req-1",
        id: "R000001",
        archive: false,
        comment: "Taxi receipt follows",
      };
      const res = await fetch(`${r.edgeUrl}${UPLOAD}`, {
        method: "POST",
        headers: { ...emp.h, "content-type": "application/json" },
        body: JSON.stringify(sent),
      });
      assert.equal(res.status, 200, await res.clone().text());
      assert.deepEqual(await res.json(), { status: "OK" });
      assert.deepEqual(received, { body: sent, auth: emp.h.authorization });
      assert.equal(r.seen?.path, UPLOAD);

      // Nothing off the relay's paths is handed on: the client then uses pwaaddcomment.
      for (
        const bad of [
          "https://evil.example/bonita/scmapi/comments/upload",
          `${r.upstreamUrl}/admin/secret`,
          `${r.upstreamUrl}/bonita/../admin/secret`,
          `${r.upstreamUrl}/bonita/%2e%2e/admin`,
          `${r.upstreamUrl}/bonita/scmapi/comments/upload?to=x`,
          "//evil.example/bonita/x",
          "javascript:alert(1)",
          42,
        ]
      ) {
        named = bad;
        assert.equal(await list(), null, String(bad));
      }
      named = "/bonita/scmapi/comments/upload";
      assert.equal(await list(), UPLOAD, "a path is kept as it is");
      // An upstream under a base path: its base is not part of the edge's path.
      assert.equal(
        edgeCommentUploadUrl("http://up.example/base/", "http://up.example/base/bonita/c/upload"),
        "/bonita/c/upload",
      );
      assert.equal(
        edgeCommentUploadUrl("http://up.example/base", "http://up.example/bonita/c"),
        null,
      );
    } finally {
      await r.close();
    }
  },
});
