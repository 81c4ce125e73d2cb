/**
 * VAT by hand, round two (spec §2 VAT side panel, advanced form): the panel starts from the
 * merchant country's standard rate, marked as a suggestion, and from the receipt type last
 * confirmed on this phone; OK confirms it. A receipt is attached first (a transaction is
 * reviewed with its receipt); counted in taps from the open transaction with its receipt: the
 * first needs the type chosen once (VAT, type, OK), the next one two taps (VAT, OK).
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { activate, click, dumpOnFailure, FLAVOURS, start, waitText } from "./harness.ts";
import { fileInput, inTopPanel, mainTab, opts, panelsClosed, waitInTopPanel } from "./panels.ts";
import { makePng } from "../fixtures/files.ts";
import { bearerOf, cardFor, openTx, purchase } from "./transactions_setup.ts";
import { expectAccessible, expectNoSideScroll } from "./a11y.ts";

const EMPLOYEE = "employee@demo.example";

const value = (p: Page, sel: string) =>
  p.$eval(`.side-panel.open ${sel}`, (e) => (e as HTMLSelectElement).value);

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] VAT prefill: the merchant country's standard rate and the last receipt type, confirmed in two taps`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      const dir = await Deno.makeTempDir({ prefix: "qcard-vat-" });
      const png = `${dir}/receipt.png`;
      await Deno.writeFile(png, makePng(800, 600));
      let page: Page | null = null;
      try {
        page = await activate(env, EMPLOYEE);
        const p = page;
        await dumpOnFailure(p, async () => {
          await waitText(p, "No requests here");
          const h = await bearerOf(p, () => click(p, "Refresh"));
          const card = await cardFor(env, h);
          for (const [merchantName, amount] of [["Bistro Lyon", "54.90"], ["Hotel Nice", "120"]]) {
            assert.equal(
              (await purchase(env, { card: card.oid, amount, merchantName })).approved,
              true,
            );
          }
          await click(p, "Refresh");
          await mainTab(p, "Transactions");

          // First transaction: the rate is filled in, the type is chosen once.
          await openTx(p, "Bistro Lyon");
          await (await fileInput(p, "Add receipt")).uploadFile(png);
          await waitInTopPanel(p, "Receipts (1)");
          let taps = 0;
          await inTopPanel(p, "VAT lines: 0");
          taps++;
          await p.waitForSelector(".side-panel.open .vat-form");
          await waitInTopPanel(p, "Standard rate of France filled in");
          await p.waitForFunction(() =>
            (document.querySelector(".side-panel.open #vat-code-1") as HTMLSelectElement | null)
              ?.value === "vat-fr-20"
          );
          const amount = await value(p, "#vat-amount-1");
          assert.match(amount, /^9[.,]15$/, "54.90 × 20 / 120");
          assert.equal(await p.$$eval(".side-panel.open .vat-line.suggested", (l) => l.length), 1);
          await expectNoSideScroll(p, "VAT panel with a suggestion");
          await expectAccessible(p, "VAT panel with a suggestion");
          assert.equal(await value(p, "#vat-type"), "", "no type confirmed on this phone yet");
          await p.select(".side-panel.open #vat-type", "rt-receipt");
          taps++;
          await inTopPanel(p, "OK");
          taps++;
          await waitText(p, "Transaction reviewed");
          await waitInTopPanel(p, "VAT lines: 1");
          console.log(`  first transaction, receipt attached: ${taps} taps (VAT, type, OK)`);
          await inTopPanel(p, "Back");
          await panelsClosed(p);

          // The next one: rate and type suggested, two taps.
          await openTx(p, "Hotel Nice");
          await (await fileInput(p, "Add receipt")).uploadFile(png);
          await waitInTopPanel(p, "Receipts (1)");
          taps = 0;
          await inTopPanel(p, "VAT lines: 0");
          taps++;
          await waitInTopPanel(p, "Chosen last time");
          assert.equal(await value(p, "#vat-type"), "rt-receipt");
          assert.equal(await value(p, "#vat-code-1"), "vat-fr-20");
          // Changing a suggested line takes its mark away: the person's own choice.
          await p.select(".side-panel.open #vat-code-1", "vat-fr-10");
          assert.equal(await p.$$eval(".side-panel.open .vat-line.suggested", (l) => l.length), 0);
          await p.select(".side-panel.open #vat-code-1", "vat-fr-20");
          await inTopPanel(p, "OK");
          taps++;
          await waitText(p, "Transaction reviewed");
          await waitInTopPanel(p, "VAT lines: 1");
          console.log(`  next transaction, receipt attached: ${taps} taps (VAT, OK)`);
          assert.ok(taps <= 2, `${taps} taps`);
        });
      } finally {
        await env.close();
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    },
  });
}
