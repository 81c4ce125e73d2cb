/**
 * The development pages in the app's own browser (docs/development.md: buy with the issuer's
 * test mode). With the service worker controlling the page, navigating to /_issuer shows
 * the issuer's page, not the app shell's PIN pad (the worker lets every "/_" path through to
 * the network), and its form makes a purchase (a same-origin write, which the development
 * pages accept); /_outbox shows the outbox.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { activate, bodyText, click, dumpOnFailure, FLAVOURS, start, waitText } from "./harness.ts";
import { bearerOf, cardFor } from "./transactions_setup.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] dev pages: with the service worker in control, /_issuer shows the issuer's page (not the PIN pad) and its form buys; /_outbox shows the outbox`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      let page: Page | null = null;
      try {
        page = await activate(env, "employee@demo.example");
        const p = page;
        await dumpOnFailure(p, async () => {
          await waitText(p, "No requests here");
          const h = await bearerOf(p, () => click(p, "Refresh"));
          await cardFor(env, h);
          // The worker controls the page (a first install controls it from the next load).
          await p.evaluate(() => navigator.serviceWorker.ready.then(() => {}));
          if (!(await p.evaluate(() => !!navigator.serviceWorker.controller))) await p.reload();
          await p.waitForFunction(() => !!navigator.serviceWorker.controller);

          await p.goto(`${env.url}/_issuer`);
          await waitText(p, "QCard issuer — test mode");
          assert.ok(!(await bodyText(p)).includes("Enter your PIN"), "the app shell answered");
          // The purchase step of docs/development.md, by the page's own form.
          const form = 'form[action="/_issuer/purchase"]';
          await p.type(`${form} input[name="amount"]`, "4.20");
          // Submitted by the browser as a click would (its Origin and Sec-Fetch-Site headers).
          await Promise.all([
            p.waitForNavigation(),
            p.$eval(form, (f) => (f as HTMLFormElement).requestSubmit()),
          ]);
          assert.match(p.url(), /\/_issuer\?result=iauth_/);
          await waitText(p, "Approved");
          assert.match(await bodyText(p), /4\.20 EUR/);

          await p.goto(`${env.url}/_outbox`);
          await waitText(p, "QCard outbox");
          assert.ok(!(await bodyText(p)).includes("Enter your PIN"), "the app shell answered");
          // The app itself still starts from the worker.
          await p.goto(env.url);
          await waitText(p, "Enter your PIN");
        });
      } finally {
        await env.close();
      }
    },
  });
}
