/**
 * The timings of spec §2/§4/§9 no other test checks, on a fake clock (fake_clock.ts) so that
 * a loaded machine cannot make them pass or fail: a typed PIN digit is hidden again after
 * 0.4 s, a refused PIN shakes the pad for 0.5 s, a side panel slides for 300 ms (and stays
 * until then), the 3-D Secure panel closes by itself after 5 minutes. Each is checked just
 * before and just after its threshold. Both flavours, 360×640.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { activate, click, dumpOnFailure, FLAVOURS, start, tapDigits, waitText } from "./harness.ts";
import { opts } from "./panels.ts";
import { installFakeClock, tick, untilPending, untilPendingHas } from "./fake_clock.ts";
import { DIGIT_HIDE_MS, SHAKE_MS } from "../../client/components/PinPad.tsx";
import { SLIDE_MS } from "../../client/components/SidePanel.tsx";
import { SECURE_PANEL_TIMEOUT_MS } from "../../client/lib/cards.ts";

const EMPLOYEE = "employee@demo.example";

/** The text of the PIN boxes that hold a digit. */
const boxes = (p: Page) =>
  p.$$eval(".pin-box.filled", (l) => l.map((e) => e.textContent ?? "").join(""));

const panels = (p: Page) =>
  p.$$eval(".side-panel", (l) => l.map((e) => (e.classList.contains("open") ? "open" : "closing")));

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] timings on a fake clock: PIN digit hidden after 0.4 s, shake 0.5 s, side panel slide 300 ms, 3-D Secure panel closes after 5 minutes`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      let page: Page | null = null;
      try {
        page = await activate(env, EMPLOYEE);
        const p = page;
        await dumpOnFailure(p, async () => {
          assert.deepEqual([DIGIT_HIDE_MS, SHAKE_MS, SLIDE_MS, SECURE_PANEL_TIMEOUT_MS], [
            400,
            500,
            300,
            300_000,
          ]);
          await installFakeClock(p, [DIGIT_HIDE_MS, SHAKE_MS, SLIDE_MS, SECURE_PANEL_TIMEOUT_MS]);

          // spec §2: the side panel slides in 300 ms, and stays (inert) until it has slid out.
          await click(p, "Open menu");
          await p.waitForSelector(".side-panel.open");
          assert.equal(
            await p.$eval(".side-panel", (e) => getComputedStyle(e).transitionDuration),
            `${SLIDE_MS / 1000}s`,
          );
          await p.keyboard.press("Escape");
          await p.waitForFunction(() => !document.querySelector(".side-panel.open"));
          await untilPending(p, [SLIDE_MS]);
          await tick(p, SLIDE_MS - 1);
          assert.deepEqual(await panels(p), ["closing"], "still sliding at 299 ms");
          await tick(p, 1);
          await p.waitForFunction(() => !document.querySelector(".side-panel"));

          // spec §4/§9: the 3-D Secure panel closes by itself after 5 minutes.
          await click(p, "Open menu");
          await p.waitForSelector(".side-panel.open");
          await click(p, "3-D Secure settings");
          await p.waitForFunction(() =>
            [...document.querySelectorAll(".side-panel.open h2")].some((h) =>
              h.textContent === "3-D Secure"
            )
          );
          await tick(p, SLIDE_MS); // the menu's slide out
          await p.waitForFunction(() => document.querySelectorAll(".side-panel").length === 1);
          await untilPending(p, [SECURE_PANEL_TIMEOUT_MS - SLIDE_MS]);
          await tick(p, SECURE_PANEL_TIMEOUT_MS - SLIDE_MS - 1);
          assert.deepEqual(await panels(p), ["open"], "still open a millisecond before 5 min");
          await tick(p, 1);
          await p.waitForFunction(() => !document.querySelector(".side-panel.open"));
          await tick(p, SLIDE_MS);
          await p.waitForFunction(() => !document.querySelector(".side-panel"));

          // spec §2: a typed digit shows, then is hidden again after 0.4 s.
          await click(p, "Open menu");
          await p.waitForSelector(".side-panel.open");
          await click(p, "Lock");
          await waitText(p, "Enter your PIN");
          await tick(p, SLIDE_MS);
          await tapDigits(p, "1");
          await p.waitForFunction(() =>
            document.querySelector(".pin-box.filled")?.textContent === "1"
          );
          await untilPending(p, [DIGIT_HIDE_MS]);
          await tick(p, DIGIT_HIDE_MS - 1);
          assert.equal(await boxes(p), "1", "shown at 399 ms");
          await tick(p, 1);
          await p.waitForFunction(() =>
            document.querySelector(".pin-box.filled")?.textContent === "•"
          );

          // spec §8: a wrong PIN shakes the pad for 0.5 s.
          await tapDigits(p, "24680");
          await p.waitForSelector(".pinpad.shake");
          await untilPendingHas(p, SHAKE_MS);
          assert.equal(
            await p.$eval(".pinpad.shake", (e) => getComputedStyle(e).animationDuration),
            `${SHAKE_MS / 1000}s`,
          );
          await tick(p, SHAKE_MS - 1);
          assert.ok(await p.$(".pinpad.shake"), "still shaking at 499 ms");
          await tick(p, 1);
          await p.waitForFunction(() => !document.querySelector(".pinpad.shake"));
        });
      } finally {
        await env.close();
      }
    },
  });
}
