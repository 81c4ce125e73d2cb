import assert from "node:assert/strict";
import { activate, click, definePin, FLAVOURS, start, tapDigits, waitText } from "./harness.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

for (const flavour of FLAVOURS) {
  Deno.test({
    name: `[e2e:${flavour}] five wrong PINs wipe local data and return to activation`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      try {
        const page = await activate(env, "employee@demo.example");
        // QCDB v11 with the nine stores; the token store holds only the sealed token.
        const db = await page.evaluate(async () => {
          const req = indexedDB.open("QCDB");
          const d: IDBDatabase = await new Promise((ok, ko) => {
            req.onsuccess = () => ok(req.result);
            req.onerror = () => ko(req.error);
          });
          const stores = Array.from(d.objectStoreNames).sort();
          const rows: unknown[] = await new Promise((ok) => {
            const r = d.transaction("token").objectStore("token").getAll();
            r.onsuccess = () => ok(r.result);
          });
          d.close();
          return { version: d.version, stores, rows, cookie: document.cookie };
        });
        assert.equal(db.version, 11);
        assert.deepEqual(db.stores, [
          "approvals",
          "costcenters",
          "currencylist",
          "deviceid",
          "ledgercodes",
          "lists",
          "projectcodes",
          "token",
          "types",
        ]);
        assert.equal(db.rows.length, 1);
        const row = db.rows[0] as { token: string; pinlength: number };
        assert.match(
          row.token,
          /^v2\.600000\./,
          "sealed with 600k iterations (data key, PIN wrapper)",
        );
        assert.equal(row.pinlength, 6);
        assert.match(db.cookie, /qc_pinlength=6/);
        assert.match(db.cookie, /qc_enctoken=v2\./);
        // The clear token never reaches the cookie jar.
        const cookies = await page.cookies();
        for (const c of cookies) assert.equal(c.sameSite, "Strict", c.name);

        await page.reload();
        await waitText(page, "Enter your PIN");
        for (let i = 1; i <= 4; i++) {
          await tapDigits(page, "246801");
          await waitText(page, `${5 - i} ${5 - i === 1 ? "attempt" : "attempts"} left`);
        }
        await tapDigits(page, "246801");
        await waitText(page, "Too many wrong PINs");
        await waitText(page, "Enter the 5-digit code");
        const after = await page.evaluate(async () => {
          const req = indexedDB.open("QCDB");
          const d: IDBDatabase = await new Promise((ok) => (req.onsuccess = () => ok(req.result)));
          const tokens = d.objectStoreNames.contains("token")
            ? await new Promise<number>((ok) => {
              const r = d.transaction("token").objectStore("token").count();
              r.onsuccess = () => ok(r.result);
            })
            : 0;
          d.close();
          return { cookie: document.cookie, tokens };
        });
        assert.doesNotMatch(after.cookie, /qc_enctoken|qc_pinlength/);
        assert.equal(after.tokens, 0, "the sealed token was wiped from QCDB");
        // The server unregistered the device too: its old registration is gone.
        const devices = await env.deps.store.devices.forUser(
          (await env.deps.store.users.byEmail("employee@demo.example"))!.oid,
        );
        assert.equal(devices.length, 0);
        // And it stays wiped after a reload: activation, not unlock.
        await page.reload();
        await waitText(page, "Enter the 5-digit code");
      } finally {
        await env.close();
      }
    },
  });

  Deno.test({
    name: `[e2e:${flavour}] lost activation via secret question mails a new code that activates`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      try {
        const page = await env.newPage();
        await page.goto(env.url);
        await waitText(page, "Enter the 5-digit code");
        await click(page, "No code, or it expired? Send activation email");
        // An unknown address looks like a known one (no enumeration): a question, and a
        // wrong answer's message.
        await page.locator("::-p-aria(Email)").fill("nobody@demo.example");
        await click(page, "Send");
        await waitText(page, "Answer your secret question");
        await page.locator("::-p-aria(Answer)").fill("paris");
        await click(page, "Send answer");
        await waitText(page, "Something went wrong");
        await click(page, "Back");
        await page.waitForSelector(".side-panel", { hidden: true });
        await click(page, "No code, or it expired? Send activation email");
        const email = page.locator("::-p-aria(Email)");
        await email.fill("");
        await email.fill("manager@demo.example");
        await click(page, "Send");
        await waitText(page, "What is your favourite food?");
        await page.locator("::-p-aria(Answer)").fill("pizza");
        await click(page, "Send answer");
        await waitText(page, "Something went wrong");
        const before = await env.latestCode("manager@demo.example");
        const answer = page.locator("::-p-aria(Answer)");
        await answer.fill("");
        await answer.fill(" Pasta ");
        await click(page, "Send answer");
        await waitText(page, "A new activation email has been sent");
        const code = await env.latestCode("manager@demo.example");
        assert.notEqual(code, before);
        await click(page, "OK");
        // The panel slides away (300 ms) before the pad behind it can be used.
        await page.waitForSelector(".side-panel", { hidden: true });
        await tapDigits(page, code);
        await click(page, "Connect device");
        await definePin(page, "192837");
        await waitText(page, "Hello Maria");
      } finally {
        await env.close();
      }
    },
  });

  Deno.test({
    name: `[e2e:${flavour}] options remove local data after confirm; logout locks`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      try {
        const page = await activate(env, "approver@demo.example");
        await waitText(page, "Hello Adam");
        await click(page, "Open menu");
        await click(page, "Lock");
        await waitText(page, "Enter your PIN");
        await tapDigits(page, "135790");
        await waitText(page, "Hello Adam");
        await click(page, "Open menu");
        await click(page, "Options");
        // spec §1: the version label (from the build) in Options.
        await waitText(page, ", released ");
        await click(page, "Remove local data");
        await waitText(page, "Remove all local data from this device?");
        // The confirm says the verb, not Yes/No.
        await click(page, "Keep");
        await click(page, "Remove local data");
        await click(page, "Remove");
        await waitText(page, "Enter the 5-digit code");
        const user = await env.deps.store.users.byEmail("approver@demo.example");
        assert.equal((await env.deps.store.devices.forUser(user!.oid)).length, 0);
      } finally {
        await env.close();
      }
    },
  });
}
