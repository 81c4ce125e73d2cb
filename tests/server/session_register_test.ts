/**
 * This file: pwacheckregistered and pwaunregister (the same subject goes on in
 * session_pin_test.ts).
 *
 * The session (spec §4 PIN unlock, §7 'Registration and session', §8, §9): PIN unlock and the
 * PIN attempt counter, earlier tokens of a device, registered check and unregister.
 * In-process, no sockets.
 */
import assert from "node:assert/strict";
import { DEMO, withApp } from "../helpers.ts";
import { assertError, assertOk, bearer } from "./api.ts";
import {
  assertRefusesBadInput,
  checkRegistered,
  checkValidation,
  dev,
  E,
  FOREIGN_TOKEN,
} from "./session_fixture.ts";

// ---------------------------------------------------------------------------------------------
// pwacheckpinvalid and the PIN attempt counter

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
