/**
 * Passkey unlock in the browser (spec §4, extended) with Chromium's virtual authenticator
 * through the DevTools protocol (engineering.md §6: WebAuthn.enable, addVirtualAuthenticator with
 * PRF): turned on in Options, the passkey unlocks after a reload without the PIN, offline too on
 * the cached data; a failed assertion counts towards the PIN's limit; the PIN still unlocks;
 * removing local data leaves no wrapper; without PRF the switch is not offered. Every algorithm the
 * server can offer that Chromium's authenticator makes keys for (ML-DSA-44 first, as Chromium 156
 * does) registers, survives a reload and unlocks; after a failed passkey unlock the next start does
 * not prompt by itself.
 */
import assert from "node:assert/strict";
import type { CDPSession, Page } from "puppeteer-core";
import { isoCBOR } from "@simplewebauthn/server/helpers";
import { COSE_ALGORITHMS, type CoseAlgorithmName } from "../../client/shared/webauthn_limits.ts";
import { fromB64url } from "../server/soft_authenticator.ts";
import {
  activate,
  click,
  dumpOnFailure,
  type Env,
  type Flavour,
  FLAVOURS,
  start,
  tapDigits,
  waitText,
} from "./harness.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const EMAIL = "employee@demo.example";
const SWITCH = "Unlock with fingerprint or face"; // Chromium on Linux: the generic wording

async function authenticator(page: Page, hasPrf: boolean) {
  const cdp: CDPSession = await page.createCDPSession();
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      hasPrf,
    },
  });
  return { cdp, authenticatorId };
}

/** QCDB's token record(s), as stored (the passkey wrapper is a field of the one record). */
function tokenRecords(page: Page) {
  return page.evaluate(async () => {
    const req = indexedDB.open("QCDB");
    const d: IDBDatabase = await new Promise((ok, ko) => {
      req.onsuccess = () => ok(req.result);
      req.onerror = () => ko(req.error);
    });
    const rows: { token: string; passkey?: { credentialId: string } }[] =
      d.objectStoreNames.contains("token")
        ? await new Promise((ok) => {
          const r = d.transaction("token").objectStore("token").getAll();
          r.onsuccess = () => ok(r.result);
        })
        : [];
    d.close();
    return rows;
  });
}

async function device(env: Env) {
  const user = await env.deps.store.users.byEmail(EMAIL);
  const [d] = await env.deps.store.devices.forUser(user!.oid);
  return d ?? null;
}

/** The COSE algorithm of the passkey the server keeps for this device. */
async function storedAlgorithm(env: Env): Promise<number | undefined> {
  const key = (await device(env))?.passkey?.publicKey;
  if (!key) return undefined;
  return isoCBOR.decodeFirst<Map<number, unknown>>(fromB64url(key)).get(3) as number;
}

/** The algorithms Chromium's virtual authenticator makes keys for, of those QCard offers. */
const CHROMIUM_ALGORITHMS: CoseAlgorithmName[] = ["ML-DSA-44", "ES256", "EdDSA", "RS256"];

async function openOptions(page: Page) {
  await click(page, "Open menu");
  await click(page, "Options");
}

/** The main screen is there: the menu button and the greeting from the (cached) lists. */
async function unlocked(page: Page) {
  await page.locator("::-p-aria(Open menu)").wait();
  await waitText(page, "Hello ");
}

/** One browser test: a fresh server, the employee activated, the page dumped on failure. */
function passkeyTest(flavour: Flavour, name: string, body: (env: Env, p: Page) => Promise<void>) {
  Deno.test({
    name,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      try {
        const p = await activate(env, EMAIL);
        await dumpOnFailure(p, () => body(env, p));
      } finally {
        await env.close();
      }
    },
  });
}

for (const flavour of FLAVOURS) {
  passkeyTest(
    flavour,
    `[e2e:${flavour}] passkey: on in Options, a reload unlocks without the PIN (offline too, on cached data); a failed assertion counts; remove local data leaves no wrapper`,
    async (env, p) => {
      const { cdp, authenticatorId } = await authenticator(p, true);
      await openOptions(p);
      await click(p, SWITCH);
      await waitText(p, "Your PIN still unlocks QCard.");
      const [rec] = await tokenRecords(p);
      assert.ok(rec.passkey?.credentialId, "the passkey wrapper is stored with the token");
      assert.ok(rec.token.startsWith("v2."));
      // What the server knows is WebAuthn public data only, bound to this device.
      const withKey = await device(env);
      assert.equal(withKey?.passkey?.id, rec.passkey.credentialId);
      assert.ok(!JSON.stringify(rec.passkey).includes("results"));

      // Reload: the prompt opens by itself and unlocks; no PIN typed. The token rotated.
      await p.reload();
      await unlocked(p);
      const rotated = await device(env);
      assert.notEqual(rotated?.tokenHash, withKey?.tokenHash);
      assert.equal(rotated?.pinFailures, 0);

      // Offline: the passkey opens the data key and the cached lists show.
      await p.setOfflineMode(true);
      await p.reload();
      await unlocked(p);
      await waitText(p, "offline");
      await p.setOfflineMode(false);

      // The server refuses the passkey (here: it is bound to another origin for a moment):
      // a failed unlock, counted.
      const publicUrl = env.deps.config.PUBLIC_URL;
      env.deps.config.PUBLIC_URL = publicUrl.replace("localhost", "127.0.0.1");
      await p.reload();
      await waitText(p, "Passkey not used or not accepted. 4 attempts left");
      env.deps.config.PUBLIC_URL = publicUrl;
      assert.equal((await device(env))?.pinFailures, 1);
      // The next start does not prompt by itself (it would spend an attempt at every start):
      // the PIN pad says the passkey did not work; its button tries again, and unlocks.
      const asked: string[] = [];
      const seen = (r: { url(): string }) => {
        if (r.url().includes("pwapasskeyunlock")) asked.push(r.url());
      };
      p.on("request", seen);
      await p.reload();
      await waitText(p, "Your passkey did not work last time.");
      assert.deepEqual(asked, [], "no prompt, no attempt");
      p.off("request", seen);
      assert.equal((await device(env))?.pinFailures, 1);
      await click(p, SWITCH);
      await unlocked(p);
      assert.equal((await device(env))?.pinFailures, 0);
      await p.reload();
      await unlocked(p); // it worked: the prompt opens by itself again

      // A failed assertion (user verification fails) counts towards the PIN's limit.
      await cdp.send("WebAuthn.setUserVerified", { authenticatorId, isUserVerified: false });
      await p.reload();
      await waitText(p, "Passkey not used or not accepted. 4 attempts left");
      assert.equal((await device(env))?.pinFailures, 1);
      // Not again by itself (once per start); the PIN still unlocks, and resets the count.
      await waitText(p, SWITCH);
      await tapDigits(p, "135790");
      await unlocked(p);
      assert.equal((await device(env))?.pinFailures, 0);

      // Remove local data: no wrapper left on the device, and the server forgot it all.
      await openOptions(p);
      await click(p, "Remove local data");
      await click(p, "Remove");
      await waitText(p, "Enter the 5-digit code");
      assert.deepEqual(await tokenRecords(p), []);
      assert.equal(await device(env), null);
    },
  );

  passkeyTest(
    flavour,
    `[e2e:${flavour}] passkey: an authenticator without PRF → the switch is not offered`,
    async (env, p) => {
      await authenticator(p, false);
      await openOptions(p);
      await click(p, SWITCH);
      await waitText(p, "no PRF support");
      assert.equal(await p.$('::-p-aria([name="' + SWITCH + '"][role="switch"])'), null);
      const [rec] = await tokenRecords(p);
      assert.equal(rec.passkey, undefined);
      assert.equal((await device(env))?.passkey, undefined);
      // Options opened again: still not offered, the reason still said.
      await click(p, "Back");
      await openOptions(p);
      await waitText(p, "no PRF support");
      assert.equal(await p.$('::-p-aria([name="' + SWITCH + '"][role="switch"])'), null);
      // And the unlock screen offers no passkey: the PIN unlocks.
      await p.reload();
      await waitText(p, "Enter your PIN");
      assert.ok(!(await p.evaluate(() => document.body.innerText)).includes(SWITCH));
    },
  );
}

for (const flavour of FLAVOURS) {
  passkeyTest(
    flavour,
    `[e2e:${flavour}] passkey: each algorithm offered (${
      CHROMIUM_ALGORITHMS.join(", ")
    }) registers, survives a reload and unlocks`,
    async (env, p) => {
      await authenticator(p, true);
      for (const alg of CHROMIUM_ALGORITHMS) {
        // The server offers this one alone: the authenticator must use it.
        env.deps.config.PASSKEY_ALGORITHMS = [alg];
        await openOptions(p);
        await click(p, SWITCH);
        await waitText(p, "Your PIN still unlocks QCard.");
        assert.equal(await storedAlgorithm(env), COSE_ALGORITHMS[alg].id, alg);
        const before = (await device(env))?.tokenHash;
        await p.reload();
        await unlocked(p);
        const after = await device(env);
        assert.notEqual(after?.tokenHash, before, `${alg}: unlocked by the server`);
        assert.equal(after?.pinFailures, 0, alg);
        assert.ok((after?.passkey?.counter ?? 0) >= 0);
        // Off again, for the next algorithm.
        await openOptions(p);
        await click(p, SWITCH);
        await waitText(p, "Passkey unlock is off.");
        await click(p, "Back");
      }
    },
  );
}
