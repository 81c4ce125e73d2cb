/**
 * Card transactions end to end (spec §2 Transactions, Transaction detail), in both flavours, at
 * 360×640: purchases made through the issuer's test mode (`/_issuer/purchase`) appear under Today
 * after a refresh (no receipt indicator while nbReceipts is 0), a refused one shows its §8
 * abbreviation, a foreign one its merchant's amount; search finds a merchant; the card detail lists
 * its transactions and its available amount follows the purchases; flip (purpose required) lands on
 * the new expense '<id>-0001'; the moved original is hidden from the tab and its Moved link opens
 * the transaction it went to (spec §4); a receipt overdue (the clock 8 days on) blocks creating a
 * request with the spec's message; offline, they show from the encrypted cache.
 */
import assert from "node:assert/strict";
import type { HTTPRequest, Page } from "puppeteer-core";
import { activate, click, dumpOnFailure, FLAVOURS, start, tapDigits, waitText } from "./harness.ts";
import {
  closeAll,
  fill,
  inTopPanel,
  mainTab,
  named,
  opts,
  settled,
  tap,
  topPanelText,
  waitInTopPanel,
} from "./panels.ts";
import { expectAccessible } from "./a11y.ts";
import { bearerOf, cardFor, DAY, purchase } from "./transactions_setup.ts";
import { formatMoney } from "../../client/shared/intl.ts";

const EMPLOYEE = "employee@demo.example";

/** The texts of the transaction rows of one group of the Transactions tab. */
const groupRows = (p: Page, group: string) =>
  p.evaluate((g) => {
    const s = document.querySelector(`.transactions-tab section[aria-label="${g}"]`);
    return [...(s?.querySelectorAll(".tx-row") ?? [])].map((e) => (e as HTMLElement).innerText);
  }, group);

const txRows = (p: Page) =>
  p.$$eval(".transactions-tab .tx-row", (l) => l.map((e) => (e as HTMLElement).innerText));

/** Taps the row (in the top panel when one is open, else on the main screen) showing `text`. */
async function openRow(p: Page, text: string, selector = ".request-row"): Promise<void> {
  const before = await p.$$eval(".side-panel.open", (l) => l.length);
  await p.waitForFunction(
    (t, sel) => {
      const panels = document.querySelectorAll(".side-panel.open");
      const root = panels[panels.length - 1] ?? document;
      return [...root.querySelectorAll(sel)].some((e) => (e as HTMLElement).innerText.includes(t));
    },
    {},
    text,
    selector,
  );
  await p.evaluate(
    (t, sel) => {
      const panels = document.querySelectorAll(".side-panel.open");
      const root = panels[panels.length - 1] ?? document;
      const row = [...root.querySelectorAll(sel)].find((e) =>
        (e as HTMLElement).innerText.includes(t)
      );
      (row as HTMLElement).click();
    },
    text,
    selector,
  );
  await p.waitForFunction(
    (n) => document.querySelectorAll(".side-panel.open").length > n,
    {},
    before,
  );
  await settled(p);
}

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] transactions: purchases under Today after a refresh, refused abbreviation, search, card detail and available amount, comments, flip lands on the new expense, moved original hidden and linked, overdue receipt blocks a new request, offline from the encrypted cache`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      let page: Page | null = null;
      try {
        page = await activate(env, EMPLOYEE);
        const p = page;
        await dumpOnFailure(p, async () => {
          await waitText(p, "No requests here");
          const h = await bearerOf(p, () => click(p, "Refresh"));
          const card = await cardFor(env, h);
          await mainTab(p, "Transactions");
          await waitText(p, "No transactions yet");

          const bought = await purchase(env, {
            card: card.oid,
            amount: "42.50",
            merchantName: "Boulangerie Paul",
          });
          assert.equal(bought.approved, true);
          const refused = await purchase(env, {
            card: card.oid,
            amount: "20",
            merchantName: "Casino Royal",
            mcc: "7995",
          });
          assert.equal(refused.approved, false);
          const foreign = await purchase(env, {
            card: card.oid,
            amount: "100",
            currency: "USD",
            merchantName: "Yellow Cab NYC",
            merchantCity: "New York",
            merchantCountry: "US",
          });
          assert.equal(foreign.approved, true);

          // After a refresh: the two captured ones wait for their receipts, pinned above
          // (needs_receipt_test.ts), the refused one under Today; no receipt indicator yet.
          await click(p, "Refresh");
          await waitText(p, "Boulangerie Paul");
          const today = [
            ...await groupRows(p, "Needs a receipt (2)"),
            ...await groupRows(p, "Today"),
          ];
          assert.equal(today.length, 3, today.join("\n"));
          assert.ok(today.some((r) => r.includes("Boulangerie Paul") && r.includes("€42.50")));
          assert.equal(await p.$$eval(".tx-receipts", (l) => l.length), 0);
          // spec §8: the refused one shows its abbreviation (MCC), translated.
          const casino = today.find((r) => r.includes("Casino Royal"))!;
          assert.match(casino, /Shop type blocked/);
          // The merchant's amount beside the card's when the currencies differ.
          assert.ok(today.find((r) => r.includes("Yellow Cab"))!.includes("$100.00"));
          await expectAccessible(p, "transactions");

          // Search: a merchant, case and accents aside; then everything again.
          const search = await p.$("input[aria-label='Search transactions']");
          await search!.type("boulang");
          await p.waitForFunction(() =>
            document.querySelectorAll(".transactions-tab .tx-row").length === 1
          );
          assert.match((await txRows(p))[0], /Boulangerie Paul/);
          await search!.evaluate((e) => (e as HTMLInputElement).select());
          await p.keyboard.press("Backspace");
          await p.waitForFunction(() =>
            document.querySelectorAll(".transactions-tab .tx-row").length === 3
          );

          // The refused transaction's detail: abbreviation and reason, no flip.
          await openRow(p, "Casino Royal");
          await waitInTopPanel(p, "Refused reason");
          const refusedText = await p.$eval(
            ".side-panel.open .tx-detail",
            (e) => (e as HTMLElement).innerText,
          );
          assert.ok(refusedText.includes(refused.refusedReason!.slice(0, 130)), refusedText);
          assert.ok(!/Receipt|VAT/.test(refusedText), "no receipt or VAT for a refused one");
          // No action on a refused one: no flip ("Move to another expense"), no receipt.
          assert.equal(
            await p.$$eval(".side-panel.open .tx-detail .action-bar", (l) => l.length),
            0,
          );
          await closeAll(p);

          // Flip: purpose required, then the new expense '<id>-0001' opens.
          await openRow(p, "Boulangerie Paul");
          await waitInTopPanel(p, card.id);
          await waitInTopPanel(p, "Merchant city");
          await expectAccessible(p, "transaction detail");
          // Comments on a transaction: add two, delete one.
          await fill(p, "Add a comment", "Breakfast with the Lyon team");
          await tap(p, "Send");
          await waitInTopPanel(p, "Breakfast with the Lyon team");
          await fill(p, "Add a comment", "Typo");
          await tap(p, "Send");
          await waitInTopPanel(p, "Typo");
          await tap(p, "Delete comment: Typo");
          await p.waitForFunction(() =>
            !document.querySelector(".side-panel.open .tx-detail")?.textContent?.includes("Typo")
          );
          await inTopPanel(p, "More actions");
          await inTopPanel(p, "Move to another expense");
          await waitInTopPanel(p, "Flip transaction");
          await inTopPanel(p, "Flip transaction");
          await waitInTopPanel(p, "Please enter a purpose");
          const purpose = await named(p, "Purpose");
          await purpose.type("Team breakfast");
          await inTopPanel(p, "Flip transaction");
          await waitInTopPanel(p, `Request ${card.id}-0001`);
          await waitInTopPanel(p, "Boulangerie Paul");
          assert.equal(await p.$$eval(".side-panel.open", (l) => l.length), 1);
          await closeAll(p);

          // The tab: the original is hidden (Moved), the copy carries the flip marker.
          await mainTab(p, "Transactions");
          await p.waitForFunction(() =>
            [...document.querySelectorAll(".transactions-tab .tx-row")].some((e) =>
              e.querySelector(".tx-flip")
            )
          );
          const rows = (await txRows(p)).filter((r) => r.includes("Boulangerie Paul"));
          assert.equal(rows.length, 1, rows.join("\n"));
          assert.ok(!rows[0].includes("Moved"));

          // The card detail lists its transactions (the moved original too) and the
          // available amount follows the purchases.
          await mainTab(p, "Wallet");
          await openRow(p, card.id);
          await waitInTopPanel(p, "Available");
          await waitInTopPanel(p, formatMoney(foreign.available, "EUR"));
          await waitInTopPanel(p, "Moved");
          await openRow(p, "Moved", ".tx-row");
          await waitInTopPanel(p, "Merchant city");
          // spec §4: the Moved status links to the transaction it was moved to.
          await inTopPanel(p, "Moved: open the transaction it moved to");
          // The top panel becomes the copy's detail: same merchant, not Moved.
          await p.waitForFunction(() => {
            const l = document.querySelectorAll(".side-panel.open");
            const top = l[l.length - 1] as HTMLElement | undefined;
            const status = top?.querySelector(".tx-detail .detail-head .tx-status")?.textContent;
            return !!status && status !== "Moved" && top!.innerText.includes("Boulangerie Paul");
          });
          assert.ok(!(await topPanelText(p)).includes("Moved:"), "the copy, not the original");
          await closeAll(p);

          // The flipped expense under Wallet → Closed is shown as what it is: no card, and it
          // opens the expense, without "View card" (it has no card: no card call is made).
          await mainTab(p, "Closed");
          const cardCalls: string[] = [];
          const onRequest = (r: HTTPRequest) => {
            if (/\/pwaexpensecard(obfuscated)?\?/.test(r.url())) cardCalls.push(r.url());
          };
          p.on("request", onRequest);
          await openRow(p, `${card.id}-0001`);
          await waitInTopPanel(p, `Request ${card.id}-0001`);
          await waitInTopPanel(p, "this expense has no card of its own");
          const flippedText = await p.$$eval(
            ".side-panel.open",
            (l) => (l[l.length - 1] as HTMLElement).innerText,
          );
          assert.ok(!flippedText.includes("View card"), flippedText);
          p.off("request", onRequest);
          assert.deepEqual(cardCalls, []);
          await closeAll(p);

          // spec §5: a receipt overdue (8 days later) blocks a new request.
          const now = env.deps.now;
          env.deps.now = () => now() + 8 * DAY;
          await mainTab(p, "Requests");
          await click(p, "Refresh");
          // The main badge counts the transactions needing a receipt.
          await p.waitForFunction(() =>
            /\d/.test(document.querySelector("[role=tab] .badge")?.textContent ?? "")
          );
          await click(p, "New request");
          await waitText(
            p,
            "You have transactions that still have no receipts, please provide those first",
          );
          assert.equal(await p.$$eval(".side-panel.open", (l) => l.length), 0);

          // Offline, after an unlock, the transactions show from the encrypted cache.
          await p.evaluate(() => navigator.serviceWorker.ready.then(() => {}));
          await p.setOfflineMode(true);
          try {
            await p.reload();
            await waitText(p, "Enter your PIN");
            await tapDigits(p, "135790");
            await mainTab(p, "Transactions");
            await waitText(p, "Yellow Cab NYC");
            await waitText(p, "Casino Royal");
            assert.equal(
              (await txRows(p)).filter((r) => r.includes("Boulangerie Paul")).length,
              1,
            );
          } finally {
            await p.setOfflineMode(false);
          }
        });
      } finally {
        await env.close();
      }
    },
  });
}
