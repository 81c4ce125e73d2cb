/**
 * Passkey unlock (server/domain/passkeys.ts): registration and assertion verification with a
 * software authenticator (real P-256 signatures, real attestation objects), replays, other
 * devices' passkeys, user verification, the failure count shared with the PIN, challenge
 * expiry, switching off and unregistration. In-process, no sockets.
 */
import assert from "node:assert/strict";
import { DEMO, type TestApi, withApp } from "../helpers.ts";
import { assertError, assertOk, bearer } from "./api.ts";
import { type SoftAuthenticator, softAuthenticator } from "./soft_authenticator.ts";

const E = "/scmapi/expense";
const ORIGIN = "http://localhost:8000"; // PUBLIC_URL's default
const RP_ID = "localhost";
const dev = (id: string) => ({ "device-id": id });

/** An activated device of `email` with a passkey registered; its token, id and authenticator. */
async function withPasskey(api: TestApi, email = DEMO.employee) {
  const { token, deviceId } = await api.activate(email);
  const auth = await softAuthenticator();
  const o = await api.call("POST", `${E}/pwapasskeyregoptions`, { headers: bearer(token) });
  assertOk(o);
  const options = o.json.options as { challenge: string; rp: { id?: string } };
  const r = await api.call("POST", `${E}/pwapasskeyregister`, {
    body: { response: await auth.register(options, ORIGIN) },
    headers: bearer(token),
  });
  assertOk(r);
  return { token, deviceId, auth };
}

async function unlockOptions(api: TestApi, deviceId: string) {
  const r = await api.call("POST", `${E}/pwapasskeyunlockoptions`, { headers: dev(deviceId) });
  assertOk(r);
  return r.json.options as { challenge: string; allowCredentials: { id: string }[] };
}

function unlock(api: TestApi, deviceId: string, token: string, response: unknown) {
  return api.call("POST", `${E}/pwapasskeyunlock`, {
    body: { token, response },
    headers: dev(deviceId),
  });
}

async function assertion(api: TestApi, deviceId: string, auth: SoftAuthenticator) {
  const { challenge } = await unlockOptions(api, deviceId);
  return await auth.assert(challenge, RP_ID, ORIGIN);
}

const failures = async (api: TestApi, deviceId: string) =>
  (await api.deps.store.devices.get(deviceId)).value?.pinFailures;

Deno.test(
  "[passkey] registration is verified and bound to the bearer's device",
  withApp(async (api) => {
    const { deviceId, auth } = await withPasskey(api);
    const d = (await api.deps.store.devices.get(deviceId)).value!;
    assert.equal(d.passkey?.id, auth.credentialId);
    const options = await unlockOptions(api, deviceId);
    assert.deepEqual(options.allowCredentials.map((c) => c.id), [auth.credentialId]);

    // Registration needs a bearer; a device-id alone is refused before anything is read.
    const anon = await api.call("POST", `${E}/pwapasskeyregoptions`, { headers: dev(deviceId) });
    assertError(anon, 401);
  }),
);

Deno.test(
  "[passkey] a registration for another challenge or origin, or replayed, is refused",
  withApp(async (api) => {
    const { token } = await api.activate(DEMO.employee);
    const auth = await softAuthenticator();
    const h = bearer(token);
    const opts = async () =>
      (await api.call("POST", `${E}/pwapasskeyregoptions`, { headers: h })).json.options as {
        challenge: string;
        rp: { id?: string };
      };
    const register = (response: unknown) =>
      api.call("POST", `${E}/pwapasskeyregister`, { body: { response }, headers: h });
    const o1 = await opts();
    assertError(
      await register(await auth.register({ ...o1, challenge: "bm90LXRoZS1jaGFsbGVuZ2U" }, ORIGIN)),
      400,
      "invalid_passkey",
    );
    // Another origin than PUBLIC_URL's is a set-up fault, named with both origins.
    const o2 = await opts();
    const evil = await register(await auth.register(o2, "http://evil.example"));
    assertError(evil, 400, "origin_mismatch");
    assert.match(String(evil.json.message), /http:\/\/evil\.example.*http:\/\/localhost:8000/);
    assert.equal(evil.json.expected, ORIGIN);
    const o3 = await opts();
    const good = await auth.register(o3, ORIGIN);
    assertOk(await register(good));
    // The challenge was used: the same response again is refused.
    assertError(await register(good), 400, "invalid_passkey");
  }),
);

Deno.test(
  "[passkey] an unlock with the device's passkey rotates the token like a PIN unlock",
  withApp(async (api) => {
    const { token, deviceId, auth } = await withPasskey(api);
    // A wrong PIN first: the passkey's success resets the device's one failure count.
    assertError(
      await api.call("POST", `${E}/pwacheckpinvalid`, {
        body: { token, pin: "975310" },
        headers: dev(deviceId),
      }),
      403,
      "wrong_pin",
    );
    const r = await unlock(api, deviceId, token, await assertion(api, deviceId, auth));
    assertOk(r);
    const fresh = String(r.json.token);
    assert.notEqual(fresh, token);
    assert.equal(await failures(api, deviceId), 0);
    assertOk(await api.call("GET", `${E}/pwalists`, { headers: bearer(fresh) }));
    const d = (await api.deps.store.devices.get(deviceId)).value!;
    assert.equal(d.passkey?.counter, auth.counter);
    // The PIN still unlocks, with the new token.
    assertOk(
      await api.call("POST", `${E}/pwacheckpinvalid`, {
        body: { token: fresh, pin: "135790" },
        headers: dev(deviceId),
      }),
    );
  }),
);

Deno.test(
  "[passkey] a replayed assertion is refused as stale, not counted; an old counter is counted",
  withApp(async (api) => {
    const { token, deviceId, auth } = await withPasskey(api);
    const a = await assertion(api, deviceId, auth);
    const first = await unlock(api, deviceId, token, a);
    assertOk(first);
    const fresh = String(first.json.token);
    // Challenge reuse: the same assertion again, before and after a new prompt is opened.
    assertError(await unlock(api, deviceId, fresh, a), 409, "stale_challenge");
    const { challenge } = await unlockOptions(api, deviceId);
    assertError(await unlock(api, deviceId, fresh, a), 409, "stale_challenge");
    assert.equal(await failures(api, deviceId), 0);
    // The new challenge signed with an old counter (a cloned authenticator): counted.
    const stale = await auth.assert(challenge, RP_ID, ORIGIN, { counter: 1 });
    const cloned = await unlock(api, deviceId, fresh, stale);
    assertError(cloned, 403, "wrong_passkey");
    assert.equal(cloned.json.attemptsLeft, 4);
    assert.equal(await failures(api, deviceId), 1);
  }),
);

Deno.test(
  "[passkey] another device's passkey is refused",
  withApp(async (api) => {
    const a = await withPasskey(api, DEMO.employee);
    await api.deps.store.devices.get(a.deviceId);
    const b = await withPasskey(api, DEMO.approver);
    // B's authenticator answers A's challenge: a valid signature, not A's credential.
    const { challenge } = await unlockOptions(api, a.deviceId);
    const foreign = await b.auth.assert(challenge, RP_ID, ORIGIN);
    assertError(await unlock(api, a.deviceId, a.token, foreign), 403, "wrong_passkey");
    // B's own assertion with A's token on B's device: not B's token.
    const own = await assertion(api, b.deviceId, b.auth);
    assertError(await unlock(api, b.deviceId, a.token, own), 403, "wrong_passkey");
    // A's credential id on B's signature (id swapped): the signature does not verify.
    const { challenge: c2 } = await unlockOptions(api, a.deviceId);
    const swapped = await b.auth.assert(c2, RP_ID, ORIGIN);
    const forged = { ...swapped, id: a.auth.credentialId, rawId: a.auth.credentialId };
    assertError(await unlock(api, a.deviceId, a.token, forged), 403, "wrong_passkey");
    assert.equal(await failures(api, a.deviceId), 2);
    assert.equal(await failures(api, b.deviceId), 1);
  }),
);

Deno.test(
  "[passkey] an assertion without user verification or for another origin is refused",
  withApp(async (api) => {
    const { token, deviceId, auth } = await withPasskey(api);
    const c1 = (await unlockOptions(api, deviceId)).challenge;
    const noUv = await auth.assert(c1, RP_ID, ORIGIN, { userVerified: false });
    assertError(await unlock(api, deviceId, token, noUv), 403, "wrong_passkey");
    const c2 = (await unlockOptions(api, deviceId)).challenge;
    const phish = await auth.assert(c2, "evil.example", "http://evil.example");
    assertError(await unlock(api, deviceId, token, phish), 403, "wrong_passkey");
  }),
);

Deno.test(
  "[passkey] failures share the PIN's count: the fifth unregisters the device and its passkey",
  withApp(async (api) => {
    const { token, deviceId, auth } = await withPasskey(api);
    for (let i = 0; i < 2; i++) {
      assertError(
        await api.call("POST", `${E}/pwacheckpinvalid`, {
          body: { token, pin: "975310" },
          headers: dev(deviceId),
        }),
        403,
        "wrong_pin",
      );
    }
    // The browser gave no assertion (user verification failed): counted all the same.
    await unlockOptions(api, deviceId);
    const r3 = await unlock(api, deviceId, token, null);
    assertError(r3, 403, "wrong_passkey");
    assert.equal(r3.json.attemptsLeft, 2);
    // No prompt open (no challenge): stale, not counted.
    assertError(await unlock(api, deviceId, token, null), 409, "stale_challenge");
    await unlockOptions(api, deviceId);
    assertError(await unlock(api, deviceId, "", null), 403, "wrong_passkey");
    await unlockOptions(api, deviceId);
    assertError(await unlock(api, deviceId, token, null), 403, "unregistered");
    assert.equal((await api.deps.store.devices.get(deviceId)).value, null);
    // Gone with the device: no options, and a valid assertion no longer unlocks.
    const o = await api.call("POST", `${E}/pwapasskeyunlockoptions`, { headers: dev(deviceId) });
    assertError(o, 403, "unregistered");
    const late = await auth.assert("c29tZS1jaGFsbGVuZ2UtdmFsdWU", RP_ID, ORIGIN);
    assertError(await unlock(api, deviceId, token, late), 403, "unregistered");
  }),
);

Deno.test(
  "[passkey] parallel failed attempts are each counted before they are evaluated",
  withApp(async (api) => {
    const { token, deviceId } = await withPasskey(api);
    // Eight prompts opened and failed at once: each challenge admits one evaluation, counted.
    const rs = await Promise.all(
      Array.from({ length: 8 }, async () => {
        await api.call("POST", `${E}/pwapasskeyunlockoptions`, { headers: dev(deviceId) });
        return await unlock(api, deviceId, token, null);
      }),
    );
    assert.ok(rs.every((r) => r.status === 403 || r.status === 409), rs.map((r) => r.text).join());
    const counted = rs.filter((r) => r.status === 403).length;
    const wrong = rs.filter((r) => r.json.error === "wrong_passkey").length;
    assert.ok(counted >= 1 && wrong <= 4, rs.map((r) => r.text).join());
    const d = (await api.deps.store.devices.get(deviceId)).value;
    if (wrong < counted) assert.equal(d, null, "a fifth counted failure unregisters");
    else assert.equal(d?.pinFailures, counted, "every evaluated failure is counted");
  }),
);

Deno.test(
  "[passkey] a challenge expires and is single-use",
  withApp(async (api) => {
    const { token, deviceId, auth } = await withPasskey(api);
    const { challenge } = await unlockOptions(api, deviceId);
    const now = api.deps.now;
    const later = now() + 3 * 60_000;
    api.deps.now = () => later;
    try {
      const a = await auth.assert(challenge, RP_ID, ORIGIN);
      assertError(await unlock(api, deviceId, token, a), 409, "stale_challenge");
    } finally {
      api.deps.now = now;
    }
    // A newer options call replaces the outstanding challenge: the older one is void (stale,
    // not counted), and the newer prompt still unlocks.
    const old = (await unlockOptions(api, deviceId)).challenge;
    const newer = (await unlockOptions(api, deviceId)).challenge;
    assertError(
      await unlock(api, deviceId, token, await auth.assert(old, RP_ID, ORIGIN)),
      409,
      "stale_challenge",
    );
    assert.equal(await failures(api, deviceId), 0);
    assertOk(await unlock(api, deviceId, token, await auth.assert(newer, RP_ID, ORIGIN)));
  }),
);

Deno.test(
  "[passkey] switching off deletes the passkey; unregistering the device deletes it too",
  withApp(async (api) => {
    const one = await withPasskey(api);
    assertOk(
      await api.call("POST", `${E}/pwapasskeydelete`, { headers: bearer(one.token) }),
    );
    assert.equal((await api.deps.store.devices.get(one.deviceId)).value?.passkey, undefined);
    assertError(
      await api.call("POST", `${E}/pwapasskeyunlockoptions`, { headers: dev(one.deviceId) }),
      404,
    );
    const two = await withPasskey(api, DEMO.approver);
    assertOk(
      await api.call("POST", `${E}/pwaunregister`, {
        body: { token: two.token },
        headers: dev(two.deviceId),
      }),
    );
    assert.equal((await api.deps.store.devices.get(two.deviceId)).value, null);
    assertError(await unlock(api, two.deviceId, two.token, null), 403, "unregistered");
  }),
);

Deno.test(
  "[passkey] the PRF output is refused in any request (clientExtensionResults must be empty)",
  withApp(async (api) => {
    const { token, deviceId, auth } = await withPasskey(api);
    const a = await assertion(api, deviceId, auth);
    const leaky = { ...a, clientExtensionResults: { prf: { results: { first: "AAAA" } } } };
    assertError(await unlock(api, deviceId, token, leaky), 400, "invalid_body");
    assert.equal(await failures(api, deviceId), 0);
  }),
);
