/**
 * Replays of the adversarial test's findings (docs/security.md): what faces the network — the
 * development pages (loopback Host only, DEV_SECRET, none in production), aborted, stalled and
 * GET bodies, and no activation code in production logs. One test goes through a real socket.
 */
import assert from "node:assert/strict";
import { DEMO, withApp } from "../helpers.ts";
import { bearer } from "./api.ts";
import { E } from "./security_fixture.ts";

/** GET `path` over a real loopback socket with the given Host: the status line's code. */
async function statusWithHost(port: number, path: string, host: string): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(
      new TextEncoder().encode(
        `GET ${path} HTTP/1.1\r\nHost: ${host}\r\naccept: application/json\r\n` +
          `connection: close\r\n\r\n`,
      ),
    );
    let text = "";
    const buf = new Uint8Array(65536);
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
    return Number(text.slice(9, 12));
  } finally {
    try {
      conn.close();
    } catch { /* closed by the server */ }
  }
}

// ---------------------------------------------------------------------------------------------
// Finding 4: the outbox on the network

Deno.test(
  "[security] /_outbox answers loopback only (or DEV_SECRET), never a proxied or remote caller",
  withApp(async (api) => {
    const get = (addr: string | null, headers: Record<string, string> = {}) =>
      api.app.request("/_outbox", { headers: { accept: "application/json", ...headers } }, {
        remoteAddr: addr ? { hostname: addr } : undefined,
      });
    assert.equal((await get("127.0.0.1")).status, 200);
    assert.equal((await get("::1")).status, 200);
    assert.equal((await get("::ffff:127.0.0.1")).status, 200);
    for (const remote of ["203.0.113.5", "10.0.0.2", "::ffff:198.51.100.1", "fe80::1", null]) {
      const r = await get(remote);
      assert.equal(r.status, 404, `from ${remote}`);
      assert.ok(!(await r.text()).match(/\d{5}/), "no code leaks");
    }
    // A reverse proxy on this host relays strangers from loopback: not trusted as local.
    assert.equal((await get("127.0.0.1", { "x-forwarded-for": "203.0.113.5" })).status, 404);
    assert.equal((await get("127.0.0.1", { forwarded: "for=203.0.113.5" })).status, 404);
    // No secret configured: a header cannot open it.
    assert.equal((await get("203.0.113.5", { "x-dev-secret": "x".repeat(32) })).status, 404);
  }),
);

Deno.test(
  "[security] development pages answer a loopback Host only: a rebinding page (foreign Host) reads no codes",
  withApp(async (api) => {
    const server = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen: () => {} },
      (req, info) => api.app.fetch(req, { remoteAddr: info.remoteAddr }),
    );
    const port = server.addr.port;
    try {
      // A name the attacker controls, resolved to 127.0.0.1 (DNS rebinding): the peer is
      // loopback, the Host is not.
      for (
        const host of [`evil.example:${port}`, "evil.example", `localhost.evil.example:${port}`]
      ) {
        for (const path of ["/_outbox", "/_issuer", "/_issuer/issuer.css", "/_anything"]) {
          assert.equal(await statusWithHost(port, path, host), 404, `${host} ${path}`);
        }
      }
      for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, "localhost", "LOCALHOST"]) {
        assert.equal(await statusWithHost(port, "/_outbox", host), 200, host);
        assert.equal(await statusWithHost(port, "/_issuer", host), 200, host);
      }
      // In-process (app.request's URL is http://localhost): a Host header alone decides too.
      const foreign = await api.app.request("/_outbox", { headers: { host: "evil.example" } }, {
        remoteAddr: { hostname: "127.0.0.1" },
      });
      assert.equal(foreign.status, 404);
      await foreign.body?.cancel();
    } finally {
      await server.shutdown();
    }
  }),
);

Deno.test(
  "[security] DEV_SECRET opens the development pages to a remote developer, the wrong one does not",
  withApp(async (api) => {
    const get = (headers: Record<string, string>) =>
      api.app.request("/_outbox", { headers }, { remoteAddr: { hostname: "203.0.113.5" } });
    assert.equal((await get({ "x-dev-secret": "correct-horse-battery-staple" })).status, 200);
    assert.equal((await get({ "x-dev-secret": "correct-horse-battery-stapler" })).status, 404);
    assert.equal((await get({})).status, 404);
  }, { DEV_SECRET: "correct-horse-battery-staple" }),
);

Deno.test(
  "[security] in production there is no outbox: /_outbox is 404 even from loopback",
  withApp(async (api) => {
    const r = await api.app.request("/_outbox", {}, { remoteAddr: { hostname: "127.0.0.1" } });
    assert.equal(r.status, 404);
    await r.body?.cancel();
  }, {
    APP_ENV: "production",
    MAIL_TRANSPORT: "smtp",
    SMTP_HOST: "127.0.0.1",
    SMTP_PORT: "9",
    DEMO_ORG: "false",
  }),
);

// ---------------------------------------------------------------------------------------------
// Finding 8: aborted bodies

Deno.test(
  "[security] a body aborted mid-stream answers 400 JSON, logs nothing, no stack trace",
  withApp(async (api) => {
    const logged: unknown[] = [];
    const [err, warn] = [console.error, console.warn];
    console.error = (...a: unknown[]) => void logged.push(a);
    console.warn = (...a: unknown[]) => void logged.push(a);
    // Bearer calls read their body only once the bearer is known (engineering.md §6): they get one.
    const { token } = await api.activate(DEMO.employee);
    try {
      for (const path of ["pwacheckvalidation", "pwaexpenserequestcreate", "nope"]) {
        const body = new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(new TextEncoder().encode('{"verificationcode": "12'));
            c.error(new Error("connection reset by peer"));
          },
        });
        const res = await api.app.request(`/bonita${E}/${path}`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "device-id": api.newDeviceId(),
            ...(path === "pwacheckvalidation" ? {} : bearer(token)),
          },
          body,
          duplex: "half",
        } as RequestInit);
        const text = await res.text();
        assert.equal(res.status, 400, `${path}: ${text}`);
        assert.equal(JSON.parse(text).error, "body_unreadable");
        assert.ok(!/at .*\.ts|Error:/.test(text), text);
      }
    } finally {
      console.error = err;
      console.warn = warn;
    }
    assert.deepEqual(logged, []);
  }),
);

Deno.test(
  "[security] over a real socket: a body cut off mid-way logs nothing; a stalled one gets 408",
  withApp(async (api) => {
    const logged: unknown[] = [];
    const err = console.error;
    console.error = (...a: unknown[]) => void logged.push(a);
    const server = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen: () => {} },
      (req, info) => api.app.fetch(req, { remoteAddr: info.remoteAddr }),
    );
    try {
      const head = (len: number) =>
        `POST /bonita${E}/pwacheckvalidation HTTP/1.1\r\nHost: x\r\n` +
        `content-type: application/json\r\ndevice-id: ${api.newDeviceId()}\r\n` +
        `content-length: ${len}\r\n\r\n`;
      const enc = new TextEncoder();
      // Cut off: half the body, then the client hangs up.
      const cut = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
      await cut.write(enc.encode(head(100) + '{"verificationcode":'));
      cut.close();
      // Stalled: half the body, then nothing; the server answers 408 after BODY_TIMEOUT_MS.
      const stalled = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
      await stalled.write(enc.encode(head(100) + '{"verificationcode":'));
      const buf = new Uint8Array(4096);
      const n = await stalled.read(buf);
      const answer = new TextDecoder().decode(buf.subarray(0, n ?? 0));
      assert.match(answer, /^HTTP\/1\.1 408/);
      assert.match(answer, /"body_timeout"/);
      stalled.close();
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      await server.shutdown();
      console.error = err;
    }
    assert.deepEqual(logged, [], "nothing logged for a client's broken body");
  }, { BODY_TIMEOUT_MS: "300" }),
);

// ---------------------------------------------------------------------------------------------
// Finding 4, second half: codes printed to stdout

Deno.test("[security] in production no activation code reaches the logs, mail server down or not", async () => {
  const lines: string[] = [];
  const keep = (...a: unknown[]) => void lines.push(a.map(String).join(" "));
  const saved = [console.log, console.error, console.warn, console.info];
  [console.log, console.error, console.warn, console.info] = [keep, keep, keep, keep];
  // Nothing listens on this port: every delivery attempt fails and is retried (and logged).
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (closed.addr as Deno.NetAddr).port;
  closed.close();
  const { testApp, orgFileWithUsers } = await import("../helpers.ts");
  // Production never loads the demo organisation: the same users come from an ORG_FILE.
  const org = await orgFileWithUsers(0);
  const api = await testApp({
    ORG_FILE: org.file,
    APP_ENV: "production",
    MAIL_TRANSPORT: "smtp",
    SMTP_HOST: "127.0.0.1",
    SMTP_PORT: String(port),
    SMTP_TIMEOUT_MS: "200",
    MESSAGE_BACKOFF_MS: "20",
    MESSAGE_BACKOFF_MAX_MS: "40",
  }, { deliver: true, log: keep });
  let codes: string[] = [];
  try {
    await new Promise((r) => setTimeout(r, 800));
    for await (const e of api.kv.list<{ text?: string }>({ prefix: ["msg"] })) {
      const code = /\b(\d{5})\b/.exec(e.value?.text ?? "")?.[1];
      if (code) codes.push(code);
    }
  } finally {
    await api.close();
    [console.log, console.error, console.warn, console.info] = saved;
    await Deno.remove(org.file);
  }
  codes = [...new Set(codes)];
  assert.ok(codes.length >= 5, `the demo's codes are queued (${codes.length})`);
  assert.ok(lines.length > 0, "delivery failures were logged");
  for (const code of codes) {
    assert.ok(!lines.some((l) => l.includes(code)), `code ${code} reached the logs`);
  }
});

Deno.test(
  "[security] a GET that carries a body is answered as a GET, never a 500",
  withApp(async (api) => {
    const { token } = await api.activate(DEMO.employee);
    const server = Deno.serve(
      { port: 0, hostname: "127.0.0.1", onListen: () => {} },
      (req, info) => api.app.fetch(req, { remoteAddr: info.remoteAddr }),
    );
    try {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
      const body = '{"x":1}';
      await conn.write(
        new TextEncoder().encode(
          `GET /bonita${E}/pwalists HTTP/1.1\r\nHost: x\r\nauthorization: Bearer ${token}\r\n` +
            `content-type: application/json\r\ncontent-length: ${body.length}\r\n` +
            `connection: close\r\n\r\n${body}`,
        ),
      );
      const chunks: Uint8Array[] = [];
      const buf = new Uint8Array(65536);
      for (;;) {
        const n = await conn.read(buf);
        if (n === null) break;
        chunks.push(buf.slice(0, n));
      }
      conn.close();
      const head = new TextDecoder().decode(chunks[0]).split("\r\n")[0];
      assert.equal(head, "HTTP/1.1 200 OK");
    } finally {
      await server.shutdown();
    }
  }),
);
