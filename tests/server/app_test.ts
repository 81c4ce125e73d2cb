/**
 * The app shell around the API: security headers on every answer, no-store on the API,
 * the demo outbox, configuration guards and static serving. In-process, no sockets.
 */
import assert from "node:assert/strict";
import { createApp } from "../../server/app/app.ts";
import { makeDeps } from "../../server/app/boot.ts";
import { parseConfig } from "../../server/config.ts";
import { DEMO, type TestApi, testApp, withApp } from "../helpers.ts";

const E = "/scmapi/expense";
const DIST = new URL("../../dist/preact/", import.meta.url);
const distIndex = new URL("index.html", DIST);
const distExists = (() => {
  try {
    return Deno.statSync(distIndex).isFile;
  } catch {
    return false;
  }
})();

/**
 * Asserts the security headers every answer must carry. `scripts`: the `'sha256-…'` of the
 * inline scripts the page may run (the static shells' boot script), else none.
 */
function assertSecurityHeaders(res: Response, what: string, scripts: string[] = []) {
  const csp = res.headers.get("content-security-policy");
  assert.ok(csp, `${what}: no Content-Security-Policy`);
  const directives = new Map(
    csp.split(";").map((d) => d.trim()).filter(Boolean).map((d) => {
      const [name, ...values] = d.split(/\s+/);
      return [name.toLowerCase(), values] as const;
    }),
  );
  assert.ok(!csp.includes("'unsafe-inline'"), `${what}: CSP allows unsafe-inline: ${csp}`);
  assert.ok(!csp.includes("'unsafe-eval'"), `${what}: CSP allows unsafe-eval: ${csp}`);
  assert.deepEqual(
    directives.get("script-src"),
    ["'self'", ...scripts],
    `${what}: script-src in ${csp}`,
  );
  assert.deepEqual(
    directives.get("frame-ancestors"),
    ["'none'"],
    `${what}: frame-ancestors in ${csp}`,
  );
  assert.ok(directives.has("default-src"), `${what}: no default-src in ${csp}`);
  assert.deepEqual(directives.get("object-src"), ["'none'"], `${what}: object-src in ${csp}`);

  const hsts = res.headers.get("strict-transport-security") ?? "";
  const maxAge = Number(/max-age=(\d+)/.exec(hsts)?.[1] ?? 0);
  assert.ok(maxAge >= 31_536_000, `${what}: HSTS max-age below one year: '${hsts}'`);
  assert.match(hsts, /includeSubDomains/i, `${what}: HSTS`);
  assert.equal(res.headers.get("x-content-type-options"), "nosniff", `${what}: nosniff`);
  assert.match(
    res.headers.get("referrer-policy") ?? "",
    /^(no-referrer|same-origin|strict-origin|strict-origin-when-cross-origin)$/,
    `${what}: Referrer-Policy`,
  );
  assert.equal(res.headers.get("x-frame-options"), "DENY", `${what}: X-Frame-Options`);
}

type Res = Awaited<ReturnType<TestApi["call"]>>;

function assertErrorBody(r: Res, status: number, error?: string) {
  assert.equal(r.status, status, r.text);
  assert.match(r.res.headers.get("content-type") ?? "", /^application\/json/);
  assert.equal(typeof r.json?.error, "string", r.text);
  assert.equal(typeof r.json?.message, "string", r.text);
  if (error) assert.equal(r.json.error, error);
}

/** A GET outside /bonita (the helper's `call` always prefixes /bonita). */
/** A GET as a caller on this machine (loopback), the only one development pages answer. */
const LOCAL = { remoteAddr: { hostname: "127.0.0.1" } };

async function get(api: TestApi, path: string, headers: Record<string, string> = {}) {
  const res = await api.app.request(path, { headers }, LOCAL);
  const text = await res.text();
  let json: Record<string, unknown> | null = null;
  try {
    json = JSON.parse(text);
  } catch { /* not JSON */ }
  return { status: res.status, res, text, json: json as Record<string, unknown> };
}

// ---------------------------------------------------------------------------------------------
// Security headers

Deno.test(
  "[app] security headers on a normal API answer",
  withApp(async (api) => {
    const r = await api.call("GET", "/qtservlet//appcolor");
    assert.equal(r.status, 200);
    assertSecurityHeaders(r.res, "200 appcolor");
    const { token } = await api.activate(DEMO.employee);
    const l = await api.call("GET", `${E}/pwalists`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(l.status, 200);
    assertSecurityHeaders(l.res, "200 pwalists");
  }),
);

Deno.test(
  "[app] security headers on a 404 (outside and inside /bonita)",
  withApp(async (api) => {
    const r = await get(api, "/definitely-not-here");
    assertErrorBody(r, 404, "not_found");
    assertSecurityHeaders(r.res, "404 outside /bonita");
    const { token } = await api.activate(DEMO.employee);
    const b = await api.call("GET", `${E}/pwanothing`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assertErrorBody(b, 404, "not_found");
    assertSecurityHeaders(b.res, "404 inside /bonita");
  }),
);

Deno.test(
  "[app] security headers on a 401",
  withApp(async (api) => {
    const r = await api.call("GET", `${E}/pwalists`);
    assertErrorBody(r, 401, "unauthorized");
    assertSecurityHeaders(r.res, "401");
  }),
);

Deno.test(
  "[app] security headers on a 400, a 413 and a 429",
  withApp(async (api) => {
    const h = { "device-id": api.newDeviceId() };
    const bad = await api.call("POST", `${E}/pwacheckvalidation`, { raw: "{", headers: h });
    assertErrorBody(bad, 400, "malformed_json");
    assertSecurityHeaders(bad.res, "400");
    const big = await api.call("POST", `${E}/pwacheckvalidation`, {
      raw: JSON.stringify({ verificationcode: "12345", pad: "x".repeat(65 * 1024) }),
      headers: { ...h, "content-type": "application/json" },
    });
    assertErrorBody(big, 413, "payload_too_large");
    assertSecurityHeaders(big.res, "413");
    let last: Res | undefined;
    const device = api.newDeviceId();
    for (let i = 0; i < 11; i++) {
      last = await api.call("POST", `${E}/pwaactivationemail`, {
        body: { email: DEMO.employee },
        headers: { "device-id": device },
      });
    }
    assertErrorBody(last!, 429, "rate_limited");
    assertSecurityHeaders(last!.res, "429");
  }),
);

Deno.test(
  "[app] an unexpected failure answers 500 JSON without details, with the security headers",
  withApp(async (api) => {
    api.deps.store.org.meta = () => Promise.reject(new Error("secret internal detail"));
    const errors: unknown[] = [];
    const orig = console.error;
    console.error = (...a: unknown[]) => void errors.push(a);
    try {
      const r = await api.call("GET", "/qtservlet/initialize");
      assertErrorBody(r, 500, "internal");
      assert.ok(!r.text.includes("secret internal detail"), r.text);
      assert.ok(!r.text.includes("session.ts"), "no stack trace in the answer");
      assertSecurityHeaders(r.res, "500");
      assert.equal(r.res.headers.get("cache-control"), "no-store");
    } finally {
      console.error = orig;
    }
    assert.equal(errors.length, 1, "the failure is logged once on the server");
  }),
);

// ---------------------------------------------------------------------------------------------
// Cache-Control on the API

Deno.test(
  "[app] every /bonita answer carries Cache-Control: no-store",
  withApp(async (api) => {
    const { token, deviceId } = await api.activate(DEMO.employee);
    const auth = { authorization: `Bearer ${token}` };
    const dev = { "device-id": api.newDeviceId() };
    const calls: [string, Res][] = [
      ["200 initialize", await api.call("GET", "/qtservlet/initialize")],
      ["200 appcolor", await api.call("GET", "/qtservlet//appcolor")],
      ["200 public lists", await api.call("GET", "/qtservlet/expense/pwalists")],
      ["200 pwalists", await api.call("GET", `${E}/pwalists`, { headers: auth })],
      ["200 translation", await api.call("GET", `${E}/pwatranslation`, { headers: dev })],
      [
        "200 checkregistered",
        await api.call("POST", `${E}/pwacheckregistered`, {
          body: { token },
          headers: { "device-id": deviceId },
        }),
      ],
      ["400 body", await api.call("POST", `${E}/pwacheckvalidation`, { body: {}, headers: dev })],
      ["400 json", await api.call("POST", `${E}/pwacheckvalidation`, { raw: "{", headers: dev })],
      ["401 lists", await api.call("GET", `${E}/pwalists`)],
      ["401 unknown", await api.call("GET", "/no/such/call")],
      ["404 unknown", await api.call("GET", "/no/such/call", { headers: auth })],
      [
        "403 wrong pin",
        await api.call("POST", `${E}/pwacheckpinvalid`, {
          body: { token, pin: "975310" },
          headers: { "device-id": deviceId },
        }),
      ],
      [
        "404 no activation",
        await api.call("POST", `${E}/pwaactivationemail`, {
          body: { email: "nobody@demo.example" },
          headers: dev,
        }),
      ],
      [
        "413",
        await api.call("POST", `${E}/pwacheckvalidation`, {
          raw: "x".repeat(70 * 1024),
          headers: { ...dev, "content-type": "application/json" },
        }),
      ],
    ];
    const seen = new Set<number>();
    for (const [what, r] of calls) {
      assert.ok(r.status < 500, `${what}: ${r.status} ${r.text}`);
      assert.equal(r.res.headers.get("cache-control"), "no-store", what);
      seen.add(r.status);
    }
    assert.deepEqual([...seen].sort(), [200, 400, 401, 403, 404, 413]);
  }),
);

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

// ---------------------------------------------------------------------------------------------
// Static serving

/** A throw-away static dir with a shell, a hashed asset, a service worker and a secret beside it. */
async function staticFixture() {
  const root = await Deno.makeTempDir({ prefix: "qcard-static-" });
  const dir = `${root}/www`;
  await Deno.mkdir(`${dir}/assets`, { recursive: true });
  await Deno.writeTextFile(`${dir}/index.html`, "<!doctype html><title>QCard shell</title>");
  await Deno.writeTextFile(`${dir}/assets/app-3f2a1b.js`, "console.log('app');");
  await Deno.writeTextFile(`${dir}/sw.js`, "self.addEventListener('fetch', () => {});");
  await Deno.writeTextFile(`${dir}/manifest.webmanifest`, '{"name":"QCard"}');
  await Deno.writeTextFile(`${root}/secret.json`, '{"secret":"do-not-serve"}');
  return { root, dir, cleanup: () => Deno.remove(root, { recursive: true }) };
}

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

Deno.test("[app] Cross-Origin-Opener-Policy: on every answer but a page the person opened", async () => {
  const fx = await staticFixture();
  const api = await testApp({ STATIC_DIR: fx.dir });
  const coop = (r: { res: Response }) => r.res.headers.get("cross-origin-opener-policy");
  try {
    const own = { "sec-fetch-site": "none", "sec-fetch-dest": "document" };
    // Address bar, bookmark, home-screen icon: no other page took part, no swap.
    const typed = await get(api, "/", own);
    assert.equal(typed.status, 200);
    assert.equal(coop(typed), null);
    const vary = typed.res.headers.get("vary") ?? "";
    for (const h of ["Sec-Fetch-Site", "Sec-Fetch-Dest", "Cookie"]) {
      assert.match(vary, new RegExp(`\\b${h}\\b`), `Vary: ${vary}`);
    }
    // Opened or linked from another site (or our own page), fetched by the service worker,
    // a browser that sends no Sec-Fetch headers: the policy.
    for (
      const headers of [
        { "sec-fetch-site": "cross-site", "sec-fetch-dest": "document" },
        { "sec-fetch-site": "same-site", "sec-fetch-dest": "document" },
        { "sec-fetch-site": "same-origin", "sec-fetch-dest": "document" },
        { "sec-fetch-site": "same-origin", "sec-fetch-dest": "empty" },
        { "sec-fetch-site": "none", "sec-fetch-dest": "empty" },
        {} as Record<string, string>,
      ]
    ) {
      const r = await get(api, "/", headers);
      assert.equal(r.status, 200);
      assert.equal(coop(r), "same-origin", JSON.stringify(headers));
    }
    // A JSON answer as the app fetches it: the policy (harmless on what is no document), no Vary
    // on the fetch headers.
    const json = await get(api, "/bonita/API/nothing-here", {
      "sec-fetch-site": "same-origin",
      "sec-fetch-dest": "empty",
    });
    assert.match(json.res.headers.get("content-type") ?? "", /^application\/json/);
    assert.equal(coop(json), "same-origin");
    assert.doesNotMatch(json.res.headers.get("vary") ?? "", /Sec-Fetch/);
  } finally {
    await fx.cleanup();
  }
});

Deno.test("[app] WebAssembly: only the receipt reader's files may compile it", async () => {
  const fx = await staticFixture();
  const api = await testApp({ STATIC_DIR: fx.dir });
  const scriptSrc = async (path: string) =>
    ((await get(api, path)).res.headers.get("content-security-policy") ?? "").split(";")
      .map((d) => d.trim()).find((d) => d.startsWith("script-src")) ?? "";
  try {
    assert.match(await scriptSrc("/assets/ocr-ABCDEFGH/worker.js"), /'wasm-unsafe-eval'/);
    for (const path of ["/", "/assets/main-ABCDEFGH.js", "/assets/pdfjs-worker-ABC.js", "/x"]) {
      assert.doesNotMatch(await scriptSrc(path), /wasm/, path);
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
