/**
 * Offline at the till (spec §1 offline, §5 Upload), both flavours at 360×640: the network drops
 * and the calm offline strip shows within 2 s (informational, not the error colour; at the top,
 * never under the bottom navigation or a sticky bar). A transaction whose receipt was attached
 * online reopens offline with one truth: "Receipts (1)" over its one receipt, "Documents (1)",
 * no "No receipt?". A transaction never opened on this phone opens from the cached list as a
 * real detail: "Take photo" works, the photo waits in the offline queue (Pending), and VAT says
 * "Available when online". A request submitted offline says why it cannot go, above the sticky
 * Submit. The network returns: "Back online", and the queued photo reaches the server once.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { activate, click, dumpOnFailure, type Env, FLAVOURS, start, waitText } from "./harness.ts";
import {
  closeAll,
  fileInput,
  fill,
  inTopPanel,
  mainTab,
  opts,
  pick,
  tap,
  topPanelText,
  waitInTopPanel,
} from "./panels.ts";
import { expectAccessible, expectNoSideScroll } from "./a11y.ts";
import { bearerOf, cardFor, openTx, purchase } from "./transactions_setup.ts";
import { makePng } from "../fixtures/files.ts";
import { UPLOAD_PATH } from "../../client/shared/contract/documents.ts";

const EMPLOYEE = "employee@demo.example";
const OFFLINE = "You are offline: showing saved data";
const STRIP = ".offline-strip.shown";

/** The receipts the server holds for a transaction (their names). */
async function receiptsOn(env: Env, txOid: string): Promise<string[]> {
  const uid = (await env.deps.store.users.byEmail(EMPLOYEE))!.oid;
  const tx = (await env.deps.store.transactions.get(uid, txOid)).value!;
  return (await env.deps.store.documents.byTransaction(uid, tx.authorizationId))
    .filter((d) => d.documentType === "receipt").map((d) => d.name);
}

/** A box of the page: top and bottom edges in CSS pixels (null when absent). */
const box = (p: Page, sel: string) =>
  p.evaluate((s) => {
    const l = document.querySelectorAll(s);
    const e = l[l.length - 1];
    if (!e) return null;
    const r = e.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, height: r.height };
  }, sel);

/** The offline strip is painted, calm, at the top, above any sticky bar or navigation. */
async function stripPainted(p: Page, text: string): Promise<void> {
  await p.waitForFunction(
    (s, t) => (document.querySelector(s) as HTMLElement | null)?.innerText.includes(t) ?? false,
    { timeout: 2_000 },
    STRIP,
    text,
  );
  const look = await p.$eval(STRIP, (e) => {
    const cs = getComputedStyle(e);
    const r = e.getBoundingClientRect();
    return { bg: cs.backgroundColor, top: r.top, bottom: r.bottom, visible: cs.display !== "none" };
  });
  assert.ok(look.visible && look.top === 0, `strip at the top: ${JSON.stringify(look)}`);
  // Not the error colour (the error banners' dark red), an informational light one.
  const [r, g, b] = look.bg.match(/\d+/g)!.map(Number);
  assert.ok(b > r && r + g + b > 600, `informational colour, got ${look.bg}`);
  for (const sel of [".bottom-nav", ".side-panel.open .sticky-action"]) {
    const other = await box(p, sel);
    if (other) assert.ok(look.bottom <= other.top, `${sel} covers the strip`);
  }
}

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] offline till: strip within 2 s; a cached detail agrees with its receipts; a never-opened transaction takes a queued photo and says why VAT waits; an offline request says why above Submit; back online`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      const dir = await Deno.makeTempDir({ prefix: "qcard-till-" });
      const photo = `${dir}/till.png`;
      await Deno.writeFile(photo, makePng(800, 1000));
      let page: Page | null = null;
      try {
        page = await activate(env, EMPLOYEE);
        const p = page;
        await dumpOnFailure(p, async () => {
          await waitText(p, "No requests here");
          const h = await bearerOf(p, () => click(p, "Refresh"));
          const card = await cardFor(env, h);
          const hotel = await purchase(env, { card: card.oid, amount: "90", merchantName: "Inn" });
          const cafe = await purchase(env, {
            card: card.oid,
            amount: "6.40",
            merchantName: "Cafe",
          });
          // A receipt sent from elsewhere for a transaction this phone never opens online.
          const taxi = await purchase(env, { card: card.oid, amount: "30", merchantName: "Taxi" });
          const form = new FormData();
          form.append("record", taxi.transactionOid);
          form.append("documenttype", "receipt");
          form.append(
            "file",
            new Blob([await Deno.readFile(photo)], { type: "image/png" }),
            "t.png",
          );
          const sent = await fetch(`${env.url}/bonita${UPLOAD_PATH}`, {
            method: "POST",
            headers: h,
            body: form,
          });
          assert.equal(sent.status, 200, await sent.text());
          // The request form once online: its lookups are cached for an offline attempt.
          await click(p, "New request");
          await waitInTopPanel(p, "Purpose");
          await pick(p, "Type", "Travel");
          await closeAll(p);
          await click(p, "Refresh");
          await mainTab(p, "Transactions");

          // Online: a receipt attached to the hotel in the app.
          await openTx(p, "Inn");
          await waitInTopPanel(p, "Receipts (0)");
          await (await fileInput(p, "Add receipt")).uploadFile(photo);
          await waitInTopPanel(p, "Receipts (1)");
          await waitInTopPanel(p, "Documents (1)");
          await p.waitForSelector(".side-panel.open .receipt-list li");
          await closeAll(p);
          await p.waitForFunction(() =>
            [...document.querySelectorAll(".tx-row")].some((e) =>
              e.textContent!.includes("Inn") && e.textContent!.includes("1 receipt")
            )
          );
          // The worker that serves the app's chunks offline is installed.
          await p.evaluate(() => navigator.serviceWorker?.ready);

          // The network drops: the strip says so within 2 s, before any write fails.
          const dropped = Date.now();
          await p.setOfflineMode(true);
          await stripPainted(p, OFFLINE);
          const ms = Date.now() - dropped;
          assert.ok(ms <= 2_000, `strip after ${ms} ms`);
          await expectAccessible(p, "offline strip on the transactions list");

          // The hotel reopened offline: one truth for its count, its receipt and its documents.
          await openTx(p, "Inn");
          await waitInTopPanel(p, "Receipts (1)");
          await p.waitForSelector(".side-panel.open .receipt-list li");
          const inn = await topPanelText(p);
          assert.ok(inn.includes("Documents (1)"), inn);
          assert.ok(!inn.includes("Receipts (0)") && !inn.includes("No receipt?"), inn);
          assert.equal(await p.$$eval(".side-panel.open .receipt-list li", (l) => l.length), 1);
          await closeAll(p);

          // The taxi, never opened, its receipt sent elsewhere: the count agrees with the row and
          // the receipt it cannot show yet is said, not hidden.
          await openTx(p, "Taxi");
          await waitInTopPanel(p, "1 receipt already sent shows when you are back online");
          const taxiText = await topPanelText(p);
          assert.ok(taxiText.includes("Receipts (1)"), taxiText);
          assert.ok(!taxiText.includes("No receipt yet"), taxiText);
          await closeAll(p);

          // The cafe, never opened on this phone: a real detail from the cached row.
          await openTx(p, "Cafe");
          await waitInTopPanel(p, "not opened on this phone before");
          await waitInTopPanel(p, "Receipts (0)");
          const cafeText = await topPanelText(p);
          assert.match(cafeText, /VAT type\s*Available when online/);
          assert.match(cafeText, /Documents\s*Available when online/);
          await (await fileInput(p, "Take photo")).uploadFile(photo);
          await p.waitForSelector(".side-panel.open .capture-pages img[alt='Page 1']");
          assert.equal(
            await p.$eval(".capture input[role=switch]", (e) => (e as HTMLInputElement).checked),
            true,
          );
          await inTopPanel(p, "Send receipt");
          await waitInTopPanel(p, "Receipt pending upload");
          await p.waitForFunction(() => {
            const l = document.querySelectorAll(".side-panel.open .receipts li.pending");
            return l.length === 1 && /Pending|Sending/.test((l[0] as HTMLElement).innerText);
          });
          assert.deepEqual(await receiptsOn(env, cafe.transactionOid), []);
          await stripPainted(p, OFFLINE);
          await expectAccessible(p, "offline detail of a never-opened transaction");
          await expectNoSideScroll(p, "offline detail of a never-opened transaction");
          await closeAll(p);

          // A request typed offline: why it cannot go, where the eye is (not under Submit).
          await mainTab(p, "Requests");
          await click(p, "New request");
          await waitInTopPanel(p, "Purpose");
          await pick(p, "Type", "Travel");
          await fill(p, "Amount", "120");
          await fill(p, "Purpose", "Taxi to the fair");
          await tap(p, "Submit");
          await p.locator(".confirm .confirm-buttons button:last-child").click();
          const why = ".side-panel.open .form-error";
          await p.waitForFunction(
            (s) =>
              (document.querySelector(s) as HTMLElement | null)?.innerText.includes(
                "a new request needs a connection",
              ) ?? false,
            {},
            why,
          );
          await new Promise((r) => setTimeout(r, 400)); // its scroll into view
          const said = (await box(p, why))!;
          const submit = (await box(p, ".side-panel.open .sticky-action"))!;
          assert.ok(said.bottom <= submit.top, `message ${JSON.stringify(said)} under Submit`);
          assert.ok(said.top >= 0, "message on screen");
          assert.equal(await p.$eval("input[inputmode=decimal]", (e) => e.value), "120");
          await expectAccessible(p, "offline request message");
          await closeAll(p);

          // Back online: said, briefly; the queued photo arrives once.
          const back = Date.now();
          await p.setOfflineMode(false);
          await stripPainted(p, "Back online");
          assert.ok(Date.now() - back <= 2_000);
          await p.waitForFunction((s) => !document.querySelector(s), { timeout: 10_000 }, STRIP);
          await p.waitForFunction(
            () => !document.body.innerText.includes("Changes waiting to be sent"),
            { timeout: 30_000 },
          );
          assert.equal((await receiptsOn(env, cafe.transactionOid)).length, 1);
          assert.deepEqual(await receiptsOn(env, hotel.transactionOid), ["till.png"]);
        });
      } finally {
        await env.close();
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    },
  });
}
