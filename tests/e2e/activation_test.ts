import assert from "node:assert/strict";
import { bodyText, click, FLAVOURS, start, tapDigits, waitText } from "./harness.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

for (const flavour of FLAVOURS) {
  Deno.test({
    name: `[e2e:${flavour}] activate employee from the outbox code, PIN rules, reload and unlock`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      try {
        const page = await env.newPage();
        await page.goto(env.url);
        await waitText(page, "Enter the 5-digit code");
        // A wrong code shakes and clears.
        await tapDigits(page, "00000");
        await click(page, "Connect device");
        await waitText(page, "This activation code is not valid");
        await tapDigits(page, await env.latestCode("employee@demo.example"));
        await click(page, "Connect device");
        await waitText(page, "Choose a 6-digit PIN");
        for (
          const [pin, msg] of [
            ["111123", "try using less repetition"],
            ["121212", "try using less repetition"],
            ["123123", "try using less repetition"],
            ["123456", "do not use a direct sequence"],
            ["987654", "do not use a direct sequence"],
          ]
        ) {
          await tapDigits(page, pin);
          await click(page, "Save");
          await waitText(page, msg);
          assert.match(await bodyText(page), new RegExp(msg));
        }
        await tapDigits(page, "135790");
        await click(page, "Save");
        await waitText(page, "Hello Emma");
        await page.reload();
        await waitText(page, "Enter your PIN");
        await tapDigits(page, "135790");
        await waitText(page, "Hello Emma");
      } finally {
        await env.close();
      }
    },
  });
}
