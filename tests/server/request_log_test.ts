/**
 * Operating it (docs/deploying.md): one JSON log line a request with a request id (also sent back),
 * method, path without query, status and duration; never a token, code, PIN, email or device
 * id; LOG_LEVEL filters; 5xx log at error.
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import { createApp } from "../../server/app/app.ts";
import { createLogger, type LogLevel } from "../../server/log.ts";
import { requestLog } from "../../server/middleware/request_log.ts";
import { parseConfig } from "../../server/config.ts";
import type { AppEnv } from "../../server/domain/env.ts";
import { healthRoutes } from "../../server/routes/health.ts";
import { DEMO, testApp } from "../helpers.ts";

function captured(level: LogLevel = "info") {
  const lines: string[] = [];
  return { lines, logger: createLogger(level, (l) => lines.push(l)) };
}

Deno.test("[request_log] an activation and a call log one safe JSON line each", async () => {
  const api = await testApp();
  try {
    const { lines, logger } = captured();
    const app = createApp(api.deps, { logger });
    const deviceId = api.newDeviceId();
    const code = await api.latestCode(DEMO.employee);
    const pin = "135790";
    const post = (path: string, body: unknown, extra: Record<string, string> = {}) =>
      app.request(`/bonita${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "device-id": deviceId, ...extra },
        body: JSON.stringify(body),
      });
    assert.equal(
      (await post("/scmapi/expense/pwacheckvalidation", { verificationcode: code })).status,
      200,
    );
    const confirm = await post("/scmapi/expense/pwaconfirmpin", { verificationcode: code, pin });
    assert.equal(confirm.status, 200);
    const token = String((await confirm.json()).token);
    const res = await app.request(
      `/bonita/qtservlet//appcolor?email=${encodeURIComponent(DEMO.employee)}&code=${code}`,
      { headers: { authorization: `Bearer ${token}`, "device-id": deviceId } },
    );
    await res.body?.cancel();
    const id = res.headers.get("x-request-id");
    assert.match(id ?? "", /^[0-9a-f-]{36}$/, "a generated id is sent back");

    assert.equal(lines.length, 3, "one line a request");
    const entries = lines.map((l) => JSON.parse(l));
    for (const e of entries) {
      assert.deepEqual(Object.keys(e).sort(), [
        "id",
        "level",
        "method",
        "ms",
        "msg",
        "path",
        "status",
        "t",
      ]);
      assert.equal(e.msg, "request");
      assert.equal(e.level, "info");
      assert.ok(!Number.isNaN(Date.parse(e.t)) && e.t.endsWith("Z"));
      assert.equal(typeof e.ms, "number");
      assert.equal(Math.round(e.ms * 10) / 10, e.ms, "one decimal");
    }
    assert.deepEqual(entries.map((e) => [e.method, e.path, e.status]), [
      ["POST", "/bonita/scmapi/expense/pwacheckvalidation", 200],
      ["POST", "/bonita/scmapi/expense/pwaconfirmpin", 200],
      ["GET", "/bonita/qtservlet//appcolor", res.status],
    ]);
    assert.equal(entries[2].id, id);
    const all = lines.join("\n");
    for (const secret of [token, code, pin, DEMO.employee, deviceId, "email=", "Bearer"]) {
      assert.ok(!all.includes(secret), `the log carries no ${secret.slice(0, 6)}…`);
    }
  } finally {
    await api.close();
  }
});

Deno.test("[request_log] X-Request-Id is kept only when it looks like an id", async () => {
  const { lines, logger } = captured();
  const app = new Hono();
  app.use("*", requestLog(logger));
  app.get("/x", (c) => c.text("ok"));
  const good = await app.request("/x", { headers: { "x-request-id": "lb-1234.abcd_EF" } });
  assert.equal(good.headers.get("x-request-id"), "lb-1234.abcd_EF");
  for (
    const bad of ["short", "a".repeat(65), "abc def ghi", 'x"},{"level":"error"', "ab/cd/ef/gh"]
  ) {
    const r = await app.request("/x", { headers: { "x-request-id": bad } });
    const sent = r.headers.get("x-request-id")!;
    assert.notEqual(sent, bad);
    assert.match(sent, /^[0-9a-f-]{36}$/);
  }
  assert.equal(lines.length, 6);
  assert.equal(JSON.parse(lines[0]).id, "lb-1234.abcd_EF");
});

Deno.test("[request_log] 5xx log at error; LOG_LEVEL filters; off is silent", async () => {
  const make = (level: LogLevel) => {
    const cap = captured(level);
    const app = new Hono();
    app.use("*", requestLog(cap.logger));
    app.get("/ok", (c) => c.text("ok"));
    app.get("/boom", () => {
      throw new Error("secret 4111111111111111");
    });
    app.onError((_e, c) => c.json({ error: "internal" }, 500));
    return { app, lines: cap.lines };
  };
  const info = make("info");
  await info.app.request("/ok");
  const boom = await info.app.request("/boom?pan=4111111111111111");
  assert.equal(boom.status, 500);
  assert.ok(boom.headers.get("x-request-id"));
  assert.deepEqual(info.lines.map((l) => [JSON.parse(l).level, JSON.parse(l).status]), [
    ["info", 200],
    ["error", 500],
  ]);
  assert.ok(!info.lines.join("").includes("4111"), "no query, no error text in request lines");

  const warn = make("warn");
  await warn.app.request("/ok");
  await warn.app.request("/boom");
  assert.deepEqual(warn.lines.map((l) => JSON.parse(l).status), [500]);

  const off = make("off");
  await off.app.request("/boom");
  assert.deepEqual(off.lines, []);
  const debug = make("debug");
  await debug.app.request("/ok");
  assert.equal(debug.lines.length, 1);
});

Deno.test("[request_log] config: LOG_LEVEL and SHUTDOWN_TIMEOUT_MS", () => {
  const base = { KV_PATH: ":memory:" };
  assert.equal(parseConfig(base).LOG_LEVEL, "info");
  assert.equal(parseConfig(base).SHUTDOWN_TIMEOUT_MS, 10_000);
  assert.equal(parseConfig({ ...base, LOG_LEVEL: "off" }).LOG_LEVEL, "off");
  assert.equal(parseConfig({ ...base, SHUTDOWN_TIMEOUT_MS: "2500" }).SHUTDOWN_TIMEOUT_MS, 2500);
  assert.throws(() => parseConfig({ ...base, LOG_LEVEL: "verbose" }), /LOG_LEVEL/);
  assert.throws(() => parseConfig({ ...base, SHUTDOWN_TIMEOUT_MS: "-1" }), /SHUTDOWN_TIMEOUT_MS/);
});

Deno.test("[request_log] /healthz answers with no data, and 503 when the store is gone", async () => {
  const api = await testApp();
  try {
    const res = await api.app.request("/healthz");
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.status, "ok");
    assert.equal(body.upstream, undefined, "no upstream slot without UPSTREAM_URL");
  } finally {
    await api.close();
  }
  const closed = await api.app.request("/healthz");
  assert.equal(closed.status, 503);
  assert.deepEqual(await closed.json(), {
    status: "error",
    store: "unreachable",
    reason: "the store could not be read",
  });
});

Deno.test("[request_log] /healthz keeps a slot for the upstream in relay mode", async () => {
  const api = await testApp({ UPSTREAM_URL: "http://127.0.0.1:9/" });
  try {
    const withProbe = (probe?: () => Promise<boolean>) => {
      const app = new Hono<AppEnv>();
      app.use("*", async (c, next) => {
        c.set("deps", api.deps);
        await next();
      });
      app.route("/healthz", healthRoutes({ upstream: probe }));
      return app;
    };
    const unchecked = await withProbe().request("/healthz");
    assert.equal(unchecked.status, 200);
    assert.equal((await unchecked.json()).upstream, "unchecked");
    const up = await withProbe(() => Promise.resolve(true)).request("/healthz");
    assert.deepEqual([up.status, (await up.json()).upstream], [200, "ok"]);
    const down = await withProbe(() => Promise.resolve(false)).request("/healthz");
    const body = await down.json();
    assert.deepEqual([down.status, body.status, body.upstream], [503, "error", "unreachable"]);
    const thrown = await withProbe(() => Promise.reject(new Error("ECONNREFUSED")))
      .request("/healthz");
    assert.equal(thrown.status, 503);
  } finally {
    await api.close();
  }
});
