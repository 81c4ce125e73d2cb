import assert from "node:assert/strict";
import type { HTTPRequest } from "puppeteer-core";
import { bodyText, click, FLAVOURS, start, tapDigits, waitText } from "./harness.ts";
import { expectAccessible, expectNoSideScroll } from "./a11y.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] activate employee from the outbox code, PIN rules, reload and unlock with token rotation`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      try {
        const page = await env.newPage();
        // A first visit on a slow phone: the code is tapped on the static activation screen
        // (index.html) before the app's code has run, its entry held back here. The taps are
        // not lost: once the app is live, client/boot.ts taps them again on its pad, a slip
        // and its "delete last digit" included. The whole stylesheet is held back too: the
        // first screen is drawn by its inline part alone, and the whole one moves nothing.
        await page.setRequestInterception(true);
        const held: HTTPRequest[] = [];
        const hold = (r: HTTPRequest) =>
          /\/assets\/main-[^/]*\.(?:js|css)$/.test(r.url()) ? held.push(r) : r.continue();
        page.on("request", hold);
        const loaded = page.goto(env.url); // resolves once the app is live
        for (let i = 0; i < 200 && held.length < 2; i++) {
          await new Promise((r) => setTimeout(r, 50));
        }
        const asked = held.map((r) => new URL(r.url()).pathname.replace(/-\w+\./, "."));
        assert.deepEqual(asked.sort(), ["/assets/main.css", "/assets/main.js"], "boot asked");
        await waitText(page, "Enter the 5-digit code");
        const look = () =>
          page.$$eval("#root *", (els) =>
            els.map((el) => {
              const r = el.getBoundingClientRect();
              const s = getComputedStyle(el);
              return [el.className, r.x, r.y, r.width, r.height, s.color, s.backgroundColor]
                .join(" ");
            }));
        const inlineOnly = await look();
        await tapDigits(page, "9");
        await click(page, "Delete last digit");
        // A wrong code shakes and clears.
        await tapDigits(page, "00000");
        assert.equal(await page.evaluate(() => document.documentElement.dataset.app), undefined);
        assert.equal(await page.$(".pin-box.filled"), null, "the static pad shows nothing typed");
        await held.find((r) => r.url().endsWith(".css"))!.continue();
        await page.waitForFunction(() =>
          !!document.querySelector<HTMLLinkElement>('link[rel="stylesheet"]')?.sheet
        );
        assert.deepEqual(await look(), inlineOnly, "the whole stylesheet moved the first screen");
        await held.find((r) => r.url().endsWith(".js"))!.continue();
        await loaded;
        // The manifest and icon links wait in a template until the first paint (a request each,
        // else beside the first screen's); then they are in the head, and the tab's icon is the
        // SVG inline from the start.
        assert.deepEqual(
          await page.evaluate(() => ({
            later: document.querySelector("template[data-after-paint]")?.innerHTML ?? null,
            links: [...document.head.querySelectorAll("link[rel]")]
              .map((l) => `${l.getAttribute("rel")} ${l.getAttribute("href")?.slice(0, 19)}`)
              .filter((l) => !/^(stylesheet|modulepreload) /.test(l)),
          })),
          {
            later: "",
            links: [
              "icon data:image/svg+xml,",
              "manifest /manifest.webmanife",
              "apple-touch-icon /icons/apple-touch-",
            ],
          },
        );
        page.off("request", hold);
        await page.setRequestInterception(false);
        await page.waitForFunction(() => document.querySelectorAll(".pin-box.filled").length === 5);
        await click(page, "Connect device");
        await waitText(page, "This activation code is not valid");
        await tapDigits(page, await env.latestCode("employee@demo.example"));
        await click(page, "Connect device");
        await waitText(page, "Choose a 6-digit PIN");
        await expectAccessible(page, "define PIN");
        await expectNoSideScroll(page, "define PIN");
        // The activation email link (spec §2 pad help), without "Forgot PIN?" before a PIN is set.
        await page.locator("::-p-aria(No code, or it expired? Send activation email)").wait();
        assert.equal(
          await page.evaluate(() => document.body.innerText.includes("Forgot PIN?")),
          false,
        );
        for (
          const [pin, msg] of [
            ["111123", "try using less repetition"],
            ["121212", "try using less repetition"],
            ["123123", "try using less repetition"],
            ["123456", "do not use a direct sequence"],
            ["987654", "do not use a direct sequence"],
          ]
        ) {
          // The rules apply to the first entry: a refused PIN is not asked twice.
          await tapDigits(page, pin);
          await click(page, "OK");
          await waitText(page, msg);
          assert.match(await bodyText(page), new RegExp(msg));
        }
        // Bearer tokens the app sends, in order (to see the rotation at unlock).
        const sent: string[] = [];
        page.on("request", (r) => {
          const auth = r.headers()["authorization"];
          if (auth && !sent.includes(auth)) sent.push(auth);
        });
        // The new PIN is asked twice: a different confirmation says so and asks again.
        await tapDigits(page, "135790");
        await click(page, "OK");
        await waitText(page, "Enter the PIN again");
        await expectAccessible(page, "confirm PIN");
        await expectNoSideScroll(page, "confirm PIN");
        await tapDigits(page, "135791");
        await click(page, "Save");
        await waitText(page, "The PINs differ");
        assert.match(await bodyText(page), /Enter the PIN again/);
        // The pad is cleared for the new confirmation.
        await page.waitForFunction(() => !document.querySelector(".pin-box.filled"));
        await expectAccessible(page, "PIN mismatch");
        // Back goes to choosing another PIN; then it is confirmed.
        await click(page, "Back");
        await waitText(page, "Choose a 6-digit PIN");
        await tapDigits(page, "135790");
        await click(page, "OK");
        await waitText(page, "Enter the PIN again");
        await tapDigits(page, "135790");
        await click(page, "Save");
        await waitText(page, "Hello Emma");
        const sealedBefore = (await page.cookies()).find((c) => c.name === "qc_enctoken")?.value;
        await page.reload();
        await waitText(page, "Enter your PIN");
        await tapDigits(page, "135790");
        await waitText(page, "Hello Emma");
        // The unlock rotated the token: a new one is sealed and used, the first is now refused.
        await page.waitForFunction(() => document.cookie.includes("qc_enctoken"));
        const sealedAfter = (await page.cookies()).find((c) => c.name === "qc_enctoken")?.value;
        assert.ok(sealedBefore && sealedAfter && sealedAfter !== sealedBefore);
        for (let i = 0; i < 50 && sent.length < 2; i++) {
          await new Promise((r) => setTimeout(r, 100));
        }
        assert.equal(sent.length, 2, `tokens used: ${sent.length}`);
        const lists = (auth: string) =>
          fetch(`${env.url}/bonita/scmapi/expense/pwalists`, { headers: { authorization: auth } });
        const fresh = await lists(sent[1]);
        assert.equal(fresh.status, 200);
        await fresh.body?.cancel();
        const old = await lists(sent[0]);
        assert.equal(old.status, 401);
        await old.body?.cancel();
        // And the next unlock works with the rotated, re-sealed token.
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
