/**
 * "No receipt" declaration on the transaction detail (spec §5 missing receipts), in both
 * flavours at 360×640: an overdue transaction carries the marker; "No receipt?" opens the form
 * (what, why, a confirmation naming the holder and the time), which refuses to go without the
 * confirmation, then declares: the declaration shows with name and time, the overdue mark
 * and the row's marker go at once; withdrawing brings them back.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { activate, click, dumpOnFailure, FLAVOURS, start, waitText } from "./harness.ts";
import { fill, inTopPanel, mainTab, opts, settled, waitInTopPanel } from "./panels.ts";
import { expectAccessible, expectNoSideScroll } from "./a11y.ts";
import { transactionRecord } from "../server/transaction_records.ts";

const EMPLOYEE = "employee@demo.example";
const MERCHANT = "Taxi Gare Part-Dieu";

const markers = (p: Page) => p.$$eval(".tx-row .attention-marker", (l) => l.length);

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] declaration: "No receipt?" on an overdue transaction → confirmed declaration lifts the marker; withdrawn brings them back`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      let page: Page | null = null;
      try {
        page = await activate(env, EMPLOYEE);
        const p = page;
        await dumpOnFailure(p, async () => {
          // An overdue purchase (captured 8 days ago, no receipt), written to the store.
          const user = await env.deps.store.users.byEmail(EMPLOYEE);
          const t = transactionRecord(user!.oid, { merchantname: MERCHANT });
          const kv = env.deps.store.kv;
          assert.ok((await env.deps.store.transactions.put(kv.atomic(), t).commit()).ok);
          await click(p, "Refresh");
          await mainTab(p, "Transactions");
          await p.waitForFunction(() => document.querySelectorAll(".tx-row").length === 1);
          assert.equal(await markers(p), 1);

          await p.locator(`.tx-row ::-p-text(${MERCHANT})`).click();
          await settled(p);
          await waitInTopPanel(p, "Receipt overdue");
          await inTopPanel(p, "No receipt?");
          await waitInTopPanel(p, "Declare: no receipt");
          await fill(p, "What was bought", "Taxi from the station");
          await fill(p, "Why there is no receipt", "The driver's printer was broken");
          // Not without the confirmation.
          await inTopPanel(p, "Declare");
          await waitInTopPanel(p, "Fill in both fields and tick the confirmation.");
          await expectAccessible(p, "declaration form");
          await expectNoSideScroll(p, "declaration form");
          const confirm = await p.locator(
            "::-p-text(confirm that this declaration is true)",
          ).waitHandle();
          const label = await confirm.evaluate((e) => e.textContent ?? "");
          assert.match(label, /^I, \S+ \S+, confirm that this declaration is true \(.+\)\.$/);
          await confirm.click();
          await inTopPanel(p, "Declare");

          await waitInTopPanel(p, "No-receipt declaration");
          await waitInTopPanel(p, "Declared by ");
          await p.waitForFunction(() =>
            !document.querySelector(".side-panel.open")?.textContent?.includes("Receipt overdue")
          );
          await p.waitForFunction(() => !document.querySelector(".tx-row .attention-marker"));
          // The "Declaration recorded" notice fades in: checked once it is fully shown.
          await p.waitForFunction(() => {
            const n = document.querySelector(".notice");
            return !n || getComputedStyle(n).opacity === "1" || getComputedStyle(n).opacity === "0";
          });
          await expectAccessible(p, "transaction with its declaration");

          // Withdrawn: the receipt is missing again.
          await inTopPanel(p, "Withdraw declaration");
          await waitText(p, "Withdraw this declaration?");
          await p.locator(".confirm ::-p-aria(Withdraw declaration)").click();
          await waitInTopPanel(p, "No receipt?");
          await waitInTopPanel(p, "Receipt overdue");
          await p.waitForFunction(() => !!document.querySelector(".tx-row .attention-marker"));
        });
      } finally {
        await env.close();
      }
    },
  });
}
