/**
 * Wallet and card detail at 360×640, in both flavours (spec §2 Wallet and Card detail, §4
 * Card states): a wallet row shows what is left on its card, not the amount requested; a
 * blocked card reads "Blocked" in the row, the detail and its action; the card detail has one
 * sticky action bar (one primary action, the rest in the menu) whose destructive action is
 * "End card", confirmed with that verb in red; the expiry and the CVC can be copied like the
 * number; a closed card shows nothing spendable. axe finds nothing and nothing is wider than
 * the screen on each screen visited.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { activate, click, dumpOnFailure, FLAVOURS, start, waitText } from "./harness.ts";
import { inTopPanel, mainTab, opts, panelsClosed, settled, topPanelText } from "./panels.ts";
import { expectAccessible, expectNoSideScroll } from "./a11y.ts";
import { assertNoCardData, badge, face } from "./card_scan.ts";
import { bearerOf, cardFor, postAs, purchase } from "./transactions_setup.ts";

const EMPLOYEE = "employee@demo.example";

/** The wallet rows' texts, one line each. */
const rows = (p: Page) =>
  p.$$eval(".card-row", (l) => l.map((e) => (e as HTMLElement).innerText.replace(/\s+/g, " ")));

async function openRow(p: Page, text: string): Promise<void> {
  await p.waitForFunction(
    (t) => [...document.querySelectorAll(".card-row")].some((e) => e.textContent?.includes(t)),
    {},
    text,
  );
  await p.evaluate((t) => {
    const row = [...document.querySelectorAll(".card-row")].find((e) => e.textContent?.includes(t));
    (row as HTMLElement).click();
  }, text);
  await p.waitForFunction(() => document.querySelector(".side-panel.open .card-face"));
  await settled(p);
}

/**
 * The top panel's action bars: how many, the primary's name, whether it is pinned in the
 * panel's footer (under the scrolling body, always in the thumb zone).
 */
const actionBar = (p: Page) =>
  p.evaluate(() => {
    const l = document.querySelectorAll(".side-panel.open");
    const top = l[l.length - 1];
    const bars = [...(top?.querySelectorAll(".action-bar") ?? [])];
    const b = bars[0] as HTMLElement | undefined;
    return {
      bars: bars.length,
      primary: b?.querySelector("button.primary")?.textContent?.trim() ?? null,
      pinned: b ? !!b.closest(".panel-footer") : false,
      loose: top?.querySelectorAll(".detail-actions").length ?? 0,
    };
  });

/** Opens the menu of the top panel's action bar: its entries (name, red or not). */
async function menu(p: Page): Promise<{ name: string; danger: boolean }[]> {
  await inTopPanel(p, "More actions");
  await p.waitForSelector(".side-panel.open .more-list");
  return await p.$$eval(".side-panel.open .more-item", (l) =>
    l.map((e) => ({
      name: (e as HTMLElement).innerText.trim(),
      danger: e.classList.contains("danger"),
    })));
}

async function closeMenu(p: Page): Promise<void> {
  await p.keyboard.press("Escape");
  await p.waitForFunction(() => !document.querySelector(".more-list"));
}

async function back(p: Page): Promise<void> {
  await inTopPanel(p, "Back");
  await panelsClosed(p);
}

async function checkScreen(p: Page, where: string): Promise<void> {
  await expectAccessible(p, where);
  await expectNoSideScroll(p, where);
}

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] wallet: rows show what is left on the card, one word for blocked, the card's one action bar with End card, copy expiry and CVC, nothing spendable once closed`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      let page: Page | null = null;
      try {
        page = await activate(env, EMPLOYEE);
        const p = page;
        await p.browserContext().overridePermissions(env.url, [
          "clipboard-read",
          "clipboard-write",
          "clipboard-sanitized-write",
        ]);
        await dumpOnFailure(p, async () => {
          await waitText(p, "No requests here");
          const h = await bearerOf(p, () => click(p, "Refresh"));
          const lunch = await cardFor(env, h, { amount: 100, purpose: "Team lunch" });
          const bought = await purchase(env, {
            card: lunch.oid,
            amount: "40",
            merchantName: "Bistro",
          });
          assert.equal(bought.approved, true);
          const taxi = await cardFor(env, h, { amount: 75, purpose: "Airport taxi" });
          await postAs(env, h, "pwafreezecard", { oid: taxi.oid });
          await click(p, "Refresh");

          // spec §2 Wallet: what is left on the card, not the request's 100.00 €.
          await mainTab(p, "Wallet");
          await mainTab(p, "Open");
          await p.waitForFunction(() => document.querySelectorAll(".card-row").length === 2);
          const open = await rows(p);
          const lunchRow = open.find((r) => r.includes("Team lunch"))!;
          assert.match(lunchRow, /€60\.00 left/, lunchRow);
          assert.ok(!lunchRow.includes("100.00"), lunchRow);
          // The blocked card: one word, in the row as in the detail and its action.
          const taxiRow = open.find((r) => r.includes("Airport taxi"))!;
          assert.match(taxiRow, /Blocked/, taxiRow);
          assert.match(taxiRow, /€75\.00 left/, taxiRow);
          await checkScreen(p, "wallet");

          await openRow(p, "Airport taxi");
          assert.equal(await badge(p), "Blocked");
          assert.deepEqual(await actionBar(p), {
            bars: 1,
            primary: "Unblock card",
            pinned: true,
            loose: 0,
          });
          assert.ok(!/frozen|freeze/i.test(await topPanelText(p)));
          await back(p);

          // The active card: one bar, Show card details first, the rest in the menu.
          await openRow(p, "Team lunch");
          assert.equal(await badge(p), "Active");
          assert.deepEqual(await actionBar(p), {
            bars: 1,
            primary: "Show card details",
            pinned: true,
            loose: 0,
          });
          await checkScreen(p, "card detail");
          assert.deepEqual(await menu(p), [
            { name: "Block card", danger: false },
            { name: "End card", danger: true },
            { name: "Cancel request", danger: true },
          ]);
          await checkScreen(p, "card detail, menu open");
          await closeMenu(p);

          // Revealed: Copy number is the primary; the expiry and the CVC are copied too.
          await inTopPanel(p, "Show card details");
          await p.waitForFunction(() =>
            /\d{4} \d{4}/.test(
              document.querySelector(".side-panel.open .card-number")?.textContent ?? "",
            )
          );
          const f = await face(p);
          const pan = f.number!.replace(/ /g, "");
          const cvc = f.cvc!;
          assert.equal((await actionBar(p)).primary, "Copy number");
          await inTopPanel(p, "Copy expiry");
          await waitText(p, "Expiry date copied");
          assert.equal(await p.evaluate(() => navigator.clipboard.readText()), f.expiry);
          await inTopPanel(p, "Copy CVC");
          await waitText(p, "CVC copied");
          assert.equal(await p.evaluate(() => navigator.clipboard.readText()), cvc);
          await inTopPanel(p, "Copy number");
          await waitText(p, "Card number copied");
          assert.equal(await p.evaluate(() => navigator.clipboard.readText()), pan);
          await checkScreen(p, "card detail, revealed");
          await p.evaluate(() => navigator.clipboard.writeText(""));
          // Hide, from the menu: masked at once, nothing of the card kept anywhere.
          assert.equal((await menu(p))[0].name, "Hide");
          await inTopPanel(p, "Hide");
          await p.waitForFunction(() => !document.querySelector(".side-panel.open .countdown"));
          await assertNoCardData(p, pan, cvc);

          // End card: the confirm says the verb, in red.
          await menu(p);
          await inTopPanel(p, "End card");
          await waitText(p, "End this card?");
          const yes = await p.$eval(".confirm button.destructive", (b) => ({
            name: (b as HTMLElement).innerText.trim(),
            color: getComputedStyle(b).backgroundColor,
          }));
          assert.equal(yes.name, "End card");
          // And No says what it means: no bare Yes/No.
          assert.equal(
            await p.$eval(".confirm button.secondary", (b) => (b as HTMLElement).innerText.trim()),
            "Keep",
          );
          const [r, g, b] = yes.color.match(/\d+/g)!.map(Number);
          assert.ok(r > 150 && g < 100 && b < 100, `'End card' is red: ${yes.color}`);
          await expectAccessible(p, "End card confirm");
          await p.locator(".confirm ::-p-aria(End card)").click();
          await p.waitForFunction(() =>
            document.querySelector(".side-panel.open .detail-head .status")?.textContent ===
              "Closed"
          );
          // A closed card: nothing that looks spendable, no actions left.
          const text = await topPanelText(p);
          assert.ok(text.includes("Nothing: the card is closed"), text);
          assert.ok(!text.includes("60.00"), text);
          assert.deepEqual(await actionBar(p), {
            bars: 0,
            primary: null,
            pinned: false,
            loose: 0,
          });
          await checkScreen(p, "closed card");
          await back(p);
          await p.waitForFunction(() =>
            document.querySelector(".wallet-tab .tab.active")?.textContent === "Closed"
          );
          await p.waitForFunction(() => document.querySelectorAll(".card-row").length === 1);
          const closed = (await rows(p))[0];
          assert.ok(closed.includes("Team lunch") && !/€/.test(closed), closed);
          await checkScreen(p, "wallet, closed");
        });
      } finally {
        await env.close();
      }
    },
  });
}
