/**
 * Screenshots of "offline at the till" at 360×640 for docs/screens.md (not a test):
 *
 *   ./node_modules/deno/deno run -A build.ts
 *   CHROME_PATH=/usr/bin/chromium ./node_modules/deno/deno run -A tests/e2e/screens_offline_till.ts
 *
 * Writes docs/screenshots/offline-till-*.png from a fresh demo server (the preact build in
 * dist/): the offline strip on the list, a never-opened transaction's detail offline with a
 * queued photo, an offline request's message above Submit, "Back online", the Enhance switch
 * and the declaration's switch.
 */
import type { Page } from "puppeteer-core";
import { activate, click, start, waitText } from "./harness.ts";
import {
  closeAll,
  fileInput,
  fill,
  inTopPanel,
  mainTab,
  pick,
  tap,
  waitInTopPanel,
} from "./panels.ts";
import { bearerOf, cardFor, DAY, openTx, purchase } from "./transactions_setup.ts";
import { makePng } from "../fixtures/files.ts";
import { shot as docShot } from "./shots.ts";

const shot = (p: Page, name: string) => docShot(p, `offline-till-${name}`);

const dir = await Deno.makeTempDir({ prefix: "qcard-till-shots-" });
const photo = `${dir}/receipt.png`;
await Deno.writeFile(photo, makePng(600, 800, { rgb: [236, 226, 196] }));
const env = await start("preact");
try {
  const p = await activate(env, "employee@demo.example");
  await waitText(p, "No requests here");
  const h = await bearerOf(p, () => click(p, "Refresh"));
  const card = await cardFor(env, h);
  await purchase(env, { card: card.oid, amount: "38.50", merchantName: "Brasserie du Port" });
  await purchase(env, { card: card.oid, amount: "6.40", merchantName: "Cafe Nord" });
  await click(p, "New request");
  await waitInTopPanel(p, "Purpose");
  await pick(p, "Type", "Travel");
  await closeAll(p);
  await click(p, "Refresh");
  await mainTab(p, "Transactions");
  await p.waitForSelector(".tx-row");
  await p.evaluate(() => navigator.serviceWorker?.ready);

  await p.setOfflineMode(true);
  await p.waitForSelector(".offline-strip.shown");
  await shot(p, "strip");

  await openTx(p, "Cafe Nord");
  await waitInTopPanel(p, "not opened on this phone before");
  await (await fileInput(p, "Take photo")).uploadFile(photo);
  await p.waitForSelector(".side-panel.open .capture-pages img[alt='Page 1']");
  await shot(p, "enhance-switch");
  await inTopPanel(p, "Send receipt");
  await waitInTopPanel(p, "Receipt pending upload");
  await new Promise((r) => setTimeout(r, 4200)); // the "saved on this device" notice goes
  await p.evaluate(() => document.querySelector(".side-panel.open .panel-body")?.scrollTo(0, 0));
  await shot(p, "detail");
  await p.evaluate(() =>
    document.querySelector(".side-panel.open .offline-vat")?.scrollIntoView({ block: "center" })
  );
  await shot(p, "detail-vat");
  await closeAll(p);

  await mainTab(p, "Requests");
  await click(p, "New request");
  await waitInTopPanel(p, "Purpose");
  await pick(p, "Type", "Travel");
  await fill(p, "Amount", "120");
  await fill(p, "Purpose", "Taxi to the trade fair");
  await tap(p, "Submit");
  await p.locator(".confirm .confirm-buttons button:last-child").click();
  await p.waitForSelector(".side-panel.open .form-error");
  await shot(p, "request");
  await closeAll(p);

  await p.setOfflineMode(false);
  await p.waitForSelector(".offline-strip.shown.back");
  await shot(p, "back");

  // The declaration's confirmation switch (an overdue purchase: 8 days on).
  const now = env.deps.now;
  env.deps.now = () => now() + 8 * DAY;
  await click(p, "Refresh");
  await mainTab(p, "Transactions");
  await openTx(p, "Brasserie du Port");
  await waitInTopPanel(p, "Receipt overdue");
  await inTopPanel(p, "No receipt?");
  await fill(p, "What was bought", "Lunch with a client");
  await fill(p, "Why there is no receipt", "The till printer was broken");
  await p.evaluate(() =>
    document.querySelector(".side-panel.open .declaration-confirm")?.scrollIntoView({
      block: "center",
    })
  );
  await p.locator("::-p-text(confirm that this declaration is true)").click();
  await shot(p, "declaration-switch");
} finally {
  await env.close();
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}
