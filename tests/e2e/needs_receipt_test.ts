/**
 * Missing receipts are visible before they are overdue (spec §2 Transactions and its badge, §5
 * missing receipts), in both flavours at 360×640: a purchase made today without a receipt is
 * in "Needs a receipt (n)" pinned at the top of Transactions with the day it is due, marked in
 * words, and counted in the Transactions badge (with its accessible description); an overdue
 * one sorts first and says for how long; tapping the tab lands on the group (a search that hid
 * it is cleared) so the purchase is one more tap away; each transaction is listed once (the
 * others keep their day groups); attaching a receipt takes it out of the group and the badge
 * at once, back to its day. Prints the taps and seconds of "find what needs me".
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { activate, click, dumpOnFailure, type Env, FLAVOURS, start, waitText } from "./harness.ts";
import { closeAll, fileInput, mainTab, opts, settled, waitInTopPanel } from "./panels.ts";
import { bearerOf, cardFor, DAY, purchase } from "./transactions_setup.ts";
import { makePng } from "../fixtures/files.ts";
import { expectAccessible, expectNoSideScroll } from "./a11y.ts";

const EMPLOYEE = "employee@demo.example";
const GROUP = ".transactions-tab .tx-needs-receipt";

/** Moves a purchase `days` back in time (made and captured then), as if bought that day. */
export async function backdate(env: Env, oid: string, days: number): Promise<void> {
  const { transactions, kv } = env.deps.store;
  const user = await transactions.owner(oid);
  assert.ok(user, `no owner for ${oid}`);
  const e = await transactions.get(user, oid);
  const at = e.value!.createdAt - days * DAY;
  const moved = { ...e.value!, createdAt: at, capturedAt: at, updatedAt: Date.now() };
  assert.ok((await transactions.put(kv.atomic().check(e), moved).commit()).ok);
}

/** The Transactions tab's accessible description ("2 need attention"; "" for none). */
const badgeDescription = (p: Page) =>
  p.evaluate(() => {
    const tab = document.getElementById("nav-tab-transactions");
    const id = tab?.getAttribute("aria-describedby");
    return {
      badge: (tab?.querySelector(".badge") as HTMLElement | null)?.innerText ?? "",
      description: id ? document.getElementById(id)?.textContent ?? "" : "",
    };
  });

async function waitBadge(p: Page, badge: string, description: string): Promise<void> {
  await p.waitForFunction(
    (b, d) => {
      const tab = document.getElementById("nav-tab-transactions");
      const id = tab?.getAttribute("aria-describedby");
      return ((tab?.querySelector(".badge") as HTMLElement | null)?.innerText ?? "") === b &&
        (id ? document.getElementById(id)?.textContent ?? "" : "") === d;
    },
    {},
    badge,
    description,
  ).catch(async (err) => {
    throw new Error(`badge ${JSON.stringify(await badgeDescription(p))}: ${err}`);
  });
}

/** The tab's sections in order: their names and the texts of their rows. */
const sections = (p: Page) =>
  p.$$eval(".transactions-tab section.tx-group", (l) =>
    l.map((s) => ({
      name: s.getAttribute("aria-label") ?? "",
      rows: [...s.querySelectorAll(".tx-row")].map((e) => (e as HTMLElement).innerText),
    })));

/** spec §9 short date of `ms` as the app shows it (the page's language and zone). */
const shortDateIn = (p: Page, ms: number) =>
  p.evaluate(
    (at) =>
      new Intl.DateTimeFormat(navigator.language, {
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
      }).format(at),
    ms,
  );

/** Purchases: one today (due in 7 days), one 10 days ago (overdue by 3), one refused. */
async function purchases(env: Env, p: Page) {
  const h = await bearerOf(p, () => click(p, "Refresh"));
  const card = await cardFor(env, h);
  const fresh = await purchase(env, { card: card.oid, amount: "15", merchantName: "Musee Lyon" });
  const old = await purchase(env, { card: card.oid, amount: "120", merchantName: "Hotel Lyon" });
  const refused = await purchase(env, {
    card: card.oid,
    amount: "20",
    merchantName: "Casino Royal",
    mcc: "7995",
  });
  assert.deepEqual([fresh.approved, old.approved, refused.approved], [true, true, false]);
  await backdate(env, old.transactionOid, 10);
  const user = (await env.deps.store.transactions.owner(fresh.transactionOid))!;
  const rec = (await env.deps.store.transactions.get(user, fresh.transactionOid)).value!;
  return { freshDue: rec.capturedAt! + 7 * DAY };
}

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] needs a receipt: a purchase not yet due is in the pinned group with its due day and in the badge; overdue first; the tab lands on the group; a receipt takes it out of group and badge`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      const dir = await Deno.makeTempDir({ prefix: "qcard-needs-" });
      const png = `${dir}/receipt.png`;
      await Deno.writeFile(png, makePng(200, 150));
      let page: Page | null = null;
      try {
        page = await activate(env, EMPLOYEE);
        const p = page;
        await dumpOnFailure(p, async () => {
          await waitText(p, "No requests here");
          const { freshDue } = await purchases(env, p);
          await click(p, "Refresh");

          // The badge counts both, the one not yet due too, and says so to screen readers.
          await waitBadge(p, "2", "2 need attention");
          await expectAccessible(p, "main screen with the receipts badge");

          // Scrolled away and searching for something else: the tab tap still lands on the group.
          await mainTab(p, "Transactions");
          await p.waitForSelector(GROUP);
          await p.locator(".transactions-tab input[type=search]").fill("Casino");
          await p.waitForFunction((g) => !document.querySelector(g), {}, GROUP);
          await mainTab(p, "Requests");

          // "Find what needs me": from the main screen, taps and time to the purchase open.
          const t0 = performance.now();
          await mainTab(p, "Transactions"); // tap 1: the tab with the badge
          await p.waitForSelector(`${GROUP} .tx-row`, { visible: true });
          const landed = await p.$eval(`${GROUP} .tx-row`, (e) => {
            const r = e.getBoundingClientRect();
            const nav = document.querySelector(".bottom-nav")!.getBoundingClientRect();
            return { top: r.top, bottom: r.bottom, navTop: nav.top };
          });
          assert.ok(landed.top >= 0 && landed.bottom <= landed.navTop, JSON.stringify(landed));
          assert.equal(
            await p.$eval(
              ".transactions-tab input[type=search]",
              (e) => (e as HTMLInputElement).value,
            ),
            "",
          );
          await p.locator(`${GROUP} .tx-row`).click(); // tap 2: the first row
          await waitInTopPanel(p, "Hotel Lyon");
          await waitInTopPanel(p, "Receipt overdue");
          const seconds = (performance.now() - t0) / 1000;
          console.log(
            `[${flavour}] find what needs me: 2 taps, ${
              seconds.toFixed(2)
            } s from the unlocked main screen to the purchase that needs a receipt, open`,
          );
          await closeAll(p);

          // The group: both, overdue first, each with its due words; the refused one below.
          const all = await sections(p);
          assert.deepEqual(all.map((s) => s.name), ["Needs a receipt (2)", "Today"]);
          const [hotel, musee] = all[0].rows;
          assert.match(hotel, /Hotel Lyon/);
          assert.match(hotel, /Receipt missing/);
          assert.match(hotel, /Overdue 3 days/);
          assert.match(musee, /Musee Lyon/);
          assert.ok(
            musee.includes(`Receipt due ${await shortDateIn(p, freshDue)}`),
            `${musee} (due ${new Date(freshDue).toISOString()})`,
          );
          assert.ok(!musee.includes("Receipt missing"), musee);
          assert.equal(all[1].rows.length, 1);
          assert.match(all[1].rows[0], /Casino Royal/);
          // Painted: the not-yet-due marker is a visible pill in words, not only a colour.
          const pill = await p.$eval(`${GROUP} .receipt-marker`, (e) => {
            const r = e.getBoundingClientRect();
            return { w: r.width, h: r.height, text: (e as HTMLElement).innerText };
          });
          assert.ok(pill.w > 40 && pill.h > 10, JSON.stringify(pill));
          await expectAccessible(p, "transactions with the needs-a-receipt group");
          await expectNoSideScroll(p, "transactions with the needs-a-receipt group");

          // A receipt on the one not yet due: out of the group and the badge at once.
          await p.evaluate(() =>
            ([...document.querySelectorAll(".tx-needs-receipt .tx-row")].find((e) =>
              (e as HTMLElement).innerText.includes("Musee Lyon")
            ) as HTMLElement).click()
          );
          await settled(p);
          await waitInTopPanel(p, "Receipt due");
          const input = await fileInput(p, "Add receipt");
          await input.uploadFile(png);
          await waitInTopPanel(p, "Receipts (1)");
          await waitBadge(p, "1", "1 needs attention");
          await closeAll(p);
          await p.waitForFunction(
            (g) => document.querySelector(g)?.getAttribute("aria-label") === "Needs a receipt (1)",
            {},
            GROUP,
          );
          const after = await sections(p);
          assert.deepEqual(after.map((s) => s.name), ["Needs a receipt (1)", "Today"]);
          assert.match(after[0].rows[0], /Hotel Lyon/);
          assert.ok(after[1].rows.some((r) => r.includes("Musee Lyon")), after[1].rows.join("|"));
          assert.ok(!after[1].rows.some((r) => /Receipt (due|missing)/.test(r)));
        });
      } finally {
        await env.close();
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    },
  });
}
