/**
 * Passkeys on today's authenticators (issue 32 §1, §6): every algorithm QCard can offer
 * (client/shared/webauthn_limits.ts) registers and unlocks end to end through the contract with
 * signatures and keys as large as it makes them (ML-DSA-87: 4,627-byte signatures); the bounds
 * come from those sizes and the largest registration still fits a JSON body; a body refused as
 * malformed is not an attempt; a set-up fault (another origin) is named in the log; an unlock
 * in flight never writes back a passkey switched off or replaced meanwhile; copies of one
 * assertion are one attempt, not ten.
 */
import assert from "node:assert/strict";
import { createApp, MAX_JSON_BODY } from "../../server/app/app.ts";
import { runtimeVerifies } from "../../server/domain/passkeys.ts";
import { createLogger } from "../../server/log.ts";
import {
  b64urlChars,
  COSE_ALGORITHMS,
  type CoseAlgorithmName,
  WEBAUTHN_LIMITS,
} from "../../client/shared/webauthn_limits.ts";
import { DEMO, type TestApi, testApp, withApp } from "../helpers.ts";
import { assertError, assertOk, bearer } from "./api.ts";
import { softAuthenticator } from "./soft_authenticator.ts";
import type { Device } from "../../server/store/devices.ts";

const E = "/scmapi/expense";
const ORIGIN = "http://localhost:8000";
const RP_ID = "localhost";
const dev = (id: string) => ({ "device-id": id });

async function regOptions(api: TestApi, token: string) {
  const o = await api.call("POST", `${E}/pwapasskeyregoptions`, { headers: bearer(token) });
  assertOk(o);
  return o.json.options as {
    challenge: string;
    rp: { id?: string };
    pubKeyCredParams: { alg: number }[];
  };
}

async function register(api: TestApi, token: string, alg: CoseAlgorithmName = "ES256") {
  const auth = await softAuthenticator(alg);
  const body = { response: await auth.register(await regOptions(api, token), ORIGIN) };
  return {
    auth,
    res: await api.call("POST", `${E}/pwapasskeyregister`, { body, headers: bearer(token) }),
  };
}

async function challenge(api: TestApi, deviceId: string): Promise<string> {
  const r = await api.call("POST", `${E}/pwapasskeyunlockoptions`, { headers: dev(deviceId) });
  assertOk(r);
  return String((r.json.options as { challenge: string }).challenge);
}

const unlock = (api: TestApi, deviceId: string, token: string, response: unknown) =>
  api.call("POST", `${E}/pwapasskeyunlock`, { body: { token, response }, headers: dev(deviceId) });

const device = async (api: TestApi, id: string) => (await api.deps.store.devices.get(id)).value;

for (const name of Object.keys(COSE_ALGORITHMS) as CoseAlgorithmName[]) {
  Deno.test({
    name: `[passkey] ${name} offered alone: registers, and unlocks twice through the contract`,
    // Deno Deploy's runtime (2.5.0) has no ML-DSA: the server does not offer it there.
    ignore: !(await runtimeVerifies(name)),
    fn: async () => {
      const api = await testApp({ PASSKEY_ALGORITHMS: name });
      try {
        const { token, deviceId } = await api.activate(DEMO.employee);
        const options = await regOptions(api, token);
        assert.deepEqual(options.pubKeyCredParams.map((p) => p.alg), [COSE_ALGORITHMS[name].id]);
        const auth = await softAuthenticator(name);
        const r = await api.call("POST", `${E}/pwapasskeyregister`, {
          body: { response: await auth.register(options, ORIGIN) },
          headers: bearer(token),
        });
        assertOk(r);
        let current = token;
        for (let i = 0; i < 2; i++) {
          const a = await auth.assert(await challenge(api, deviceId), RP_ID, ORIGIN);
          const sig = String((a.response as { signature: string }).signature);
          assert.ok(sig.length <= WEBAUTHN_LIMITS.signature, `${sig.length} within the bound`);
          const u = await unlock(api, deviceId, current, a);
          assertOk(u);
          current = String(u.json.token);
        }
        assert.equal((await device(api, deviceId))?.passkey?.counter, 2);
        assert.equal((await device(api, deviceId))?.pinFailures, 0);
      } finally {
        await api.close();
      }
    },
  });
}

Deno.test(
  "[passkey] a key of an algorithm not offered is refused at registration",
  withApp(async (api) => {
    const { token } = await api.activate(DEMO.employee);
    const { res } = await register(api, token, "EdDSA");
    assertError(res, 400, "invalid_passkey");
    assert.equal(
      (await device(
        api,
        (await api.deps.store.devices.forUser(
          (await api.deps.store.users.byEmail(DEMO.employee))!.oid,
        ))[0].deviceId,
      ))?.passkey,
      undefined,
    );
  }, { PASSKEY_ALGORITHMS: "ES256,RS256" }),
);

Deno.test("[passkey] the bounds come from the algorithms' sizes and fit a JSON body", () => {
  const largestSig = Math.max(...Object.values(COSE_ALGORITHMS).map((a) => a.signature));
  assert.equal(largestSig, 4627, "ML-DSA-87 (FIPS 204) is the largest");
  assert.equal(WEBAUTHN_LIMITS.signature, b64urlChars(4627));
  // ML-DSA-44, as Chromium 156 uses it: 2,420 bytes, 3,227 characters.
  assert.equal(b64urlChars(COSE_ALGORITHMS["ML-DSA-44"].signature), 3227);
  assert.equal(WEBAUTHN_LIMITS.credentialId, b64urlChars(1023));
  // The largest registration the contract admits still fits the JSON body limit.
  const fields = WEBAUTHN_LIMITS.attestationObject + WEBAUTHN_LIMITS.clientDataJSON +
    2 * WEBAUTHN_LIMITS.credentialId + 512;
  assert.ok(fields < MAX_JSON_BODY, `${fields} < ${MAX_JSON_BODY}`);
});

Deno.test(
  "[passkey] a body refused as malformed is not an attempt; its error code is logged",
  async () => {
    const api = await testApp({ PASSKEY_ALGORITHMS: "ES256" });
    const lines: string[] = [];
    const app = createApp(api.deps, { logger: createLogger("info", (l) => lines.push(l)) });
    try {
      const { token, deviceId } = await api.activate(DEMO.employee);
      const auth = await softAuthenticator("ES256");
      const body = { response: await auth.register(await regOptions(api, token), ORIGIN) };
      assertOk(await api.call("POST", `${E}/pwapasskeyregister`, { body, headers: bearer(token) }));
      const a = await auth.assert(await challenge(api, deviceId), RP_ID, ORIGIN);
      const r = a.response as { signature: string };
      const tooBig = {
        ...a,
        response: { ...r, signature: "A".repeat(WEBAUTHN_LIMITS.signature + 1) },
      };
      const res = await app.request(`/bonita${E}/pwapasskeyunlock`, {
        method: "POST",
        headers: { "content-type": "application/json", ...dev(deviceId) },
        body: JSON.stringify({ token, response: tooBig }),
      });
      assert.equal(res.status, 400);
      assert.equal((await res.json()).error, "invalid_body");
      assert.equal((await device(api, deviceId))?.pinFailures, 0, "not counted");
      const line = JSON.parse(lines.at(-1)!);
      assert.equal(line.error, "invalid_body");
      assert.equal(line.status, 400);
      // The challenge is still there: the real assertion unlocks.
      assertOk(await unlock(api, deviceId, token, a));
    } finally {
      await api.close();
    }
  },
);

Deno.test("[passkey] a page on another origin than PUBLIC_URL is named in the log", async () => {
  const api = await testApp();
  const lines: string[] = [];
  const app = createApp(api.deps, { logger: createLogger("info", (l) => lines.push(l)) });
  try {
    const { token } = await api.activate(DEMO.employee);
    const auth = await softAuthenticator();
    const options = await regOptions(api, token);
    const res = await app.request(`/bonita${E}/pwapasskeyregister`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(token) },
      body: JSON.stringify({ response: await auth.register(options, "http://localhost:8123") }),
    });
    assert.equal(res.status, 400);
    const line = JSON.parse(lines.at(-1)!);
    assert.equal(line.level, "warn");
    assert.equal(line.error, "origin_mismatch");
    assert.match(line.message, /http:\/\/localhost:8123.*http:\/\/localhost:8000/);
  } finally {
    await api.close();
  }
});

/**
 * Runs `during` once, when the unlock re-reads the device to rotate its token (the second read
 * of the device after the unlock started): the moment a switch-off or a new registration lands
 * between the assertion's evaluation and the unlock's write.
 */
function betweenEvaluationAndWrite(api: TestApi, deviceId: string, during: () => Promise<void>) {
  const devices = api.deps.store.devices;
  const get = devices.get.bind(devices);
  let reads = 0;
  let fired = false;
  devices.get = async (id: string) => {
    if (id === deviceId && !fired && ++reads === 2) {
      fired = true;
      await during();
    }
    return await get(id);
  };
  return () => {
    devices.get = get;
    return fired;
  };
}

Deno.test(
  "[passkey] switched off while an unlock is in flight: the unlock answers, the passkey stays off",
  withApp(async (api) => {
    const { token, deviceId } = await api.activate(DEMO.employee);
    const { auth, res } = await register(api, token);
    assertOk(res);
    const a = await auth.assert(await challenge(api, deviceId), RP_ID, ORIGIN);
    const restore = betweenEvaluationAndWrite(api, deviceId, async () => {
      assertOk(await api.call("POST", `${E}/pwapasskeydelete`, { headers: bearer(token) }));
    });
    const u = await unlock(api, deviceId, token, a);
    assert.ok(restore(), "the switch-off landed mid-unlock");
    assertOk(u);
    assert.equal((await device(api, deviceId))?.passkey, undefined, "not written back");
    // And it no longer unlocks.
    const o = await api.call("POST", `${E}/pwapasskeyunlockoptions`, { headers: dev(deviceId) });
    assertError(o, 404);
  }),
);

Deno.test(
  "[passkey] a passkey registered while an unlock is in flight is not replaced by the old one",
  withApp(async (api) => {
    const { token, deviceId } = await api.activate(DEMO.employee);
    const { auth, res } = await register(api, token);
    assertOk(res);
    const a = await auth.assert(await challenge(api, deviceId), RP_ID, ORIGIN);
    let newer = "";
    const restore = betweenEvaluationAndWrite(api, deviceId, async () => {
      const r = await register(api, token, "EdDSA");
      assertOk(r.res);
      newer = r.auth.credentialId;
    });
    assertOk(await unlock(api, deviceId, token, a));
    assert.ok(restore());
    const d = await device(api, deviceId) as Device;
    assert.equal(d.passkey?.id, newer);
    assert.equal(d.passkey?.counter, 0, "the new passkey's own counter");
  }),
);

Deno.test(
  "[passkey] ten concurrent copies of one valid assertion: one unlock, nine stale, none counted",
  withApp(async (api) => {
    const { token, deviceId } = await api.activate(DEMO.employee);
    const { auth, res } = await register(api, token);
    assertOk(res);
    const a = await auth.assert(await challenge(api, deviceId), RP_ID, ORIGIN);
    const rs = await Promise.all(Array.from({ length: 10 }, () => unlock(api, deviceId, token, a)));
    assert.equal(rs.filter((r) => r.status === 200).length, 1, rs.map((r) => r.text).join());
    assert.ok(rs.every((r) => r.status === 200 || r.json.error === "stale_challenge"));
    const d = await device(api, deviceId);
    assert.equal(d?.status, "active", "still registered");
    assert.equal(d?.pinFailures, 0);
  }),
);
