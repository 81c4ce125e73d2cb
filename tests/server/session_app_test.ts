/**
 * The app's first calls (spec §1, §7 'Registration and session'): initialize, appcolor and
 * pwatranslation; the activation codes every test app starts with. In-process, no sockets.
 */
import assert from "node:assert/strict";
import { DEMO, testApp, withApp } from "../helpers.ts";
import { assertError, assertOk } from "./api.ts";
import { codesFor, dev, E } from "./session_fixture.ts";

// ---------------------------------------------------------------------------------------------
// initialize, appcolor, pwatranslation

Deno.test(
  "[session] initialize answers the version of the build it serves, the one the app's label shows (spec §1, one source)",
  async () => {
    const dir = await Deno.makeTempDir();
    try {
      // What build.ts writes beside index.html from the values it bundles into the label.
      await Deno.writeTextFile(
        `${dir}/release.json`,
        JSON.stringify({ version: "2.26.1126", released: "26-11-2026" }),
      );
      await withApp(async (api) => {
        const r = await api.call("GET", "/qtservlet/initialize");
        assertOk(r);
        assert.equal(r.json.version, "2.26.1126");
      }, { STATIC_DIR: dir })();
      // No build served: "dev", as the app's own label says outside a build.
      await withApp(async (api) => {
        assert.equal((await api.call("GET", "/qtservlet/initialize")).json.version, "dev");
      }, { STATIC_DIR: `${dir}/none` })();
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

Deno.test(
  "[session] /qtservlet/initialize (no auth) returns the demo org's accepted extensions",
  withApp(async (api) => {
    const r = await api.call("GET", "/qtservlet/initialize?sessioncode=abc");
    assertOk(r);
    assert.deepEqual(r.json.extensions, ["pdf", "jpg", "jpeg", "png"]);
    assert.equal(r.json.faqUrl, "/support/en.html");
    assert.equal(r.json.chatUrl, "https://chat.demo.example/");
    assert.equal(typeof r.json.version, "string"); // which one: the next test
    assertOk(await api.call("GET", "/qtservlet/initialize"));
    assertError(
      await api.call("GET", `/qtservlet/initialize?sessioncode=${"x".repeat(129)}`),
      400,
      "invalid_query",
    );
  }),
);

Deno.test(
  "[session] /qtservlet//appcolor answers the request-mode and card-mode colours",
  withApp(async (api) => {
    const r = await api.call("GET", "/qtservlet//appcolor");
    assertOk(r);
    assert.match(String(r.json.appcolor), /^#[0-9a-f]{6}$/i);
    assert.match(String(r.json.cardcolor), /^#[0-9a-f]{6}$/i);
    assert.notEqual(r.json.appcolor, r.json.cardcolor);
  }),
);

Deno.test(
  "[session] pwatranslation with a device-id picks the locale from ?locale or Accept-Language",
  withApp(async (api) => {
    const h = dev(api.newDeviceId());
    const q = await api.call("GET", `${E}/pwatranslation?entity=expense&locale=fr`, { headers: h });
    assertOk(q);
    assert.equal(q.json.locale, "fr");
    assert.equal(typeof (q.json.translation as Record<string, string>)["pin.repetition"], "string");
    const al = await api.call("GET", `${E}/pwatranslation?entity=expense`, {
      headers: { ...h, "accept-language": "fr-FR,fr;q=0.9,en;q=0.8" },
    });
    assertOk(al);
    assert.equal(al.json.locale, "fr");
    const def = await api.call("GET", `${E}/pwatranslation`, { headers: h });
    assertOk(def);
    assert.equal(def.json.locale, "en");
    assert.equal(
      (def.json.translation as Record<string, string>)["lost.noPrevious"],
      "No previous activation found",
    );
    const unknown = await api.call("GET", `${E}/pwatranslation?locale=xx`, { headers: h });
    assertOk(unknown);
    assert.equal(unknown.json.locale, "en");
  }),
);

Deno.test(
  "[session] pwatranslation refuses a bad query or a bad device-id with 400",
  withApp(async (api) => {
    const h = dev(api.newDeviceId());
    assertError(
      await api.call("GET", `${E}/pwatranslation?locale=french`, { headers: h }),
      400,
      "invalid_query",
    );
    assertError(
      await api.call("GET", `${E}/pwatranslation?entity=approval`, { headers: h }),
      400,
      "invalid_query",
    );
    assertError(
      await api.call("GET", `${E}/pwatranslation`, { headers: dev("bad id") }),
      400,
      "invalid_device_id",
    );
  }),
);

Deno.test("[session] every test app starts with one activation code per demo user", async () => {
  // Guards the fixtures the other tests rely on.
  const api = await testApp();
  try {
    for (const email of Object.values(DEMO)) {
      assert.equal((await codesFor(api, email)).length, 1, email);
    }
  } finally {
    api.close();
  }
});
