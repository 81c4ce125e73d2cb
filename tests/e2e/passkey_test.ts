/**
 * Passkey unlock in the browser (spec §4, extended) with Chromium's virtual authenticator
 * through the DevTools protocol (GUIDE §6: WebAuthn.enable, addVirtualAuthenticator with PRF):
 * turned on in Options, the passkey unlocks after a reload without the PIN, offline too on the
 * cached data; a failed assertion counts towards the PIN's limit; the PIN still unlocks;
 * removing local data leaves no wrapper; without PRF the switch is not offered.
 */
import assert from "node:assert/strict";
import type { CDPSession, Page } from "puppeteer-core";
import {
  activate,
  click,
  dumpOnFailure,
  type Env,
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

async function openOptions(page: Page) {
  await click(page, "Open menu");
  await click(page, "Options");
}

/** The main screen is there: the menu button and the greeting from the (cached) lists. */
async function unlocked(page: Page) {
  await page.locator("::-p-aria(Open menu)").wait();
  await waitText(page, "Hello ");
}

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] passkey: on in Options, a reload unlocks without the PIN (offline too, on cached data); a failed assertion counts; remove local data leaves no wrapper`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      let page: Page | null = null;
      try {
        page = await activate(env, EMAIL);
        const p = page;
        await dumpOnFailure(p, async () => {
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
        });
      } finally {
        await env.close();
      }
    },
  });

  Deno.test({
    name: `[e2e:${flavour}] passkey: an authenticator without PRF → the switch is not offered`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      let page: Page | null = null;
      try {
        page = await activate(env, EMAIL);
        const p = page;
        await dumpOnFailure(p, async () => {
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
        });
      } finally {
        await env.close();
      }
    },
  });
}
