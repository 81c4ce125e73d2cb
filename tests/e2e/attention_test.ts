/**
 * What needs attention, one tap away (spec §2 main tabs, §5 missing receipts block), in both
 * flavours at 360×640: the bottom navigation's badge sits on Transactions with an accessible
 * description ("2 need attention"), the overdue rows carry a marker in words, the block
 * banner offers "Add receipt" which opens the transaction concerned, and each receipt
 * attached lifts the marker, the badge and finally the block at once. Then the bottom
 * navigation's labels are whole (not cut) in English, French, German and Spanish.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import {
  activate,
  click,
  dumpOnFailure,
  type Env,
  FLAVOURS,
  start,
  tapDigits,
  waitText,
} from "./harness.ts";
import { closeAll, fileInput, mainTab, opts, settled, waitInTopPanel } from "./panels.ts";
import { bearerOf, cardFor, DAY, purchase } from "./transactions_setup.ts";
import { makePng } from "../fixtures/files.ts";
import { expectAccessible, expectNoSideScroll } from "./a11y.ts";

const EMPLOYEE = "employee@demo.example";
const BLOCK = "You have transactions that still have no receipts, please provide those first";

/** The bottom navigation: each tab's name, its badge and its accessible description. */
function navState(p: Page) {
  return p.$$eval(".bottom-nav [role=tab]", (tabs) =>
    tabs.map((tab) => {
      const described = tab.getAttribute("aria-describedby");
      return {
        name: (tab.querySelector(".nav-label") as HTMLElement).innerText,
        badge: (tab.querySelector(".badge") as HTMLElement | null)?.innerText ?? "",
        description: described ? document.getElementById(described)?.textContent ?? "" : "",
      };
    }));
}

/** Waits until the Transactions tab's description is `text` ("" for none). */
async function transactionsBadge(p: Page, text: string): Promise<void> {
  await p.waitForFunction(
    (want) => {
      const tab = [...document.querySelectorAll(".bottom-nav [role=tab]")].find((e) =>
        e.textContent?.includes("Transactions")
      );
      const id = tab?.getAttribute("aria-describedby");
      return (id ? document.getElementById(id)?.textContent ?? "" : "") === want;
    },
    {},
    text,
  );
}

const markers = (p: Page) =>
  p.$$eval(".tx-row .attention-marker", (l) => l.map((e) => (e as HTMLElement).innerText));

async function overdueSetup(env: Env, p: Page): Promise<void> {
  const h = await bearerOf(p, () => click(p, "Refresh"));
  const card = await cardFor(env, h);
  for (const [merchantName, amount] of [["Hotel Lyon", "120"], ["Cafe Simple", "12"]]) {
    assert.equal((await purchase(env, { card: card.oid, amount, merchantName })).approved, true);
  }
  // spec §5: 8 days later both receipts are overdue.
  const now = env.deps.now;
  env.deps.now = () => now() + 8 * DAY;
  await click(p, "Refresh");
}

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] attention: the badge on Transactions → marked rows → the block's Add receipt opens the transaction → each receipt lifts marker, badge and block at once`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      const dir = await Deno.makeTempDir({ prefix: "qcard-attention-" });
      const png = `${dir}/receipt.png`;
      await Deno.writeFile(png, makePng(200, 150));
      let page: Page | null = null;
      try {
        page = await activate(env, EMPLOYEE);
        const p = page;
        await dumpOnFailure(p, async () => {
          await waitText(p, "No requests here");
          await overdueSetup(env, p);

          // The badge is on Transactions, not on Requests, and says what it counts.
          await transactionsBadge(p, "2 need attention");
          const nav = await navState(p);
          assert.deepEqual(nav.map((t) => t.name), [
            "Requests",
            "Wallet",
            "Transactions",
            "Support",
          ]);
          assert.deepEqual(nav.map((t) => t.badge), ["", "", "2", ""]);
          await expectAccessible(p, "main screen with badges");

          // The rows that need a receipt are marked in words.
          await mainTab(p, "Transactions");
          await p.waitForFunction(() => document.querySelectorAll(".tx-row").length === 2);
          assert.deepEqual(await markers(p), ["Receipt missing", "Receipt missing"]);
          await expectAccessible(p, "transactions with markers");

          // spec §5: the block names its fix; "Add receipt" opens the first transaction.
          await mainTab(p, "Requests");
          await click(p, "New request");
          await waitText(p, BLOCK);
          assert.equal(await p.$$eval(".side-panel.open", (l) => l.length), 0);
          await expectAccessible(p, "block banner");
          for (const left of ["1 needs attention", ""]) {
            await p.locator(".banners ::-p-aria(Add receipt)").click();
            await p.waitForFunction(() => document.querySelectorAll(".side-panel.open").length);
            await settled(p);
            await waitInTopPanel(p, "Receipt overdue");
            const input = await fileInput(p, "Add receipt");
            await input.uploadFile(png);
            await waitInTopPanel(p, "Receipts (1)");
            // Lifted at once, with the panel still open: the detail, the badge, the rows.
            await p.waitForFunction(() =>
              !document.querySelector(".side-panel.open")?.textContent?.includes(
                "Receipt overdue",
              )
            );
            await transactionsBadge(p, left);
            await closeAll(p);
            await mainTab(p, "Transactions");
            await p.waitForFunction(
              (n) => document.querySelectorAll(".tx-row .attention-marker").length === n,
              {},
              left ? 1 : 0,
            );
            await mainTab(p, "Requests");
            if (left) await waitText(p, BLOCK);
          }
          // The block is gone everywhere: no banner, no badge, and the form opens.
          await p.waitForFunction(() => !document.querySelector(".banners"));
          assert.deepEqual((await navState(p)).map((t) => t.badge), ["", "", "", ""]);
          await click(p, "New request");
          await waitInTopPanel(p, "Purpose");
        });
      } finally {
        await env.close();
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    },
  });

  Deno.test({
    name:
      `[e2e:${flavour}] attention: the bottom navigation shows icon and whole label at 360 px in en, fr, de and es; no screen wider than the viewport`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      let page: Page | null = null;
      try {
        page = await activate(env, EMPLOYEE);
        const p = page;
        await dumpOnFailure(p, async () => {
          const want: Record<string, string[]> = {
            en: ["Requests", "Wallet", "Transactions", "Support"],
            fr: ["Demandes", "Portefeuille", "Transactions", "Assistance"],
            de: ["Anträge", "Wallet", "Transaktionen", "Support"],
            es: ["Solicitudes", "Cartera", "Transacciones", "Soporte"],
          };
          for (const [lang, labels] of Object.entries(want)) {
            if (lang !== "en") {
              await p.evaluate((l) => localStorage.setItem("qc_language", l), lang);
              await p.reload();
              await p.waitForSelector(".pin-keys");
              await tapDigits(p, "135790");
            }
            await p.waitForFunction(
              (want) =>
                [...document.querySelectorAll(".bottom-nav .nav-label")].map((e) => e.textContent)
                  .join("|") === want,
              {},
              labels.join("|"),
            );
            const tabs = await p.$$eval(".bottom-nav [role=tab]", (l) =>
              l.map((tab) => {
                const label = tab.querySelector(".nav-label") as HTMLElement;
                const box = tab.getBoundingClientRect();
                return {
                  label: label.innerText,
                  icon: !!tab.querySelector("svg.nav-icon"),
                  cut: label.scrollWidth > label.clientWidth || tab.scrollWidth > tab.clientWidth,
                  inside: box.left >= 0 && box.right <= innerWidth && box.bottom <= innerHeight,
                  tall: box.height >= 44,
                };
              }));
            assert.deepEqual(tabs.map((x) => x.label), labels, lang);
            for (const tab of tabs) {
              assert.deepEqual(
                { ...tab, label: undefined },
                { label: undefined, icon: true, cut: false, inside: true, tall: true },
                `${lang}: ${tab.label}`,
              );
            }
            await expectNoSideScroll(p, `main screen (${lang})`);
            await expectAccessible(p, `main screen (${lang})`);
          }
        });
      } finally {
        await env.close();
      }
    },
  });
}
