/**
 * Bytes on the wire: static files go out as the build's brotli/gzip copies by
 * Accept-Encoding with a strong ETag per representation and 304 on If-None-Match; source
 * maps stay private in production; JSON API answers over 1 KB are compressed on the fly.
 * Builds its own client into a temp dir, so it does not depend on dist/.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import * as esbuild from "esbuild";
import { Hono } from "hono";
import { build, type BuildReport } from "../../build.ts";
import { chooseCoding, compress } from "../../server/middleware/compress.ts";
import { seedRequests } from "../bench/seed.ts";
import { DEMO, type TestApi, testApp } from "../helpers.ts";

const E = "/bonita/scmapi/expense";
const BROWSER = "gzip, deflate, br";

function decode(coding: string | null, bytes: Uint8Array): Uint8Array {
  if (coding === "br") return new Uint8Array(brotliDecompressSync(bytes));
  if (coding === "gzip") return new Uint8Array(gunzipSync(bytes));
  assert.equal(coding, null, `unexpected Content-Encoding ${coding}`);
  return bytes;
}

/** GET through the in-process app; the body as the bytes sent (nothing decodes them). */
async function get(api: TestApi, path: string, headers: Record<string, string> = {}) {
  const res = await api.app.request(path, { headers });
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

Deno.test("[wire] Accept-Encoding: highest q wins, ties go to the server's order, q=0 refuses", () => {
  const both = ["br", "gzip"] as const;
  assert.equal(chooseCoding(undefined, both), null);
  assert.equal(chooseCoding("", both), null);
  assert.equal(chooseCoding("gzip, deflate, br", both), "br");
  assert.equal(chooseCoding("gzip, deflate, br", ["gzip", "br"]), "gzip");
  assert.equal(chooseCoding("gzip, deflate, br, zstd", ["br"]), "br");
  assert.equal(chooseCoding("gzip", both), "gzip");
  assert.equal(chooseCoding("x-gzip", both), "gzip");
  assert.equal(chooseCoding("identity", both), null);
  assert.equal(chooseCoding("deflate", both), null);
  assert.equal(chooseCoding("br;q=0, gzip", both), "gzip");
  assert.equal(chooseCoding("br; q=0.0, gzip;q=0", both), null);
  assert.equal(chooseCoding("gzip;q=1.0, br;q=0.5", both), "gzip");
  assert.equal(chooseCoding("*", both), "br");
  assert.equal(chooseCoding("*;q=0", both), null);
  assert.equal(chooseCoding("*, br;q=0", both), "gzip");
  assert.equal(chooseCoding("GZIP", both), "gzip");
  assert.equal(chooseCoding("br", ["gzip"]), null);
});

Deno.test({
  name: "[wire] static files",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const outDir = await Deno.makeTempDir({ prefix: "qcard_wire_" });
    const apps: TestApi[] = [];
    try {
      const report: BuildReport = await build({ flavour: "preact", outDir });
      const dev = await testApp({ STATIC_DIR: outDir, DEMO_ORG: "false" });
      // Production refuses the outbox; no demo org, so nothing is mailed.
      const prod = await testApp({
        STATIC_DIR: outDir,
        APP_ENV: "production",
        MAIL_TRANSPORT: "smtp",
        SMTP_HOST: "127.0.0.1",
        DEMO_ORG: "false",
      });
      apps.push(dev, prod);
      assert.ok(report.css, "the build has a stylesheet");
      const texts = [
        "/index.html",
        ...report.firstLoadJs,
        report.css,
        "/manifest.webmanifest",
        "/sw.js",
      ];

      await t.step(
        "[wire] static: br, gzip or identity by Accept-Encoding, each decoding to the built file",
        async () => {
          for (const path of texts) {
            const original = await Deno.readFile(join(outDir, path));
            for (
              const [accept, expected] of [
                [BROWSER, "br"],
                ["gzip", "gzip"],
                ["br;q=0, gzip", "gzip"],
                ["identity", null],
                ["br;q=0, gzip;q=0", null],
                [undefined, null],
              ] as const
            ) {
              const { res, bytes } = await get(
                prod,
                path,
                accept === undefined ? {} : { "accept-encoding": accept },
              );
              const what = `${path} with Accept-Encoding ${accept}`;
              assert.equal(res.status, 200, what);
              assert.equal(res.headers.get("content-encoding"), expected, what);
              // "/" and /index.html: one of two shells, chosen by the PIN length cookie; every
              // page: Cross-Origin-Opener-Policy by who opened it (the Sec-Fetch headers).
              const byCookie = path === "/" || path === "/index.html";
              const page = /^\/$|\.html$/.test(path);
              assert.equal(
                res.headers.get("vary"),
                [
                  "Accept-Encoding",
                  ...(byCookie ? ["Cookie"] : []),
                  ...(page ? ["Sec-Fetch-Site", "Sec-Fetch-Dest"] : []),
                ].join(", "),
                what,
              );
              assert.deepEqual(decode(expected, bytes), original, what);
              if (expected) assert.ok(bytes.length < original.length, `${what}: not smaller`);
            }
          }
          // The first-load JS as a browser receives it is the build's brotli size (the boot
          // script's part is inside index.html).
          let sent = report.boot.brotliBytes;
          for (const path of report.firstLoadJs) {
            sent += (await get(prod, path, { "accept-encoding": BROWSER })).bytes.length;
          }
          assert.equal(sent, report.firstLoadJsBrotli);
          assert.ok(report.firstLoadJsBrotli < report.firstLoadJsGzip);
        },
      );

      await t.step(
        "[wire] static: a strong ETag per representation; If-None-Match answers 304, no body",
        async () => {
          const path = report.firstLoadJs[0];
          const tags = new Map<string, string>();
          for (const accept of [BROWSER, "gzip", "identity"]) {
            const { res } = await get(prod, path, { "accept-encoding": accept });
            const etag = res.headers.get("etag") ?? "";
            assert.match(etag, /^"[\w-]{16,}"$/, `${accept}: strong ETag expected, got ${etag}`);
            tags.set(accept, etag);
            // Same representation, same tag: the tag is the content's, not the request's.
            const again = await get(prod, path, { "accept-encoding": accept });
            assert.equal(again.res.headers.get("etag"), etag);

            const hit = await get(prod, path, { "accept-encoding": accept, "if-none-match": etag });
            assert.equal(hit.res.status, 304, accept);
            assert.equal(hit.bytes.length, 0, `${accept}: 304 with a body`);
            assert.equal(hit.res.headers.get("etag"), etag);
            assert.equal(hit.res.headers.get("vary"), "Accept-Encoding");
            assert.equal(
              hit.res.headers.get("cache-control"),
              "public, max-age=31536000, immutable",
            );
            for (const list of [`"nope", ${etag}`, `W/${etag}`, "*"]) {
              const h = await get(prod, path, { "accept-encoding": accept, "if-none-match": list });
              assert.equal(h.res.status, 304, `If-None-Match: ${list}`);
            }
          }
          assert.equal(new Set(tags.values()).size, 3, `one tag per encoding: ${[...tags]}`);
          // A tag of another representation is no match: the client gets the bytes.
          const other = await get(prod, path, {
            "accept-encoding": "gzip",
            "if-none-match": tags.get(BROWSER)!,
          });
          assert.equal(other.res.status, 200);
          assert.equal(other.res.headers.get("content-encoding"), "gzip");

          const shell = await get(prod, "/", { "if-none-match": tags.get("identity")! });
          assert.equal(shell.res.status, 200, "index.html has its own tag");
          const shellTag = shell.res.headers.get("etag")!;
          const shell304 = await get(prod, "/", { "if-none-match": shellTag });
          assert.equal(shell304.res.status, 304);
          assert.equal(shell304.res.headers.get("cache-control"), "no-cache");
        },
      );

      await t.step(
        "[wire] static: images carry no Vary; the .br/.gz copies are not files of their own",
        async () => {
          const icon = report.files.find((f) => f.path.endsWith(".png"));
          assert.ok(icon, "the build has a PNG icon");
          const { res, bytes } = await get(prod, icon.path, { "accept-encoding": BROWSER });
          assert.equal(res.status, 200);
          assert.equal(res.headers.get("content-encoding"), null);
          assert.equal(res.headers.get("vary"), null);
          assert.deepEqual(bytes, await Deno.readFile(join(outDir, icon.path)));
          for (const copy of ["/index.html.br", "/index.html.gz", `${report.firstLoadJs[0]}.br`]) {
            const r = await get(prod, copy, { "accept-encoding": BROWSER });
            assert.equal(r.res.status, 404, copy);
          }
        },
      );

      await t.step(
        "[wire] static: source maps are 404 in production, served in development",
        async () => {
          const maps = report.files.filter((f) => f.path.endsWith(".map")).map((f) => f.path);
          assert.ok(maps.length > 0, "the build keeps its source maps");
          for (const path of [`${report.firstLoadJs[0]}.map`, "/sw.js.map"]) {
            assert.ok(maps.includes(path), `${path} not built`);
            const p = await get(prod, path, { "accept-encoding": BROWSER });
            assert.equal(p.res.status, 404, `production served ${path}`);
            assert.match(p.res.headers.get("content-type") ?? "", /^application\/json/);
            assert.equal(JSON.parse(new TextDecoder().decode(p.bytes)).error, "not_found");

            const d = await get(dev, path, { "accept-encoding": BROWSER });
            assert.equal(d.res.status, 200, `development refused ${path}`);
            assert.deepEqual(
              decode(d.res.headers.get("content-encoding"), d.bytes),
              await Deno.readFile(join(outDir, path)),
            );
          }
        },
      );
    } finally {
      await esbuild.stop();
      for (const api of apps) api.close();
      await Deno.remove(outDir, { recursive: true });
    }
  },
});

Deno.test("[wire] API: pwalists over 1 KB comes compressed and decodes to the same JSON", async () => {
  const api = await testApp();
  try {
    await seedRequests(api.deps, DEMO.employee, 30);
    const { token } = await api.activate(DEMO.employee);
    const auth = { authorization: `Bearer ${token}` };
    const plain = await get(api, `${E}/pwalists`, auth);
    assert.equal(plain.res.status, 200);
    assert.equal(plain.res.headers.get("content-encoding"), null, "compressed unasked");
    assert.ok(plain.bytes.length > 1024, `pwalists is only ${plain.bytes.length} bytes`);
    const json = JSON.parse(new TextDecoder().decode(plain.bytes));

    for (
      const [accept, expected] of [
        [BROWSER, "gzip"],
        ["br", "br"],
        ["gzip;q=0.5, br", "br"],
        ["gzip", "gzip"],
        ["br;q=0, gzip;q=0", null],
        ["identity", null],
      ] as const
    ) {
      const { res, bytes } = await get(api, `${E}/pwalists`, {
        ...auth,
        "accept-encoding": accept,
      });
      assert.equal(res.status, 200, accept);
      assert.equal(res.headers.get("content-encoding"), expected, accept);
      assert.equal(res.headers.get("vary"), "Accept-Encoding", accept);
      assert.equal(res.headers.get("cache-control"), "no-store", accept);
      assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
      if (expected) {
        assert.equal(res.headers.get("content-length"), null, "stale Content-Length");
        assert.ok(bytes.length < plain.bytes.length / 3, `${accept}: ${bytes.length} bytes`);
      }
      assert.deepEqual(JSON.parse(new TextDecoder().decode(decode(expected, bytes))), json);
    }
  } finally {
    api.close();
  }
});

Deno.test("[wire] API: answers under 1 KB go as they are, errors too, with Vary", async () => {
  const api = await testApp();
  try {
    for (const path of ["/bonita/qtservlet//appcolor", `${E}/pwalists`, "/bonita/nope"]) {
      const { res, bytes } = await get(api, path, { "accept-encoding": BROWSER });
      assert.ok(bytes.length < 1024, `${path}: ${bytes.length} bytes`);
      assert.equal(res.headers.get("content-encoding"), null, path);
      assert.equal(res.headers.get("vary"), "Accept-Encoding", path);
      assert.equal(res.headers.get("cache-control"), "no-store", path);
      JSON.parse(new TextDecoder().decode(bytes));
    }
  } finally {
    api.close();
  }
});

Deno.test("[wire] compress(): encoded, no-transform, non-text and HEAD answers pass untouched", async () => {
  const big = JSON.stringify({ rows: Array.from({ length: 200 }, (_, i) => ({ i, x: "row" })) });
  const gz = gzipSync(big);
  const app = new Hono();
  app.use("*", compress());
  app.get("/json", (c) => c.json(JSON.parse(big)));
  app.get("/etag", (c) => c.json(JSON.parse(big), 200, { ETag: '"v1"' }));
  app.get("/encoded", () =>
    new Response(gz, {
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
    }));
  app.get(
    "/no-transform",
    (c) => c.json(JSON.parse(big), 200, { "Cache-Control": "no-transform" }),
  );
  app.get("/png", () => new Response(big, { headers: { "content-type": "image/png" } }));
  app.get("/events", () => new Response(big, { headers: { "content-type": "text/event-stream" } }));
  const h = { "accept-encoding": BROWSER };
  const req = async (path: string, init: RequestInit = { headers: h }) => {
    const res = await app.request(path, init);
    return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
  };

  const json = await req("/json");
  assert.equal(json.res.headers.get("content-encoding"), "gzip");
  assert.equal(new TextDecoder().decode(gunzipSync(json.bytes)), big);
  const etag = await req("/etag");
  assert.equal(etag.res.headers.get("etag"), 'W/"v1"', "a compressed answer keeps a weak tag");

  const encoded = await req("/encoded");
  assert.equal(encoded.res.headers.get("content-encoding"), "gzip");
  assert.deepEqual(encoded.bytes, new Uint8Array(gz), "compressed twice");
  for (const path of ["/no-transform", "/png", "/events"]) {
    const r = await req(path);
    assert.equal(r.res.headers.get("content-encoding"), null, path);
    assert.equal(new TextDecoder().decode(r.bytes), big, path);
  }
  const head = await app.request("/json", { method: "HEAD", headers: h });
  assert.equal(head.headers.get("content-encoding"), null, "HEAD");
});

/** One HTTP/1.1 GET over a plain socket: the headers and body bytes exactly as sent. */
async function rawGet(port: number, path: string, headers: Record<string, string>) {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const lines = Object.entries({ host: `127.0.0.1:${port}`, connection: "close", ...headers })
      .map(([k, v]) => `${k}: ${v}\r\n`).join("");
    await conn.write(new TextEncoder().encode(`GET ${path} HTTP/1.1\r\n${lines}\r\n`));
    const all = new Uint8Array(await new Response(conn.readable).arrayBuffer());
    const split = new TextDecoder("latin1").decode(all).indexOf("\r\n\r\n");
    const head = new TextDecoder().decode(all.slice(0, split)).split("\r\n");
    const map = new Map(
      head.slice(1).map((l) => {
        const i = l.indexOf(":");
        return [l.slice(0, i).toLowerCase(), l.slice(i + 1).trim()] as const;
      }),
    );
    let body = all.slice(split + 4);
    if (map.get("transfer-encoding") === "chunked") {
      const parts: number[] = [];
      for (let at = 0;;) {
        const eol = new TextDecoder().decode(body.slice(at, at + 16)).indexOf("\r\n");
        const size = parseInt(new TextDecoder().decode(body.slice(at, at + eol)), 16);
        if (!size) break;
        parts.push(...body.slice(at + eol + 2, at + eol + 2 + size));
        at += eol + 2 + size + 2;
      }
      body = new Uint8Array(parts);
    }
    return { status: Number(head[0].split(" ")[1]), headers: map, body };
  } finally {
    try {
      conn.close();
    } catch { /* closed by the reader */ }
  }
}

Deno.test("[wire] served as main.ts serves it, the socket carries the compressed bytes", async () => {
  const api = await testApp();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    (req, info) => api.app.fetch(req, { remoteAddr: info.remoteAddr }),
  );
  try {
    await seedRequests(api.deps, DEMO.employee, 30);
    const { token } = await api.activate(DEMO.employee);
    const auth = { authorization: `Bearer ${token}` };
    const port = server.addr.port;
    const plain = await rawGet(port, `${E}/pwalists`, auth);
    const packed = await rawGet(port, `${E}/pwalists`, { ...auth, "accept-encoding": BROWSER });
    assert.equal(plain.status, 200);
    assert.equal(packed.status, 200);
    assert.equal(plain.headers.get("content-encoding"), undefined);
    assert.equal(packed.headers.get("content-encoding"), "gzip");
    assert.equal(packed.headers.get("vary"), "Accept-Encoding");
    assert.equal(packed.headers.get("cache-control"), "no-store");
    assert.ok(packed.body.length < plain.body.length / 3, `${packed.body.length} bytes sent`);
    assert.deepEqual(
      JSON.parse(new TextDecoder().decode(gunzipSync(packed.body))),
      JSON.parse(new TextDecoder().decode(plain.body)),
    );
  } finally {
    await server.shutdown();
    api.close();
  }
});
