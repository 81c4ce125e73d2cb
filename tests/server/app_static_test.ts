/**
 * This file: the outbox page, configuration guards, the shell, static serving (the same subject
 * goes on in app_test.ts).
 *
 * The app shell around the API: security headers on every answer, no-store on the API,
 * the demo outbox, configuration guards and static serving. In-process, no sockets.
 */
import assert from "node:assert/strict";
import { createApp } from "../../server/app/app.ts";
import { makeDeps } from "../../server/app/boot.ts";
import { parseConfig } from "../../server/config.ts";
import { DEMO, testApp, withApp } from "../helpers.ts";
import { assertErrorBody, assertSecurityHeaders, E, get, staticFixture } from "./app_helpers.ts";

const DIST = new URL("../../dist/preact/", import.meta.url);

const distIndex = new URL("index.html", DIST);

const distExists = (() => {
  try {
    return Deno.statSync(distIndex).isFile;
  } catch {
    return false;
  }
})();

// ---------------------------------------------------------------------------------------------
// The demo outbox

Deno.test(
  "[app] /_outbox with Accept: application/json lists messages newest first",
  withApp(async (api) => {
    await new Promise((r) => setTimeout(r, 5)); // a later millisecond than the seeding mail
    const sent = await api.call("POST", `${E}/pwasecretanswer`, {
      body: { email: DEMO.manager, answer: "Pasta", questOid: "q-favourite-food" },
      headers: { "device-id": api.newDeviceId() },
    });
    assert.equal(sent.status, 200, sent.text);
    const r = await get(api, "/_outbox", { accept: "application/json" });
    assert.equal(r.status, 200);
    assert.match(r.res.headers.get("content-type") ?? "", /^application\/json/);
    assert.equal(r.res.headers.get("cache-control"), "no-store");
    assertSecurityHeaders(r.res, "outbox json");
    const msgs = r.json.messages as {
      to: string;
      subject: string;
      text: string;
      sentAt: string;
      id: string;
    }[];
    assert.equal(msgs.length, 6, "5 seeded activation mails + 1 from the secret answer");
    assert.equal(msgs[0].to, DEMO.manager, "the newest message comes first");
    for (let i = 1; i < msgs.length; i++) {
      assert.ok(msgs[i - 1].sentAt >= msgs[i].sentAt, `not newest first at ${i}`);
    }
    // The newest message is the one that carries the second code for the manager.
    const codes = msgs.filter((m) => m.to === DEMO.manager).map((m) =>
      /code is (\d{5})/.exec(m.text)?.[1]
    );
    assert.equal(codes.length, 2);
    assert.equal(await api.latestCode(DEMO.manager), codes[0]);

    const only = await get(api, `/_outbox?to=${encodeURIComponent(DEMO.approver)}`, {
      accept: "application/json",
    });
    const mine = only.json.messages as { to: string }[];
    assert.equal(mine.length, 1);
    assert.equal(mine[0].to, DEMO.approver);
  }),
);

Deno.test(
  "[app] /_outbox without Accept: application/json is an HTML page with HTML escaped",
  withApp(async (api) => {
    await api.deps.outbox!.send({
      to: "x@demo.example",
      subject: `<script>alert("x")</script>`,
      text: "<img src=x onerror=alert(1)> & more",
    });
    for (const accept of [undefined, "text/html,application/xhtml+xml,*/*;q=0.8"]) {
      const r = await get(api, "/_outbox", accept ? { accept } : {});
      assert.equal(r.status, 200);
      assert.match(r.res.headers.get("content-type") ?? "", /^text\/html/);
      assert.match(r.text, /^<!doctype html>/i);
      assert.match(r.text, /QCard outbox/);
      assert.ok(r.text.includes(DEMO.employee));
      assert.match(r.text, /activation code is \d{5}/);
      assert.ok(!r.text.includes("<script>alert"), "subject must be escaped");
      assert.ok(!r.text.includes("<img src=x"), "text must be escaped");
      assert.ok(r.text.includes("&#60;script&#62;") || r.text.includes("&lt;script&gt;"));
      assert.equal(r.res.headers.get("cache-control"), "no-store");
      assertSecurityHeaders(r.res, "outbox html");
    }
  }),
);

Deno.test("[app] /_outbox is 404 when the app is built with MAIL_TRANSPORT=smtp", async () => {
  const config = parseConfig({
    KV_PATH: ":memory:",
    MAIL_TRANSPORT: "smtp",
    SMTP_HOST: "127.0.0.1",
    DEMO_ORG: "false",
    PIN_HASH_ITERATIONS: "1000",
    STATIC_DIR: "./no-such-static-dir",
  });
  const kv = await Deno.openKv(":memory:");
  try {
    const deps = await makeDeps(config, kv, { log: () => {} });
    assert.equal(deps.outbox, undefined);
    assert.equal(deps.mail.kind, "smtp");
    const app = createApp(deps);
    for (const accept of ["application/json", "text/html"]) {
      const res = await app.request("/_outbox", { headers: { accept } });
      assert.equal(res.status, 404);
      const body = await res.json();
      assert.equal(body.error, "not_found");
      assert.equal(typeof body.message, "string");
      assertSecurityHeaders(res, "smtp outbox 404");
    }
    // The API itself still answers on this set-up.
    const init = await app.request("/bonita/qtservlet//appcolor");
    assert.equal(init.status, 200);
  } finally {
    kv.close();
  }
});

// ---------------------------------------------------------------------------------------------
// Configuration

Deno.test("[app] parseConfig refuses the outbox in production", () => {
  assert.throws(() => parseConfig({ APP_ENV: "production" }), /MAIL_TRANSPORT/);
  assert.throws(
    () => parseConfig({ APP_ENV: "production", MAIL_TRANSPORT: "outbox" }),
    /MAIL_TRANSPORT/,
  );
  // SMTP without a host is refused too; with a host production is accepted.
  assert.throws(() => parseConfig({ APP_ENV: "production", MAIL_TRANSPORT: "smtp" }), /SMTP_HOST/);
  const ok = parseConfig({
    APP_ENV: "production",
    MAIL_TRANSPORT: "smtp",
    SMTP_HOST: "mail.example",
  });
  assert.equal(ok.APP_ENV, "production");
  assert.equal(ok.MAIL_TRANSPORT, "smtp");
  // No demo organisation in production (its mails would go out for real): off, and refused.
  assert.equal(ok.DEMO_ORG, false);
  assert.throws(
    () =>
      parseConfig({
        APP_ENV: "production",
        MAIL_TRANSPORT: "smtp",
        SMTP_HOST: "mail.example",
        DEMO_ORG: "true",
      }),
    /DEMO_ORG/,
  );
  // An edge in relay mode sends no mail: production needs no mail server there.
  assert.equal(
    parseConfig({ APP_ENV: "production", UPSTREAM_URL: "https://backend.example" }).DEMO_ORG,
    false,
  );
});

Deno.test("[app] parseConfig defaults: demo set-up, loopback, 1-day codes, 90-day tokens", () => {
  const c = parseConfig({});
  assert.equal(c.APP_ENV, "development");
  assert.equal(c.MAIL_TRANSPORT, "outbox");
  assert.equal(c.CODE_TTL_MINUTES, 24 * 60);
  assert.equal(c.TOKEN_IDLE_DAYS, 90);
  assert.equal(c.DEMO_ORG, true);
  // Loopback unless LISTEN_HOST says otherwise; HOSTNAME (a container's name) is not read.
  assert.equal(c.LISTEN_HOST, "127.0.0.1");
  assert.equal(parseConfig({ HOSTNAME: "qcard-7f9c" }).LISTEN_HOST, "127.0.0.1");
  assert.equal(parseConfig({ LISTEN_HOST: "0.0.0.0" }).LISTEN_HOST, "0.0.0.0");
  // Empty values count as unset; bad values are named.
  assert.equal(parseConfig({ CODE_TTL_MINUTES: "" }).CODE_TTL_MINUTES, 24 * 60);
  assert.throws(() => parseConfig({ CODE_TTL_MINUTES: "soon" }), /CODE_TTL_MINUTES/);
  assert.throws(() => parseConfig({ PIN_HASH_ITERATIONS: "10" }), /PIN_HASH_ITERATIONS/);
});

Deno.test("[app] / answers the PIN pad's shell to a device with the PIN length cookie", async () => {
  const fx = await staticFixture();
  const api = await testApp({ STATIC_DIR: fx.dir });
  try {
    const first = await get(api, "/");
    assert.equal(first.text, "<!doctype html><title>QCard shell</title>", "no build shell yet");
    const asked = (path: string, cookie: string) => get(api, path, { cookie });
    assert.equal((await asked("/", "qc_pinlength=6")).text, first.text);
    await Deno.writeTextFile(`${fx.dir}/unlock.html`, "<!doctype html><title>PIN pad</title>");
    for (const path of ["/", "/index.html"]) {
      const pad = await asked(path, "qc_deviceid=abcdefgh; qc_pinlength=6");
      assert.equal(pad.text, "<!doctype html><title>PIN pad</title>", path);
      assert.equal(pad.res.headers.get("cache-control"), "no-cache");
      assert.match(
        pad.res.headers.get("vary") ?? "",
        /\bCookie\b/,
        "shared caches key it by cookie",
      );
      const fresh = await asked(path, "qc_deviceid=abcdefgh");
      assert.equal(fresh.text, first.text, `${path} without the PIN length cookie`);
    }
  } finally {
    await fx.cleanup();
  }
});

Deno.test("[app] static files: shell no-cache, hashed assets immutable, types and headers", async () => {
  const fx = await staticFixture();
  const api = await testApp({ STATIC_DIR: fx.dir });
  try {
    const root = await get(api, "/");
    assert.equal(root.status, 200);
    assert.equal(root.text, "<!doctype html><title>QCard shell</title>");
    assert.match(root.res.headers.get("content-type") ?? "", /^text\/html/);
    assert.equal(root.res.headers.get("cache-control"), "no-cache");
    assertSecurityHeaders(root.res, "static /");

    const index = await get(api, "/index.html");
    assert.equal(index.res.headers.get("cache-control"), "no-cache");

    const asset = await get(api, "/assets/app-3f2a1b.js");
    assert.equal(asset.status, 200);
    assert.match(asset.res.headers.get("content-type") ?? "", /^text\/javascript/);
    assert.equal(asset.res.headers.get("cache-control"), "public, max-age=31536000, immutable");

    const sw = await get(api, "/sw.js");
    assert.equal(sw.status, 200);
    assert.equal(sw.res.headers.get("cache-control"), "no-cache");

    const manifest = await get(api, "/manifest.webmanifest");
    assert.equal(manifest.status, 200);
    assert.match(manifest.res.headers.get("content-type") ?? "", /^application\/manifest\+json/);

    const missing = await get(api, "/assets/app-000000.js");
    assertErrorBody(missing, 404, "not_found");
  } finally {
    api.close();
    await fx.cleanup();
  }
});

Deno.test("[app] static serving never leaves the static dir", async () => {
  const fx = await staticFixture();
  const api = await testApp({ STATIC_DIR: fx.dir });
  try {
    for (
      const path of [
        "/..%2fsecret.json",
        "/%2e%2e%2fsecret.json",
        "/assets/..%2f..%2fsecret.json",
        "/..%5csecret.json",
        "/%2e%2e/secret.json",
        "/../secret.json",
        "/index.html%00.json",
      ]
    ) {
      const r = await get(api, path);
      assert.ok(!r.text.includes("do-not-serve"), `${path} leaked a file outside the static dir`);
      assert.ok(
        r.status === 404 || r.status === 400 ||
          (r.status === 200 && r.text.includes("QCard shell")),
        `${path}: ${r.status}`,
      );
      assert.ok(r.status < 500, `${path}: ${r.status}`);
    }
  } finally {
    api.close();
    await fx.cleanup();
  }
});

Deno.test({
  name: "[app] malformed percent-encoding in a path answers 4xx JSON, never 500",
  // A malformed percent-encoding is a bad path, never a server failure.
  fn: withApp(async (api) => {
    const orig = console.error;
    console.error = () => {};
    try {
      for (const path of ["/%zz", "/x%", "/%E0%A4%A.js", "/assets/%C0.js"]) {
        const r = await get(api, path);
        assert.ok(r.status >= 400 && r.status < 500, `${path}: ${r.status} ${r.text}`);
        assertErrorBody(r, r.status);
        assertSecurityHeaders(r.res, path);
      }
    } finally {
      console.error = orig;
    }
  }),
});

Deno.test({
  name: "[app] the built dist/preact/index.html is served at / with Cache-Control: no-cache",
  ignore: !distExists,
  fn: withApp(async (api) => {
    const r = await get(api, "/");
    assert.equal(r.status, 200);
    assert.equal(r.text, await Deno.readTextFile(distIndex));
    assert.match(r.res.headers.get("content-type") ?? "", /^text\/html/);
    assert.equal(r.res.headers.get("cache-control"), "no-cache");
    // One inline script, the boot script, which the CSP allows by its hash and nothing else.
    const inline = [...r.text.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi)];
    assert.equal(inline.length, 1, "index.html: one inline <script>");
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(inline[0][1]));
    const hash = `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`;
    assertSecurityHeaders(r.res, "dist /", [hash]);
  }, { STATIC_DIR: DIST.pathname }),
});
