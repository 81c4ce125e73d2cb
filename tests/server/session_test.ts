/**
 * Registration and session calls (spec §4, §5, §7 'Registration and session', §8, §9):
 * activation with a mailed code, PIN rules and the PIN attempt counter, lost activation,
 * rate limits, token handling and bearer authentication. In-process, no sockets.
 */
import assert from "node:assert/strict";
import { DEMO, type TestApi, testApp, withApp, wrongCodes } from "../helpers.ts";
import { assertError, assertOk, bearer } from "./api.ts";

const E = "/scmapi/expense";
const DAY = 24 * 60 * 60_000;
const REPETITION = "For security reasons, try using less repetition in your Pin";
const SEQUENCE =
  "For security reasons, do not use a direct sequence of ascending / descending numbers";
/** A well-formed bearer token that no device holds. */
const FOREIGN_TOKEN = "A".repeat(43);

const dev = (id: string) => ({ "device-id": id });

/** Every activation code mailed to an address, newest first. */
async function codesFor(api: TestApi, email: string): Promise<string[]> {
  const mails = await api.deps.outbox!.list({ to: email });
  return mails.map((m) => /activation code is (\d{5})/.exec(m.text)?.[1]).filter((c): c is string =>
    !!c
  );
}

async function checkValidation(api: TestApi, deviceId: string, code: string) {
  return await api.call("POST", `${E}/pwacheckvalidation`, {
    body: { verificationcode: code },
    headers: dev(deviceId),
  });
}

async function confirmPin(api: TestApi, deviceId: string, code: string, pin: string) {
  return await api.call("POST", `${E}/pwaconfirmpin`, {
    body: { verificationcode: code, pin },
    headers: dev(deviceId),
  });
}

async function checkPin(api: TestApi, deviceId: string, token: string, pin: string) {
  return await api.call("POST", `${E}/pwacheckpinvalid`, {
    body: { token, pin },
    headers: dev(deviceId),
  });
}

async function checkRegistered(api: TestApi, deviceId: string, token: string) {
  return await api.call("POST", `${E}/pwacheckregistered`, {
    body: { token },
    headers: dev(deviceId),
  });
}

/** Bad inputs every device-id + JSON body call must refuse with 400/401, never 5xx. */
async function assertRefusesBadInput(
  api: TestApi,
  path: string,
  good: Record<string, unknown>,
  wrongTypes: Record<string, unknown>[],
) {
  const id = api.newDeviceId();
  // No device-id header: 401; a malformed one: 400.
  assertError(await api.call("POST", path, { body: good }), 401, "unauthorized");
  for (
    const bad of ["short", "has space in it", "ünïcødé-device", "x".repeat(129), "a/b/c/d/e/f"]
  ) {
    assertError(
      await api.call("POST", path, { body: good, headers: dev(bad) }),
      400,
      "invalid_device_id",
    );
  }
  // Malformed JSON.
  assertError(
    await api.call("POST", path, {
      raw: "{",
      headers: { ...dev(id), "content-type": "application/json" },
    }),
    400,
    "malformed_json",
  );
  // Empty body, empty object, arrays, null, scalars.
  for (const raw of ["", "{}", "[]", "null", "42", '"text"', JSON.stringify([good])]) {
    assertError(await api.call("POST", path, { raw, headers: dev(id) }), 400, "invalid_body");
  }
  // Every field missing in turn, then set to null, to a number, to an array.
  for (const k of Object.keys(good)) {
    const { [k]: _drop, ...missing } = good;
    assertError(
      await api.call("POST", path, { body: missing, headers: dev(id) }),
      400,
      "invalid_body",
      new RegExp(k),
    );
    for (const v of [null, 12345, [good[k]], { v: good[k] }]) {
      assertError(
        await api.call("POST", path, { body: { ...good, [k]: v }, headers: dev(id) }),
        400,
        "invalid_body",
        new RegExp(k),
      );
    }
  }
  for (const body of wrongTypes) {
    assertError(await api.call("POST", path, { body, headers: dev(id) }), 400, "invalid_body");
  }
  // Larger than 64 KiB: 413 JSON before anything is parsed.
  const big = JSON.stringify({ ...good, pad: "x".repeat(70 * 1024) });
  assertError(
    await api.call("POST", path, {
      raw: big,
      headers: { ...dev(id), "content-type": "application/json" },
    }),
    413,
    "payload_too_large",
  );
}

// ---------------------------------------------------------------------------------------------
// pwacheckvalidation

Deno.test(
  "[session] pwacheckvalidation accepts the mailed code and returns a pending token and the first name",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const r = await api.call("POST", `${E}/pwacheckvalidation`, {
      body: { verificationcode: code },
      headers: { ...dev(api.newDeviceId()), screenW: "390", screenH: "844" },
    });
    assertOk(r);
    assert.equal(r.json.status, "OK");
    assert.equal(r.json.fname, "Emma");
    assert.match(String(r.json.token), /^[A-Za-z0-9_-]{22,}$/);
    assert.equal(r.res.headers.get("content-type")?.startsWith("application/json"), true);
  }),
);

Deno.test(
  "[session] pwacheckvalidation refuses missing, mistyped and malformed input",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    await assertRefusesBadInput(api, `${E}/pwacheckvalidation`, { verificationcode: code }, [
      { verificationcode: Number(code) },
      { verificationcode: "1234" },
      { verificationcode: "123456" },
      { verificationcode: "12a45" },
      { verificationcode: " 12345" },
      { verificationcode: true },
    ]);
    // None of this consumed the code: it still works.
    assertOk(await checkValidation(api, api.newDeviceId(), code));
  }),
);

Deno.test(
  "[session] pwacheckvalidation refuses a wrong code with 400 invalid_code",
  withApp(async (api) => {
    const [wrong] = await wrongCodes(api, 1);
    const r = await checkValidation(api, api.newDeviceId(), wrong);
    assertError(r, 400, "invalid_code", "This activation code is not valid");
    assert.equal(r.json.token, undefined);
  }),
);

Deno.test(
  "[session] pwacheckvalidation refuses a code older than CODE_TTL_MINUTES (1 day by default)",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const t0 = Date.now();
    api.deps.now = () => t0 + DAY - 60_000; // one minute before expiry: still valid
    assertOk(await checkValidation(api, api.newDeviceId(), code));
    const code2 = await api.latestCode(DEMO.approver);
    api.deps.now = () => t0 + DAY + 60_000;
    assertError(await checkValidation(api, api.newDeviceId(), code2), 400, "invalid_code");
  }),
);

Deno.test(
  "[session] CODE_TTL_MINUTES from config sets the code lifetime",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const t0 = Date.now();
    api.deps.now = () => t0 + 11 * 60_000;
    assertError(await checkValidation(api, api.newDeviceId(), code), 400, "invalid_code");
  }, { CODE_TTL_MINUTES: "10" }),
);

Deno.test(
  "[session] another device replaying a claimed code is refused",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const a = api.newDeviceId(), b = api.newDeviceId();
    assertOk(await checkValidation(api, a, code));
    assertError(await checkValidation(api, b, code), 400, "invalid_code");
    assertError(await confirmPin(api, b, code, "135790"), 400, "invalid_code");
    // The claiming device can still finish.
    assertOk(await confirmPin(api, a, code, "135790"));
  }),
);

Deno.test(
  "[session] a code is single use: after confirm the same code is refused on every device",
  withApp(async (api) => {
    const { code, deviceId } = await api.activate(DEMO.employee);
    // The activated device is refused before any code is looked at.
    assertError(await checkValidation(api, deviceId, code), 403, "already_active");
    assertError(await confirmPin(api, deviceId, code, "135790"), 400, "invalid_code");
    assertError(await checkValidation(api, api.newDeviceId(), code), 400, "invalid_code");
  }),
);

Deno.test(
  "[session] pwacheckvalidation on an already active device is refused",
  withApp(async (api) => {
    const { deviceId } = await api.activate(DEMO.employee);
    const code = await api.latestCode(DEMO.approver);
    assertError(await checkValidation(api, deviceId, code), 403, "already_active");
  }),
);

Deno.test(
  "[session] code brute force: after 10 wrong codes from one device even the right code gets 429",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const id = api.newDeviceId();
    for (const wrong of await wrongCodes(api, 10)) {
      assertError(await checkValidation(api, id, wrong), 400, "invalid_code");
    }
    assertError(await checkValidation(api, id, code), 429, "rate_limited");
    // The ten wrong codes spent the organisation's daily budget (ACTIVATION_CHECKS_PER_DAY,
    // 10): the rightful owner on another device is not refused, the code is replaced by
    // one bound to that device and mailed, and that one activates.
    const owner = api.newDeviceId();
    assertError(await checkValidation(api, owner, code), 403, "code_resent");
    const bound = await api.latestCode(DEMO.employee);
    assert.notEqual(bound, code);
    assertOk(await checkValidation(api, owner, bound));
    assertOk(await confirmPin(api, owner, bound, "135790"));
  }),
);

Deno.test(
  "[session] code brute force: 9 wrong codes still let the right code through",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const id = api.newDeviceId();
    for (const wrong of await wrongCodes(api, 9)) {
      assertError(await checkValidation(api, id, wrong), 400, "invalid_code");
    }
    assertOk(await checkValidation(api, id, code));
  }),
);

Deno.test(
  "[session] past the org budget, checks from one address are throttled; the owner elsewhere is not",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const env = { remoteAddr: { hostname: "203.0.113.7" } };
    const send = (id: string, c: string, addr = env) =>
      api.app.request(`/bonita${E}/pwacheckvalidation`, {
        method: "POST",
        headers: { "content-type": "application/json", ...dev(id) },
        body: JSON.stringify({ verificationcode: c }),
      }, addr);
    // 10 within the organisation's budget, then 20 more from this address in safe mode.
    for (const wrong of await wrongCodes(api, 30)) {
      // A fresh device id each time, so only the budget and the address counter grow.
      assert.equal((await send(api.newDeviceId(), wrong)).status, 400);
    }
    // Throttled: answered blind (a code for this device is mailed if this one was right).
    const throttled = await send(api.newDeviceId(), code);
    assert.equal(throttled.status, 403);
    assert.equal((await throttled.json()).error, "code_sent_if_right");
    // The right code from elsewhere is not refused: it is replaced by a device-bound one.
    const owner = api.newDeviceId();
    const elsewhere = await send(owner, code, { remoteAddr: { hostname: "198.51.100.1" } });
    assert.equal(elsewhere.status, 403);
    assert.equal((await elsewhere.json()).error, "code_resent");
    const bound = await api.latestCode(DEMO.employee);
    assert.equal((await send(owner, bound, env)).status, 200, "bound codes ignore the throttle");
  }),
);

Deno.test({
  name:
    "[session] code brute force: concurrent wrong codes from one device cannot exceed the limit",
  // Attempts are counted atomically before they are evaluated: a parallel burst gets no
  // more guesses than a sequential one.
  fn: withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const id = api.newDeviceId();
    const burst = await wrongCodes(api, 40);
    const rs = await Promise.all(burst.map((c) => checkValidation(api, id, c)));
    for (const r of rs) assert.ok(r.status < 500, r.text);
    const evaluated = rs.filter((r) => r.status !== 429).length;
    assert.ok(evaluated <= 10, `${evaluated} codes were evaluated, the limit is 10`);
    assertError(await checkValidation(api, id, code), 429, "rate_limited");
  }),
});

Deno.test(
  "[session] concurrent claims of one code: exactly one device wins, the others are refused",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const ids = Array.from({ length: 5 }, () => api.newDeviceId());
    const rs = await Promise.all(ids.map((id) => checkValidation(api, id, code)));
    const winners = rs.filter((r) => r.status === 200);
    assert.equal(winners.length, 1, rs.map((r) => r.status).join(" "));
    for (const r of rs.filter((r) => r.status !== 200)) {
      assert.ok([400, 409].includes(r.status), r.text);
      assertError(r, r.status);
    }
    const winner = ids[rs.indexOf(winners[0])];
    assertOk(await confirmPin(api, winner, code, "135790"));
  }),
);

// ---------------------------------------------------------------------------------------------
// pwaconfirmpin

Deno.test(
  "[session] pwaconfirmpin activates the device and returns a new token and useEnc",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const id = api.newDeviceId();
    const v = await checkValidation(api, id, code);
    assertOk(v);
    const p = await confirmPin(api, id, code, "135790");
    assertOk(p);
    assert.equal(p.json.useEnc, true);
    assert.match(String(p.json.token), /^[A-Za-z0-9_-]{22,}$/);
    assert.notEqual(p.json.token, v.json.token, "the pending token must be replaced");
    assertOk(await api.call("GET", `${E}/pwalists`, { headers: bearer(String(p.json.token)) }));
    // The pending token died with the pending state.
    assertError(
      await api.call("GET", `${E}/pwalists`, { headers: bearer(String(v.json.token)) }),
      401,
    );
  }),
);

Deno.test(
  "[session] pwaconfirmpin refuses missing, mistyped and malformed input",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    await assertRefusesBadInput(api, `${E}/pwaconfirmpin`, {
      verificationcode: code,
      pin: "135790",
    }, [
      { verificationcode: code, pin: 135790 },
      { verificationcode: code, pin: "13579" },
      { verificationcode: code, pin: "1357900" },
      { verificationcode: code, pin: "13579a" },
      { verificationcode: code, pin: "" },
      { verificationcode: Number(code), pin: "135790" },
    ]);
  }),
);

Deno.test(
  "[session] pwaconfirmpin without a prior pwacheckvalidation is refused",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const id = api.newDeviceId();
    assertError(await confirmPin(api, id, code, "135790"), 400, "invalid_code");
    // The code was not consumed by the refused attempt.
    assertOk(await checkValidation(api, id, code));
    assertOk(await confirmPin(api, id, code, "135790"));
  }),
);

Deno.test(
  "[session] pwaconfirmpin with a wrong code is refused and the device stays pending",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const other = await api.latestCode(DEMO.approver);
    const id = api.newDeviceId();
    const v = await checkValidation(api, id, code);
    assertOk(v);
    assertError(await confirmPin(api, id, other, "135790"), 400, "invalid_code");
    assertError(
      await confirmPin(api, id, (await wrongCodes(api, 1))[0], "135790"),
      400,
      "invalid_code",
    );
    assertError(
      await api.call("GET", `${E}/pwalists`, { headers: bearer(String(v.json.token)) }),
      401,
    );
    assertOk(await confirmPin(api, id, code, "135790"));
  }),
);

Deno.test(
  "[session] pwaconfirmpin refuses a code that expired after it was checked",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const id = api.newDeviceId();
    assertOk(await checkValidation(api, id, code));
    const t0 = Date.now();
    api.deps.now = () => t0 + 3 * DAY + 60_000;
    assertError(await confirmPin(api, id, code, "135790"), 400, "invalid_code");
  }),
);

Deno.test(
  "[session] pwaconfirmpin refuses repeated PINs with 422 and the spec's repetition message",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const id = api.newDeviceId();
    assertOk(await checkValidation(api, id, code));
    for (const pin of ["111111", "111123", "901111", "121212", "123123", "000000"]) {
      assertError(await confirmPin(api, id, code, pin), 422, "pin_repetition", REPETITION);
    }
    // Refusals do not consume the code: a good PIN still activates.
    assertOk(await confirmPin(api, id, code, "111222"));
  }),
);

Deno.test(
  "[session] pwaconfirmpin refuses straight sequences with 422 and the spec's sequence message",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const id = api.newDeviceId();
    assertOk(await checkValidation(api, id, code));
    for (const pin of ["123456", "012345", "890123", "987654", "543210", "210987"]) {
      assertError(await confirmPin(api, id, code, pin), 422, "pin_sequence", SEQUENCE);
    }
    assertOk(await confirmPin(api, id, code, "246802"));
  }),
);

// ---------------------------------------------------------------------------------------------
// pwacheckpinvalid and the PIN attempt counter

Deno.test(
  "[session] pwacheckpinvalid answers OK for the right PIN and token",
  withApp(async (api) => {
    const { token, deviceId } = await api.activate(DEMO.employee, "135790");
    const r = await checkPin(api, deviceId, token, "135790");
    assertOk(r);
    assert.equal(r.json.status, "OK");
    assert.equal(r.json.useEnc, true);
    // The token is rotated at every unlock: the new one works, and the old one keeps working
    // only until the new one is first used.
    const fresh = String(r.json.token);
    assert.notEqual(fresh, token);
    assertOk(await api.call("GET", `${E}/pwalists`, { headers: bearer(token) }));
    assertOk(await api.call("GET", `${E}/pwalists`, { headers: bearer(fresh) }));
    assertError(await api.call("GET", `${E}/pwalists`, { headers: bearer(token) }), 401);
    assert.equal((await checkRegistered(api, deviceId, fresh)).json.status, "OK");
  }),
);

Deno.test(
  "[session] pwacheckpinvalid refuses missing, mistyped and malformed input",
  withApp(async (api) => {
    const { token } = await api.activate(DEMO.employee, "135790");
    await assertRefusesBadInput(api, `${E}/pwacheckpinvalid`, { token, pin: "135790" }, [
      { token, pin: 135790 },
      { token, pin: "1357" },
      { token: "short", pin: "135790" },
      { token: "has spaces in it and is long enough", pin: "135790" },
    ]);
  }),
);

Deno.test(
  "[session] 4 wrong PINs give 403 wrong_pin with attemptsLeft counting down; a right PIN resets",
  withApp(async (api) => {
    const { token, deviceId } = await api.activate(DEMO.employee, "135790");
    for (const left of [4, 3, 2, 1]) {
      const r = await checkPin(api, deviceId, token, "975310");
      assertError(r, 403, "wrong_pin");
      assert.equal(r.json.attemptsLeft, left);
    }
    assertOk(await checkPin(api, deviceId, token, "135790"));
    // The counter restarted: four more failures are allowed again.
    for (const left of [4, 3, 2, 1]) {
      const r = await checkPin(api, deviceId, token, "975310");
      assertError(r, 403, "wrong_pin");
      assert.equal(r.json.attemptsLeft, left);
    }
    assertOk(await checkPin(api, deviceId, token, "135790"));
    assertOk(await api.call("GET", `${E}/pwalists`, { headers: bearer(token) }));
  }),
);

// An earlier token of this very device (a browser killed before its cookies reached the disk
// starts on an older copy of its sealed token, spec §4 PIN unlock).

/** Unlocks with `token` and the right PIN and uses the new token once (a real unlock). */
async function unlockAndUse(api: TestApi, deviceId: string, token: string): Promise<string> {
  const r = await checkPin(api, deviceId, token, "135790");
  assertOk(r);
  const fresh = String(r.json.token);
  assertOk(await api.call("GET", `${E}/pwalists`, { headers: bearer(fresh) }));
  return fresh;
}

/** The token index holds exactly the device's current and previous token hashes. */
async function assertTokenIndex(api: TestApi, deviceId: string) {
  const d = (await api.deps.store.devices.get(deviceId)).value!;
  const indexed: string[] = [];
  for await (const e of api.kv.list<{ deviceId: string }>({ prefix: ["token"] })) {
    if (e.value.deviceId === deviceId) indexed.push(String(e.key[1]));
  }
  const expected = [d.tokenHash, d.prevTokenHash].filter((h): h is string => !!h);
  assert.deepEqual(indexed.sort(), expected.sort());
}

Deno.test(
  "[session] a right PIN with an earlier token of this device unlocks, gets a fresh token, is not counted",
  withApp(async (api) => {
    const { token: t0, deviceId } = await api.activate(DEMO.employee, "135790");
    const t1 = await unlockAndUse(api, deviceId, t0);
    const t2 = await unlockAndUse(api, deviceId, t1);
    // Four wrong PINs first: the stale unlock below is the fifth attempt, and still no wipe.
    for (const left of [4, 3, 2, 1]) {
      const r = await checkPin(api, deviceId, t2, "975310");
      assertError(r, 403, "wrong_pin");
      assert.equal(r.json.attemptsLeft, left);
    }
    // Six unlocks in a row on the first token (more than the five a wipe needs).
    let current = t2;
    for (let i = 0; i < 6; i++) {
      const r = await checkPin(api, deviceId, t0, "135790");
      assertOk(r);
      assert.equal(r.json.status, "OK");
      const fresh = String(r.json.token);
      assert.ok(![t0, t1, t2, current].includes(fresh));
      assert.equal((await api.deps.store.devices.get(deviceId)).value?.pinFailures, 0);
      // The answer's token is the device's bearer now.
      assertOk(await api.call("GET", `${E}/pwalists`, { headers: bearer(fresh) }));
      assert.equal((await checkRegistered(api, deviceId, fresh)).json.status, "OK");
      current = fresh;
      await assertTokenIndex(api, deviceId);
    }
    // The other earlier token works too; the count starts afresh after it.
    assertOk(await checkPin(api, deviceId, t1, "135790"));
    const r = await checkPin(api, deviceId, t1, "975310");
    assertError(r, 403, "wrong_pin");
    assert.equal(r.json.attemptsLeft, 4);
    const d = (await api.deps.store.devices.get(deviceId)).value!;
    assert.ok((d.oldTokens?.length ?? 0) <= 8, "a bounded list of earlier tokens");
  }),
);

Deno.test(
  "[session] an earlier token unlocks only if replaced shortly before the last unlock",
  withApp(async (api) => {
    const { token: t0, deviceId } = await api.activate(DEMO.employee, "135790");
    const start = Date.now();
    api.deps.now = () => start;
    const t1 = await unlockAndUse(api, deviceId, t0);
    // The owner unlocks again 10 minutes later: a copy of t0 (a profile copied before the
    // first unlock) is worthless now, even with the PIN; t1, replaced just now, still unlocks.
    api.deps.now = () => start + 10 * 60_000;
    const t2 = await unlockAndUse(api, deviceId, t1);
    const r = await checkPin(api, deviceId, t0, "135790");
    assertError(r, 403, "wrong_pin");
    assert.equal(r.json.attemptsLeft, 4);
    assertOk(await checkPin(api, deviceId, t1, "135790"));
    assertError(await api.call("GET", `${E}/pwalists`, { headers: bearer(t2) }), 401);
    const d = (await api.deps.store.devices.get(deviceId)).value!;
    assert.equal(d.pinFailures, 0);
    assert.ok(d.oldTokens?.every((t) => t.replacedAt >= start + 8 * 60_000));
  }),
);

Deno.test(
  "[session] an earlier token with a wrong PIN counts like any wrong PIN and is answered alike",
  withApp(async (api) => {
    const { token: t0, deviceId } = await api.activate(DEMO.employee, "135790");
    const t1 = await unlockAndUse(api, deviceId, t0);
    const answers: string[] = [];
    for (const token of [t1, t0, FOREIGN_TOKEN, ""]) {
      const r = await checkPin(api, deviceId, token, "975310");
      assertError(r, 403, "wrong_pin");
      answers.push(`${r.status} ${r.json.error} ${r.json.message} ${r.json.attemptsLeft}`);
    }
    // Current, earlier, unknown or no token: the same answer, each one counted.
    assert.deepEqual(answers, [4, 3, 2, 1].map((n) => `403 wrong_pin Wrong PIN ${n}`));
    assertError(await checkPin(api, deviceId, t0, "975310"), 403, "unregistered");
    assert.equal((await api.deps.store.devices.get(deviceId)).value, null);
    // Gone for good: not even the right PIN with any of its tokens brings it back.
    assertError(await checkPin(api, deviceId, t0, "135790"), 403, "unregistered");
    assertError(await checkPin(api, deviceId, t1, "135790"), 403, "unregistered");
    for await (const e of api.kv.list<{ deviceId: string }>({ prefix: ["token"] })) {
      assert.notEqual(e.value.deviceId, deviceId, "the unregistered device left the index");
    }
  }),
);

Deno.test(
  "[session] an earlier token is never a bearer, nor proof for pwacheckregistered or pwaunregister",
  withApp(async (api) => {
    const { token: t0, deviceId } = await api.activate(DEMO.employee, "135790");
    const t1 = await unlockAndUse(api, deviceId, t0);
    const stale = async (t: string) => {
      assertError(await api.call("GET", `${E}/pwalists`, { headers: bearer(t) }), 401);
      assert.equal((await checkRegistered(api, deviceId, t)).json.status, "NOT_REGISTERED");
      assertError(
        await api.call("POST", `${E}/pwaunregister`, {
          body: { token: t },
          headers: dev(deviceId),
        }),
        403,
        "not_registered",
      );
    };
    await stale(t0);
    // An unlock on the earlier token hands out a new one; the earlier one stays no bearer,
    // even before the new one is used.
    const r = await checkPin(api, deviceId, t0, "135790");
    assertOk(r);
    await stale(t0);
    await stale(t1);
    await assertTokenIndex(api, deviceId);
    assertOk(await api.call("GET", `${E}/pwalists`, { headers: bearer(String(r.json.token)) }));
    await assertTokenIndex(api, deviceId);
    assert.ok((await api.deps.store.devices.get(deviceId)).value);
  }),
);

Deno.test(
  "[session] the 5th consecutive wrong PIN unregisters the device: 401 on bearer calls, NOT_REGISTERED",
  withApp(async (api) => {
    const { token, deviceId } = await api.activate(DEMO.employee, "135790");
    for (let i = 0; i < 4; i++) {
      assertError(await checkPin(api, deviceId, token, "975310"), 403, "wrong_pin");
    }
    assertError(await checkPin(api, deviceId, token, "975310"), 403, "unregistered");
    assertError(
      await api.call("GET", `${E}/pwalists`, { headers: bearer(token) }),
      401,
      "unauthorized",
    );
    const reg = await checkRegistered(api, deviceId, token);
    assertOk(reg);
    assert.equal(reg.json.status, "NOT_REGISTERED");
    // Even the right PIN cannot bring it back.
    assertError(await checkPin(api, deviceId, token, "135790"), 403, "unregistered");
    assert.ok(
      api.deps.events.recent.some((e) =>
        e.type === "device.unregistered" && e.deviceId === deviceId && e.reason === "pin_failures"
      ),
    );
  }),
);

Deno.test(
  "[session] concurrent wrong PINs are all counted: the device ends unregistered, never 5xx",
  withApp(async (api) => {
    const { token, deviceId } = await api.activate(DEMO.employee, "135790");
    const rs = await Promise.all(
      Array.from({ length: 12 }, () => checkPin(api, deviceId, token, "975310")),
    );
    for (const r of rs) {
      assert.ok([403, 409].includes(r.status), r.text);
      assertError(r, r.status);
    }
    assert.ok(rs.some((r) => r.json.error === "unregistered"));
    // attemptsLeft values are never repeated: no failure was lost to a race.
    const left = rs.map((r) => r.json.attemptsLeft).filter((n) => n !== undefined);
    assert.equal(new Set(left).size, left.length);
    assert.equal((await api.deps.store.devices.get(deviceId)).value, null);
    assertError(await api.call("GET", `${E}/pwalists`, { headers: bearer(token) }), 401);
  }),
);

Deno.test(
  "[session] without the token, right and wrong PINs get the same counted wrong_pin",
  withApp(async (api) => {
    const { token, deviceId } = await api.activate(DEMO.employee, "135790");
    const wrong = await checkPin(api, deviceId, "", "975310");
    assertError(wrong, 403, "wrong_pin");
    assert.equal(wrong.json.attemptsLeft, 4);
    // No oracle: the right PIN without the token is answered exactly like a wrong one.
    const right = await checkPin(api, deviceId, "", "135790");
    assertError(right, 403, "wrong_pin");
    assert.equal(right.json.attemptsLeft, 3);
    const again = await checkPin(api, deviceId, token, "975310");
    assertError(again, 403, "wrong_pin");
    assert.equal(again.json.attemptsLeft, 2);
  }),
);

Deno.test(
  "[session] the right PIN with another device's token is counted as a failure",
  withApp(async (api) => {
    const a = await api.activate(DEMO.employee, "135790");
    const b = await api.activate(DEMO.approver, "135790");
    const r = await checkPin(api, a.deviceId, b.token, "135790");
    assertError(r, 403, "wrong_pin");
    assert.equal(r.json.attemptsLeft, 4);
  }),
);

Deno.test(
  "[session] pwacheckpinvalid on an unknown or pending device answers 403 unregistered",
  withApp(async (api) => {
    assertError(
      await checkPin(api, api.newDeviceId(), FOREIGN_TOKEN, "135790"),
      403,
      "unregistered",
    );
    const code = await api.latestCode(DEMO.employee);
    const id = api.newDeviceId();
    const v = await checkValidation(api, id, code);
    assertOk(v);
    assertError(await checkPin(api, id, String(v.json.token), "135790"), 403, "unregistered");
  }),
);

// ---------------------------------------------------------------------------------------------
// pwacheckregistered and pwaunregister

Deno.test(
  "[session] pwacheckregistered: OK for the device's token, NOT_REGISTERED otherwise",
  withApp(async (api) => {
    const a = await api.activate(DEMO.employee);
    const b = await api.activate(DEMO.approver);
    assert.equal((await checkRegistered(api, a.deviceId, a.token)).json.status, "OK");
    assert.equal((await checkRegistered(api, a.deviceId, b.token)).json.status, "NOT_REGISTERED");
    assert.equal(
      (await checkRegistered(api, a.deviceId, FOREIGN_TOKEN)).json.status,
      "NOT_REGISTERED",
    );
    assert.equal(
      (await checkRegistered(api, api.newDeviceId(), a.token)).json.status,
      "NOT_REGISTERED",
    );
  }),
);

Deno.test(
  "[session] pwacheckregistered refuses missing, mistyped and malformed input",
  withApp(async (api) => {
    const { token } = await api.activate(DEMO.employee);
    await assertRefusesBadInput(api, `${E}/pwacheckregistered`, { token }, [
      { token: "" },
      { token: "x".repeat(21) },
      { token: `${token}!` },
    ]);
  }),
);

Deno.test(
  "[session] a pending (not PIN-confirmed) device is NOT_REGISTERED",
  withApp(async (api) => {
    const code = await api.latestCode(DEMO.employee);
    const id = api.newDeviceId();
    const v = await checkValidation(api, id, code);
    assertOk(v);
    assert.equal(
      (await checkRegistered(api, id, String(v.json.token))).json.status,
      "NOT_REGISTERED",
    );
  }),
);

Deno.test(
  "[session] pwaunregister removes the device: bearer 401 afterwards and NOT_REGISTERED",
  withApp(async (api) => {
    const { token, deviceId } = await api.activate(DEMO.employee);
    const r = await api.call("POST", `${E}/pwaunregister`, {
      body: { token },
      headers: dev(deviceId),
    });
    assertOk(r);
    assert.equal(r.json.status, "OK");
    assertError(await api.call("GET", `${E}/pwalists`, { headers: bearer(token) }), 401);
    assert.equal((await checkRegistered(api, deviceId, token)).json.status, "NOT_REGISTERED");
    // A second unregister has nothing left to remove.
    assertError(
      await api.call("POST", `${E}/pwaunregister`, { body: { token }, headers: dev(deviceId) }),
      403,
      "not_registered",
    );
  }),
);

Deno.test(
  "[session] pwaunregister with another token or device is refused and unregisters nothing",
  withApp(async (api) => {
    const a = await api.activate(DEMO.employee);
    const b = await api.activate(DEMO.approver);
    assertError(
      await api.call("POST", `${E}/pwaunregister`, {
        body: { token: b.token },
        headers: dev(a.deviceId),
      }),
      403,
      "not_registered",
    );
    assertError(
      await api.call("POST", `${E}/pwaunregister`, {
        body: { token: a.token },
        headers: dev(api.newDeviceId()),
      }),
      403,
      "not_registered",
    );
    assertOk(await api.call("GET", `${E}/pwalists`, { headers: bearer(a.token) }));
    assertOk(await api.call("GET", `${E}/pwalists`, { headers: bearer(b.token) }));
  }),
);

Deno.test(
  "[session] pwaunregister refuses missing, mistyped and malformed input",
  withApp(async (api) => {
    const { token, deviceId } = await api.activate(DEMO.employee);
    await assertRefusesBadInput(api, `${E}/pwaunregister`, { token }, [{ token: "" }, {
      token: 1,
    }]);
    // Still registered after all that.
    assert.equal((await checkRegistered(api, deviceId, token)).json.status, "OK");
  }),
);

// ---------------------------------------------------------------------------------------------
// Lost activation: pwaactivationemail and pwasecretanswer

Deno.test(
  "[session] pwaactivationemail for an unknown email answers like a known one, the same each time",
  withApp(async (api) => {
    const ask = async (email: string) =>
      await api.call("POST", `${E}/pwaactivationemail`, {
        body: { email },
        headers: dev(api.newDeviceId()),
      });
    const r = await ask("nobody@demo.example");
    assertOk(r);
    const q = r.json.question as Record<string, unknown>;
    const ids = (await api.deps.store.org.secretQuestions()).map((x) => x.oid);
    assert.ok(ids.includes(String(q.id)), `a question of the organisation, not ${q.id}`);
    assert.deepEqual(Object.keys(q).sort(), ["id", "key", "text"]);
    assert.deepEqual((await ask("NOBODY@demo.example")).json, r.json);
    // 'No previous activation found' is said only when no question exists at all.
    for await (const e of api.kv.list({ prefix: ["secretq"] })) await api.kv.delete(e.key);
    assertError(await ask(DEMO.employee), 404, "no_previous_activation");
    assertError(await ask("nobody@demo.example"), 404, "no_previous_activation");
  }),
);

Deno.test(
  "[session] pwaactivationemail for a known email returns its secret question {id, key, text}",
  withApp(async (api) => {
    const r = await api.call("POST", `${E}/pwaactivationemail`, {
      body: { email: "  Employee@Demo.Example " },
      headers: dev(api.newDeviceId()),
    });
    assertOk(r);
    assert.deepEqual(r.json, {
      question: { id: "q-birth-city", key: "birthCity", text: "In which city were you born?" },
    });
    const r2 = await api.call("POST", `${E}/pwaactivationemail`, {
      body: { email: DEMO.approver },
      headers: dev(api.newDeviceId()),
    });
    assertOk(r2);
    assert.equal((r2.json.question as Record<string, unknown>).id, "q-first-pet");
  }),
);

Deno.test(
  "[session] pwaactivationemail refuses missing, mistyped, too short and malformed input",
  withApp(async (api) => {
    await assertRefusesBadInput(api, `${E}/pwaactivationemail`, { email: DEMO.employee }, [
      { email: "a@b" },
      { email: "    a@b    " },
      { email: `${"x".repeat(250)}@d.example` },
    ]);
  }),
);

Deno.test(
  "[session] activation-email requests are not limited per address: strangers cannot lock it",
  withApp(async (api) => {
    for (let i = 0; i < 30; i++) {
      assertOk(
        await api.call("POST", `${E}/pwaactivationemail`, {
          body: { email: DEMO.employee },
          headers: dev(api.newDeviceId()),
        }),
      );
    }
  }),
);

Deno.test(
  "[session] one device probing many emails is limited to 10 requests an hour",
  withApp(async (api) => {
    const id = api.newDeviceId();
    for (let i = 0; i < 10; i++) {
      const r = await api.call("POST", `${E}/pwaactivationemail`, {
        body: { email: `probe${i}@demo.example` },
        headers: dev(id),
      });
      assertOk(r);
    }
    assertError(
      await api.call("POST", `${E}/pwaactivationemail`, {
        body: { email: DEMO.employee },
        headers: dev(id),
      }),
      429,
      "rate_limited",
    );
  }),
);

Deno.test(
  "[session] pwasecretanswer: a wrong answer gets 400 'Something went wrong' and mails nothing",
  withApp(async (api) => {
    const before = (await codesFor(api, DEMO.employee)).length;
    const id = api.newDeviceId();
    const wrongs = [
      { email: DEMO.employee, answer: "london", questOid: "q-birth-city" },
      // The right answer to the wrong question.
      { email: DEMO.employee, answer: "paris", questOid: "q-first-pet" },
      // Another user's right answer.
      { email: DEMO.employee, answer: "rex", questOid: "q-first-pet" },
      // An unknown email looks the same as a wrong answer.
      { email: "nobody@demo.example", answer: "paris", questOid: "q-birth-city" },
      // Spaces inside the answer are not dropped.
      { email: DEMO.employee, answer: "pa ris", questOid: "q-birth-city" },
    ];
    for (const body of wrongs) {
      assertError(
        await api.call("POST", `${E}/pwasecretanswer`, { body, headers: dev(id) }),
        400,
        "wrong_answer",
        "Something went wrong",
      );
    }
    assert.equal((await codesFor(api, DEMO.employee)).length, before);
  }),
);

Deno.test(
  "[session] pwasecretanswer: the right answer (any case, outer spaces) mails a new code that activates",
  withApp(async (api) => {
    const old = await codesFor(api, DEMO.employee);
    assert.equal(old.length, 1);
    const id = api.newDeviceId();
    const r = await api.call("POST", `${E}/pwasecretanswer`, {
      body: { email: " EMPLOYEE@demo.example ", answer: "  PaRiS  ", questOid: "q-birth-city" },
      headers: dev(id),
    });
    assertOk(r);
    assert.equal(
      r.json.message,
      "A new activation email has been sent. Enter its code to activate this device.",
    );
    const fresh = (await codesFor(api, DEMO.employee)).filter((c) => !old.includes(c));
    assert.equal(fresh.length, 1, "exactly one new code is mailed");
    // The old code is revoked, and the new one is bound to the device that asked for it.
    assertError(await checkValidation(api, api.newDeviceId(), old[0]), 400, "invalid_code");
    assertError(await checkValidation(api, api.newDeviceId(), fresh[0]), 400, "invalid_code");
    const v = await checkValidation(api, id, fresh[0]);
    assertOk(v);
    assert.equal(v.json.fname, "Emma");
    const p = await confirmPin(api, id, fresh[0], "135790");
    assertOk(p);
    const lists = await api.call("GET", `${E}/pwalists`, { headers: bearer(String(p.json.token)) });
    assertOk(lists);
    assert.equal(lists.json.username, DEMO.employee);
  }),
);

Deno.test(
  "[session] pwasecretanswer refuses missing, mistyped and malformed input",
  withApp(async (api) => {
    await assertRefusesBadInput(
      api,
      `${E}/pwasecretanswer`,
      { email: DEMO.employee, answer: "paris", questOid: "q-birth-city" },
      [
        { email: DEMO.employee, answer: "   ", questOid: "q-birth-city" },
        { email: DEMO.employee, answer: "paris", questOid: "" },
        { email: DEMO.employee, answer: "x".repeat(201), questOid: "q-birth-city" },
        { email: "a@b", answer: "paris", questOid: "q-birth-city" },
      ],
    );
  }),
);

Deno.test(
  "[session] secret answers: 5 tries per device and address an hour, then blind past 20 a day",
  withApp(async (api) => {
    const answer = (id: string, a: string) =>
      api.call("POST", `${E}/pwasecretanswer`, {
        body: { email: DEMO.employee, answer: a, questOid: "q-birth-city" },
        headers: dev(id),
      });
    const one = api.newDeviceId();
    for (let i = 0; i < 5; i++) assertError(await answer(one, `guess${i}`), 400, "wrong_answer");
    // That device is slowed down; nobody else is.
    assertError(await answer(one, "paris"), 429, "rate_limited");
    for (let i = 5; i < 20; i++) {
      assertError(await answer(api.newDeviceId(), `guess${i}`), 400, "wrong_answer");
    }
    // Past the address's daily budget, right and wrong answers look the same...
    const blindWrong = await answer(api.newDeviceId(), "london");
    const owner = api.newDeviceId();
    const blindRight = await answer(owner, "paris");
    assertOk(blindWrong);
    assertOk(blindRight);
    assert.deepEqual(blindWrong.json, blindRight.json);
    // ...but the right one still mails the owner a code bound to their device.
    const code = await api.latestCode(DEMO.employee);
    assertOk(await checkValidation(api, owner, code));
  }),
);

// ---------------------------------------------------------------------------------------------
// pwaregisterpushtoken

/** A PushSubscription's JSON (issue 13 checks its shape: tests/server/push_test.ts). */
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
