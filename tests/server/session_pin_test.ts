/**
 * This file: pwacheckpinvalid and the attempt counter, earlier tokens (the same subject goes on in
 * session_register_test.ts).
 *
 * The session (spec §4 PIN unlock, §7 'Registration and session', §8, §9): PIN unlock and the
 * PIN attempt counter, earlier tokens of a device, registered check and unregister.
 * In-process, no sockets.
 */
import assert from "node:assert/strict";
import { DEMO, type TestApi, withApp } from "../helpers.ts";
import { assertError, assertOk, bearer } from "./api.ts";
import {
  assertRefusesBadInput,
  checkPin,
  checkRegistered,
  checkValidation,
  dev,
  E,
  FOREIGN_TOKEN,
} from "./session_fixture.ts";

// ---------------------------------------------------------------------------------------------
// pwacheckpinvalid and the PIN attempt counter

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
