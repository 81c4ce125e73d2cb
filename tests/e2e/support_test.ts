/**
 * spec §1 support: our own support page, in the chosen language, works offline. Switching to
 * Deutsch in Options applies at once and is told to the server; with the network off (after
 * the service worker is ready) the Support tab frames /support/de.html from the precache,
 * under the strict CSP; the PIN pad's FAQ link names the same page.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { activate, click, dumpOnFailure, FLAVOURS, start, waitText } from "./harness.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

/** CSP and framing refusals the page reports in its console. */
function watchRefusals(page: Page): string[] {
  const refusals: string[] = [];
  page.on("console", (m) => {
    const text = m.text();
    if (/Content Security Policy|Refused to (frame|display|load)|X-Frame-Options/i.test(text)) {
      refusals.push(text);
    }
  });
  return refusals;
}

/** Titles of the side panels still mounted that are neither Options nor inert. */
function closingPanels(page: Page): Promise<string[]> {
  return page.$$eval(
    ".side-panel",
    (l) =>
      l.filter((e) => e.getAttribute("aria-label") !== "Options" && !(e as HTMLElement).inert)
        .map((e) => e.getAttribute("aria-label") ?? ""),
  );
}

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] support: Options → Deutsch applies at once; offline, the Support tab shows our German FAQ from the precache`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      let page: Page | null = null;
      try {
        page = await activate(env, "employee@demo.example");
        const p = page;
        await dumpOnFailure(p, async () => {
          const refusals = watchRefusals(p);
          // The browser's language (en-US here) is the first choice.
          assert.equal(await p.evaluate(() => document.documentElement.lang), "en");

          await click(p, "Open menu");
          await click(p, "Options");
          // The menu slides out for 300 ms behind Options: inert, so Options' Back is the only
          // one (CI once took the menu's 'Zurück', which vanished under the click).
          await p.waitForSelector('.side-panel[aria-label="Options"]');
          assert.deepEqual(await closingPanels(p), [], "a closing panel is not inert");
          assert.equal((await p.$$("::-p-aria(Back)")).length, 1, "more than one 'Back'");
          await p.locator('::-p-aria([name="Language"][role="radiogroup"])').wait();
          await p.locator('::-p-aria([name="Deutsch"][role="radio"])').click();
          // Applied at once: the panel and the screen behind it speak German.
          await p.locator('::-p-aria([name="Sprache"][role="radiogroup"])').wait();
          await p.waitForSelector('[role="radio"][lang="de"][aria-checked="true"]');
          await waitText(p, "Optionen");
          assert.equal(await p.evaluate(() => document.documentElement.lang), "de");
          assert.equal(await p.evaluate(() => localStorage.getItem("qc_language")), "de");
          // Told to the server: mails, push and errors follow it.
          const user = await env.deps.store.users.byEmail("employee@demo.example");
          assert.equal(user?.locale, "de");
          await click(p, "Zurück");
          await waitText(p, "Anträge");

          // Offline once the service worker has precached the build.
          await p.evaluate(() => navigator.serviceWorker.ready.then(() => {}));
          await p.setOfflineMode(true);
          try {
            await p.locator('::-p-aria([name="Support"][role="tab"])').click();
            const handle = await p.waitForSelector("iframe.support-frame");
            assert.ok(handle);
            const src = await handle.evaluate((f) => (f as HTMLIFrameElement).src);
            assert.equal(new URL(src).pathname, "/support/de.html");
            const frame = await handle.contentFrame();
            assert.ok(frame, "the support frame has no document");
            const h1 = await frame.waitForSelector("h1");
            assert.equal(
              await h1!.evaluate((e) => e.textContent),
              "QCard-Hilfe und häufige Fragen",
            );
            // Visible inside the frame at 360×640: laid out, with the app's stylesheet.
            const box = await h1!.boundingBox();
            assert.ok(box && box.width > 0 && box.height > 0, "FAQ heading not visible");
            assert.equal(await frame.evaluate(() => document.documentElement.lang), "de");
            // The stylesheets load after the markup: wait for them (a loaded machine is slow).
            await frame.waitForFunction(
              () => getComputedStyle(document.querySelector("main")!).maxWidth === "560px",
              { timeout: 10_000 },
            ).catch(() => {});
            const styled = await frame.evaluate(() =>
              getComputedStyle(document.querySelector("main")!).maxWidth
            );
            assert.equal(styled, "560px", "support.css not applied");
            for (const topic of ["Aktivierung", "PIN", "Anträge", "Belege", "Ohne Netzwerk"]) {
              assert.ok(
                await frame.evaluate((t) => document.body.innerText.includes(t), topic),
                topic,
              );
            }
            // The demo configures a chat address: the tab links to it.
            await p.locator('::-p-aria([name="Chat mit dem Support"][role="link"])').wait();
            // A thumb-sized target (WCAG 2.5.5: 44 px), not a 19 px line of text.
            const chat = await p.$eval(".support-chat a", (a) => a.getBoundingClientRect().height);
            assert.ok(chat >= 44, `Chat link ${chat} px high`);
          } finally {
            await p.setOfflineMode(false);
          }

          // The PIN pad's FAQ link names the same page (logged out, in German too).
          await click(p, "Menü öffnen");
          await click(p, "Sperren");
          await waitText(p, "Geben Sie Ihre PIN ein");
          const helpLinks = await p.$$eval(
            ".pad-help a, .pad-help button",
            (l) => l.map((e) => Math.round(e.getBoundingClientRect().height)),
          );
          assert.ok(helpLinks.length >= 3 && helpLinks.every((h) => h >= 44), `${helpLinks}`);
          const faq = await p.$eval(
            ".pad-help a",
            (a) => new URL((a as HTMLAnchorElement).href).pathname,
          );
          assert.equal(faq, "/support/de.html");
          assert.deepEqual(refusals, [], "CSP or framing refusals");
        });
      } finally {
        await env.close();
      }
    },
  });
}
