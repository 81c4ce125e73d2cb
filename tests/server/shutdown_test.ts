/**
 * Graceful shutdown (docs/deploying.md): main.ts as a subprocess, a request in flight (its body
 * sent slowly, so the body reader waits), SIGTERM. The request still gets its normal answer, new
 * connections are refused, the process exits 0 within SHUTDOWN_TIMEOUT_MS; and a request that never
 * ends does not hold the exit beyond that bound.
 */
import assert from "node:assert/strict";
import { startMain } from "./main_process.ts";

const PATH = "/bonita/scmapi/expense/pwacheckvalidation";
const enc = new TextEncoder();

/** Opens a connection and sends a POST's header and the first `sent` bytes of `body`. */
async function startPost(port: number, body: string, sent: number) {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const head = `POST ${PATH} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
    `Device-Id: shutdown-test-device-1\r\nContent-Length: ${enc.encode(body).length}\r\n` +
    `Connection: close\r\n\r\n`;
  await conn.write(enc.encode(head + body.slice(0, sent)));
  const answer = (async () => {
    const chunks: Uint8Array[] = [];
    const buf = new Uint8Array(16 * 1024);
    for (;;) {
      const n = await conn.read(buf).catch(() => null);
      if (n === null) break;
      chunks.push(buf.slice(0, n));
    }
    try {
      conn.close();
    } catch { /* closed */ }
    const text = new TextDecoder().decode(
      Uint8Array.from(chunks.flatMap((c) => [...c])),
    );
    return text;
  })();
  return { rest: () => conn.write(enc.encode(body.slice(sent))), answer };
}

function parseAnswer(raw: string): { status: number; json: unknown } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);
  const json = JSON.parse(raw.slice(raw.indexOf("{"), raw.lastIndexOf("}") + 1));
  return { status, json };
}

async function refused(port: number): Promise<boolean> {
  try {
    const c = await Deno.connect({ hostname: "127.0.0.1", port });
    c.close();
    return false;
  } catch (e) {
    return e instanceof Deno.errors.ConnectionRefused;
  }
}

function env(dir: string, extra: Record<string, string> = {}) {
  return {
    APP_ENV: "development",
    KV_PATH: `${dir}/qcard.kv`,
    PORT: "0",
    DEMO_HISTORY: "false",
    PIN_HASH_ITERATIONS: "1000",
    ...extra,
  };
}

Deno.test({
  name: "[shutdown] SIGTERM: the request in flight gets its answer, new ones are refused, exit 0",
  ignore: Deno.build.os === "windows",
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "qcard-shutdown-" });
    const p = await startMain(env(dir, { SHUTDOWN_TIMEOUT_MS: "8000" }));
    try {
      const body = JSON.stringify({ verificationcode: "00000" });
      // The same call made whole first: its answer is the one expected after the signal.
      const ref = await startPost(p.port, body, body.length);
      const expected = parseAnswer(await ref.answer);
      assert.ok(
        expected.status >= 200 && expected.status < 500,
        `normal answer ${expected.status}`,
      );

      const slow = await startPost(p.port, body, 5);
      await new Promise((r) => setTimeout(r, 200));
      const signalled = performance.now();
      p.child.kill("SIGTERM");
      await p.waitLine(/"msg":"shutdown"/, 5_000);
      // The listener is closed at once; wait a moment for the signal handler to get there.
      let closed = false;
      for (let i = 0; i < 20 && !closed; i++) {
        closed = await refused(p.port);
        if (!closed) await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(closed, "new connections are refused after SIGTERM");
      assert.equal(
        await Promise.race([
          p.status.then(() => "exited"),
          new Promise((r) => setTimeout(r, 300, "up")),
        ]),
        "up",
        "the process waits for the answer in flight",
      );
      await slow.rest();
      const got = parseAnswer(await slow.answer);
      assert.deepEqual(got, expected, "the in-flight request got its normal answer");
      const s = await p.status;
      assert.equal(s.code, 0, p.stderr());
      assert.ok(performance.now() - signalled < 8_000, "exited within the bound");
      // The development outbox prints its mails as plain lines (never in production).
      const logged = p.lines.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
      assert.ok(logged.some((e) => e.msg === "stopped"), "logged its stop");
      assert.ok(
        logged.some((e) => e.msg === "request" && e.path === PATH && e.status === got.status),
        "the in-flight request was logged",
      );
    } finally {
      try {
        p.child.kill("SIGKILL");
      } catch { /* exited */ }
      await p.status;
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "[shutdown] a request that never ends holds the exit no longer than SHUTDOWN_TIMEOUT_MS",
  ignore: Deno.build.os === "windows",
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "qcard-shutdown-" });
    const p = await startMain(env(dir, { SHUTDOWN_TIMEOUT_MS: "1000" }));
    let slow;
    try {
      const body = JSON.stringify({ verificationcode: "00000" });
      slow = await startPost(p.port, body, 3);
      await new Promise((r) => setTimeout(r, 200));
      const signalled = performance.now();
      p.child.kill("SIGTERM");
      const s = await p.status;
      const took = performance.now() - signalled;
      assert.equal(s.code, 0, p.stderr());
      assert.ok(took >= 900, `waited for the bound (${Math.round(took)} ms)`);
      assert.ok(took < 5_000, `exited soon after the bound (${Math.round(took)} ms)`);
      assert.ok(p.lines.some((l) => /answers still in flight at the bound/.test(l)));
    } finally {
      try {
        p.child.kill("SIGKILL");
      } catch { /* exited */ }
      await p.status;
      await slow?.answer;
      await Deno.remove(dir, { recursive: true });
    }
  },
});
