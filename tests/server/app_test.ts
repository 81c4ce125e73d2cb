/**
 * This file: security headers, 500s, no-store, COOP, WebAssembly (the same subject goes on in
 * app_static_test.ts).
 *
 * The app shell around the API: security headers on every answer, no-store on the API,
 * the demo outbox, configuration guards and static serving. In-process, no sockets.
 */
import assert from "node:assert/strict";
import { DEMO, testApp, withApp } from "../helpers.ts";
import {
  assertErrorBody,
  assertSecurityHeaders,
  E,
  get,
  Res,
  staticFixture,
} from "./app_helpers.ts";

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
