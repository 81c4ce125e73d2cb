/**
 * Tokens (spec §7 'Registration and session', §8): the push token, token handling and bearer
 * authentication. In-process, no sockets.
 */
import assert from "node:assert/strict";
import { DEMO, withApp } from "../helpers.ts";
import { assertError, assertOk, bearer } from "./api.ts";
import { checkValidation, confirmPin, E, FOREIGN_TOKEN } from "./session_fixture.ts";

// ---------------------------------------------------------------------------------------------
// pwaregisterpushtoken

/** A PushSubscription's JSON (tests/server/push_test.ts checks its shape). */
const SUBSCRIPTION = JSON.stringify({
  endpoint: "https://fcm.googleapis.com/fcm/send/abc",
  keys: { p256dh: `B${"A".repeat(86)}`, auth: "A".repeat(22) },
});

Deno.test(
  "[session] pwaregisterpushtoken stores the push token for the token's device",
  withApp(async (api) => {
    const { token, deviceId } = await api.activate(DEMO.employee);
    const r = await api.call("POST", `${E}/pwaregisterpushtoken`, {
      body: { pushToken: SUBSCRIPTION, deviceId, isIOS: false },
      headers: bearer(token),
    });
    assertOk(r);
    assert.deepEqual(r.json, { result: "OK" });
    const d = (await api.deps.store.devices.get(deviceId)).value!;
    assert.equal(JSON.parse(d.push!.token).endpoint, "https://fcm.googleapis.com/fcm/send/abc");
    assert.equal(d.push?.isIOS, false);
    // An empty push token clears the registration.
    assertOk(
      await api.call("POST", `${E}/pwaregisterpushtoken`, {
        body: { pushToken: "", deviceId, isIOS: true },
        headers: bearer(token),
      }),
    );
    assert.equal((await api.deps.store.devices.get(deviceId)).value!.push, undefined);
    // The device still authenticates afterwards.
    assertOk(await api.call("GET", `${E}/pwalists`, { headers: bearer(token) }));
  }),
);

Deno.test(
  "[session] pwaregisterpushtoken with another device's deviceId is 403",
  withApp(async (api) => {
    const a = await api.activate(DEMO.employee);
    const b = await api.activate(DEMO.approver);
    const r = await api.call("POST", `${E}/pwaregisterpushtoken`, {
      body: { pushToken: "push-a", deviceId: b.deviceId, isIOS: false },
      headers: bearer(a.token),
    });
    assertError(r, 403, "device_mismatch");
    assert.equal((await api.deps.store.devices.get(b.deviceId)).value!.push, undefined);
  }),
);

Deno.test(
  "[session] pwaregisterpushtoken refuses missing and mistyped fields with 400 (after auth)",
  withApp(async (api) => {
    const { token, deviceId } = await api.activate(DEMO.employee);
    const good = { pushToken: "push", deviceId, isIOS: false };
    const h = bearer(token);
    const bodies: unknown[] = [
      {},
      [],
      null,
      { deviceId, isIOS: false },
      { pushToken: "push", isIOS: false },
      { pushToken: "push", deviceId },
      { ...good, isIOS: "false" },
      { ...good, pushToken: 1 },
      { ...good, pushToken: null },
      { ...good, deviceId: [deviceId] },
      { ...good, pushToken: "x".repeat(4097) },
    ];
    for (const body of bodies) {
      assertError(
        await api.call("POST", `${E}/pwaregisterpushtoken`, {
          raw: JSON.stringify(body),
          headers: h,
        }),
        400,
        "invalid_body",
      );
    }
    assertError(
      await api.call("POST", `${E}/pwaregisterpushtoken`, { raw: "{", headers: h }),
      400,
      "malformed_json",
    );
    assertError(
      await api.call("POST", `${E}/pwaregisterpushtoken`, {
        raw: JSON.stringify({ ...good, pushToken: "x".repeat(70 * 1024) }),
        headers: { ...h, "content-type": "application/json" },
      }),
      413,
      "payload_too_large",
    );
    // Without a token the body is never looked at: 401, not 400.
    assertError(
      await api.call("POST", `${E}/pwaregisterpushtoken`, { raw: "{" }),
      401,
      "unauthorized",
    );
    assertError(
      await api.call("POST", `${E}/pwaregisterpushtoken`, { body: {} }),
      401,
      "unauthorized",
    );
  }),
);

// ---------------------------------------------------------------------------------------------
// Tokens

Deno.test(
  "[session] tokens are at least 128 bits of base64url and never stored in clear",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const id = api.newDeviceId();
    const pending = String((await checkValidation(api, id, code)).json.token);
    const active = String((await confirmPin(api, id, code, "135790")).json.token);
    // A second device whose token is still pending, so both kinds are in the store.
    const id2 = api.newDeviceId();
    const pending2 = String(
      (await checkValidation(api, id2, await api.latestCode(DEMO.approver))).json.token,
    );
    for (const t of [pending, active, pending2]) {
      assert.match(t, /^[A-Za-z0-9_-]{22,}$/);
    }
    assert.equal(new Set([pending, active, pending2]).size, 3);
    let entries = 0;
    for await (const e of api.kv.list({ prefix: [] })) {
      entries++;
      const text = JSON.stringify(e.key) + JSON.stringify(e.value);
      for (const t of [pending, active, pending2]) {
        assert.ok(!text.includes(t), `token found in clear under ${JSON.stringify(e.key)}`);
      }
      assert.ok(!text.includes('"135790"'), `PIN found in clear under ${JSON.stringify(e.key)}`);
    }
    assert.ok(entries > 10, "the scan saw the store");
  }),
);

Deno.test(
  "[session] a pending (not PIN-confirmed) token cannot call bearer routes",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const id = api.newDeviceId();
    const v = await checkValidation(api, id, code);
    assertOk(v);
    const h = bearer(String(v.json.token));
    for (const p of ["pwalists", "pwasupporturl", "pwasecretquestions"]) {
      assertError(await api.call("GET", `${E}/${p}`, { headers: h }), 401, "unauthorized");
    }
    assertError(
      await api.call("POST", `${E}/pwaregisterpushtoken`, {
        body: { pushToken: "p", deviceId: id, isIOS: false },
        headers: h,
      }),
      401,
      "unauthorized",
    );
    assertError(await api.call("GET", `${E}/pwatranslation`, { headers: h }), 401, "unauthorized");
  }),
);

// ---------------------------------------------------------------------------------------------
// Bearer routes

const BEARER_CALLS: { method: string; path: string; body?: unknown }[] = [
  { method: "GET", path: `${E}/pwalists` },
  { method: "GET", path: `${E}/pwasupporturl` },
  { method: "GET", path: `${E}/pwasecretquestions` },
  { method: "GET", path: `${E}/pwatranslation` },
  {
    method: "POST",
    path: `${E}/pwaregisterpushtoken`,
    body: { pushToken: "p", deviceId: "x".repeat(10), isIOS: false },
  },
];

Deno.test(
  "[session] bearer routes answer 401 without a token, with a garbage token or another scheme",
  withApp(async (api) => {
    const { token } = await api.activate(DEMO.employee);
    const badAuth: (Record<string, string>)[] = [
      {},
      { authorization: "" },
      { authorization: "Bearer" },
      { authorization: "Bearer " },
      { authorization: "Bearer garbage" },
      { authorization: `Bearer ${FOREIGN_TOKEN}` },
      { authorization: `Bearer ${token.slice(0, -1)}` },
      { authorization: `Bearer ${token}x` },
      { authorization: token },
      { authorization: `Basic ${btoa(`user:${token}`)}` },
      { authorization: `Token ${token}` },
      { authorization: `Bearer  ${token}` },
      { authorization: `Bearer ${token} extra` },
      { authorization: `Bearer ${token}.${token}` },
      { authorization: `Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl` },
      { cookie: `token=${token}` },
    ];
    for (const { method, path, body } of BEARER_CALLS) {
      for (const headers of badAuth) {
        const r = await api.call(method, path, { body, headers });
        assertError(r, 401, "unauthorized");
        assert.equal(r.json.username, undefined);
      }
    }
  }),
);

Deno.test(
  "[session] bearer routes answer 200 with a valid token",
  withApp(async (api) => {
    const { token, deviceId } = await api.activate(DEMO.employee);
    for (const { method, path } of BEARER_CALLS) {
      const body = path.endsWith("pwaregisterpushtoken")
        ? { pushToken: SUBSCRIPTION, deviceId, isIOS: false }
        : undefined;
      assertOk(await api.call(method, path, { body, headers: bearer(token) }));
    }
  }),
);

Deno.test(
  "[session] unknown /bonita paths: 401 without a token, 404 with a valid one",
  withApp(async (api) => {
    const { token } = await api.activate(DEMO.employee);
    for (
      const [method, path] of [
        ["GET", "/nope"],
        ["GET", `${E}/pwadoesnotexist`],
        ["POST", `${E}/pwadoesnotexist`],
        ["GET", "/"],
        ["DELETE", `${E}/pwalists`],
      ]
    ) {
      assertError(await api.call(method, path), 401, "unauthorized");
      assertError(
        await api.call(method, path, { headers: { authorization: "Bearer garbage" } }),
        401,
      );
      assertError(await api.call(method, path, { headers: bearer(token) }), 404, "not_found");
    }
  }),
);

Deno.test(
  "[session] pwalists returns the token's user: username, fname, lname, canRequest and settings",
  withApp(async (api) => {
    const e = await api.activate(DEMO.employee);
    const a = await api.activate(DEMO.approver);
    const le = await api.call("GET", `${E}/pwalists`, { headers: bearer(e.token) });
    assertOk(le);
    assert.equal(le.json.username, DEMO.employee);
    assert.equal(le.json.fname, "Emma");
    assert.equal(le.json.lname, "Laurent");
    assert.equal(le.json.canRequest, true);
    assert.equal(le.json.vatMode, "advanced");
    assert.equal(le.json.accountingCodeEnabled, "true");
    assert.equal(le.json.typeEnabled, "required");
    assert.equal(le.json.limitReceiptAttachementFormat, true);
    assert.deepEqual(le.json.expenses, { expenseslist: [] });
    assert.deepEqual(le.json.transactions, { receiptslist: [] });
    const la = await api.call("GET", `${E}/pwalists`, { headers: bearer(a.token) });
    assertOk(la);
    assert.equal(la.json.username, DEMO.approver);
    assert.equal(la.json.fname, "Adam");
    assert.equal(la.json.lname, "Fischer");
    assert.equal(la.json.canRequest, false);
  }),
);

Deno.test(
  "[session] the tokenless /qtservlet/expense/pwalists has settings but no user data",
  withApp(async (api) => {
    const { token } = await api.activate(DEMO.employee);
    for (const headers of [{}, bearer(token)]) {
      const r = await api.call("GET", "/qtservlet/expense/pwalists", { headers });
      assertOk(r);
      for (const k of ["username", "fname", "lname"]) assert.equal(k in r.json, false, k);
      assert.equal(r.json.canRequest, false);
      assert.equal(r.json.vatMode, "advanced");
      assert.deepEqual(r.json.expenses, { expenseslist: [] });
      assert.ok(!r.text.includes("Emma") && !r.text.includes(DEMO.employee));
    }
  }),
);

Deno.test(
  "[session] pwasupporturl and pwasecretquestions answer from the organisation",
  withApp(async (api) => {
    const { token } = await api.activate(DEMO.employee);
    const s = await api.call("GET", `${E}/pwasupporturl`, { headers: bearer(token) });
    assertOk(s);
    assert.deepEqual(s.json, { supporturl: "/support/en.html" });
    const q = await api.call("GET", `${E}/pwasecretquestions`, { headers: bearer(token) });
    assertOk(q);
    const qs = q.json.questions as { id: string; key: string; text: string }[];
    assert.equal(qs.length, 5);
    assert.ok(
      qs.some((x) =>
        x.id === "q-birth-city" && x.key === "birthCity" &&
        x.text === "In which city were you born?"
      ),
    );
    // Questions never carry anyone's answer.
    assert.ok(!/paris|voltaire|pasta/i.test(q.text));
  }),
);
