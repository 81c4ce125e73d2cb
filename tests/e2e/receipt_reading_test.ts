/**
 * The phone reads the receipt (docs/receipts.md): a photo taken on a transaction is read on the
 * device — its engine fetched from our own origin on the first reading, nothing asked of any
 * other — and shows total, date, merchant and VAT against the payment ("Receipt matches the
 * payment"); "Use for VAT" opens the VAT panel filled from it, OK confirms (one tap). A
 * receipt that differs says what differs. After that first use the engine is in the service
 * worker's cache: offline, after a restart, a receipt is still read.
 *
 * The receipts are drawn here in the browser (a till's monospace print, as a PNG): what is
 * tested is the app's reading flow; the reading's accuracy on real receipts is the bench's
 * (tests/bench/receipt_corpus.ts).
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { activate, click, dumpOnFailure, FLAVOURS, start, tapDigits, waitText } from "./harness.ts";
import { fileInput, inTopPanel, mainTab, opts, panelsClosed, waitInTopPanel } from "./panels.ts";
import { bearerOf, cardFor, openTx, purchase } from "./transactions_setup.ts";
import { expectAccessible, expectNoSideScroll } from "./a11y.ts";
import { shot } from "./shots.ts";
import { receiptImage, tillDate } from "./receipt_setup.ts";

/** `QC_SHOTS=1`: the screenshots of docs/receipts.md, taken on the way (preact). */
const SHOTS = !!Deno.env.get("QC_SHOTS");

const EMPLOYEE = "employee@demo.example";

const readingText = (p: Page) =>
  p.$eval(".side-panel.open .reading", (e) => (e as HTMLElement).innerText).catch(() => "");

async function waitReading(p: Page, text: string, timeout = 90_000): Promise<string> {
  await p.waitForFunction(
    (t) =>
      [...document.querySelectorAll(".side-panel.open .reading")].some((e) =>
        (e as HTMLElement).innerText.includes(t)
      ),
    { timeout },
    text,
  ).catch(async (err) => {
    throw new Error(`no "${text}" in the reading card: ${await readingText(p)} (${err})`);
  });
  return await readingText(p);
}

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] receipt reading: a photo read on the phone, matched with the payment, VAT filled in one tap; a mismatch said; offline after a first use`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      const dir = await Deno.makeTempDir({ prefix: "qcard-read-" });
      let page: Page | null = null;
      try {
        await receiptImage(env.browser, [
          "BISTRO LYON",
          "12 rue Merciere",
          "69002 Lyon",
          `${tillDate()}  12:41`,
          "",
          "2 Plat du jour          36,00",
          "1 Vin rouge             18,90",
          "",
          "TOTAL TTC EUR           54,90",
          "CB                      54,90",
          "",
          "TVA 20%  HT 45,75  TVA 9,15",
          "MERCI DE VOTRE VISITE",
        ], `${dir}/bistro.png`);
        await receiptImage(env.browser, [
          "HOTEL NICE",
          "5 promenade des Anglais",
          "06000 Nice",
          `${tillDate()}  09:12`,
          "",
          "Chambre 1 nuit         101,82",
          "Taxe de sejour           2,18",
          "",
          "TOTAL TTC EUR          104,00",
          "",
          "TVA 10%  HT 92,56  TVA 9,26",
          "A BIENTOT",
        ], `${dir}/hotel.png`);
        page = await activate(env, EMPLOYEE);
        const p = page;
        // Every request the page makes: none may leave our origin.
        const elsewhere: string[] = [];
        p.on("request", (r) => {
          const u = r.url();
          if (!u.startsWith(env.url) && !/^(data|blob):/.test(u)) elsewhere.push(u);
        });
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

          // A receipt that matches: read, said, and the VAT in one tap.
          await openTx(p, "Bistro Lyon");
          await (await fileInput(p, "Take photo")).uploadFile(`${dir}/bistro.png`);
          const t0 = Date.now();
          const read = await waitReading(p, "Receipt matches the payment");
          console.log(`  first reading (engine fetched and started): ${Date.now() - t0} ms`);
          assert.match(read, /54[.,]90/, read);
          assert.match(read, /BISTRO LYON/i, read);
          assert.match(read, /20 %: €?9[.,]15/, read);
          await expectAccessible(p, "receipt read");
          await expectNoSideScroll(p, "receipt read");
          if (SHOTS && flavour === "preact") {
            await p.evaluate(() =>
              document.querySelector(".side-panel.open .reading")?.scrollIntoView()
            );
            await shot(p, "receipt-read-match");
          }
          // Sent (a transaction is reviewed with its receipt): what was read stays shown.
          await inTopPanel(p, "Send receipt");
          await waitInTopPanel(p, "Receipts (1)");
          assert.match(await readingText(p), /Receipt matches the payment/);
          // What was read went with it, and shows with the receipt.
          await waitInTopPanel(p, "Read on the phone:");
          const sent = await p.$eval(
            ".side-panel.open .receipt-read",
            (e) => (e as HTMLElement).innerText,
          );
          assert.match(sent, /54[.,]90.*BISTRO LYON.*matches the payment/, sent);
          await inTopPanel(p, "Use for VAT");
          await waitInTopPanel(p, "Filled in from the receipt");
          if (SHOTS && flavour === "preact") await shot(p, "receipt-read-vat");
          assert.equal(
            await p.$eval(".side-panel.open #vat-code-1", (e) => (e as HTMLSelectElement).value),
            "vat-fr-20",
          );
          assert.match(
            await p.$eval(".side-panel.open #vat-amount-1", (e) => (e as HTMLInputElement).value),
            /^9[.,]15$/,
          );
          await p.select(".side-panel.open #vat-type", "rt-receipt");
          await inTopPanel(p, "OK");
          await waitText(p, "Transaction reviewed");
          await waitInTopPanel(p, "VAT lines: 1");
          await inTopPanel(p, "Back");
          await panelsClosed(p);

          // A real photo chosen with Add receipt: it goes up at once and is read meanwhile; what
          // was read follows it only when the person sends it.
          await openTx(p, "Hotel Nice");
          await (await fileInput(p, "Add receipt")).uploadFile(
            new URL("../fixtures/receipts/fr-restaurant-01.jpg", import.meta.url).pathname,
          );
          await waitInTopPanel(p, "Receipts (1)");
          const chosen = await waitReading(p, "Send with the receipt");
          assert.match(chosen, /Contoso/, chosen);
          assert.match(chosen, /21[.,]00/, chosen);
          assert.equal(
            await p.$(".side-panel.open .receipt-read"),
            null,
            "nothing read went up with the file",
          );
          await inTopPanel(p, "Send with the receipt");
          await waitInTopPanel(p, "Read on the phone:");
          const followed = await p.$eval(
            ".side-panel.open .receipt-read",
            (e) => (e as HTMLElement).innerText,
          );
          assert.match(followed, /Contoso/, followed);
          // The total was not sure: it stays on the phone.
          assert.doesNotMatch(followed, /21[.,]00/, followed);
          await waitReading(p, "Sent with the receipt");
          await inTopPanel(p, "Back");
          await panelsClosed(p);

          // The engine and its languages are kept by the service worker.
          const kept = await p.evaluate(async () => {
            const c = await caches.open("qc-on-demand-v1");
            return (await c.keys()).map((r) => new URL(r.url).pathname)
              .filter((u) => u.includes("/ocr-")).map((u) => u.replace(/.*\//, "")).sort();
          });
          assert.deepEqual(kept, [
            "eng.traineddata.gz",
            "tesseract-core-simd-lstm.wasm.js",
            "worker.js",
          ]);

          // Offline, restarted: a receipt that differs is read all the same, and says so.
          await p.setOfflineMode(true);
          await p.reload();
          await p.waitForSelector(".pin-keys");
          await tapDigits(p, "135790");
          await mainTab(p, "Transactions");
          await openTx(p, "Hotel Nice");
          await (await fileInput(p, "Take photo")).uploadFile(`${dir}/hotel.png`);
          const differs = await waitReading(p, "payment");
          assert.match(differs, /Receipt total €?104[.,]00 ?€? — payment €?120[.,]00/, differs);
          assert.match(differs, /The payment is €?16[.,]00 ?€? more: a tip\?/, differs);
          assert.doesNotMatch(differs, /matches the payment/);
          await expectAccessible(p, "receipt differs");
          if (SHOTS && flavour === "preact") {
            await p.evaluate(() =>
              document.querySelector(".side-panel.open .reading")?.scrollIntoView()
            );
            await shot(p, "receipt-read-differs");
          }
          await p.setOfflineMode(false);
          assert.deepEqual(elsewhere, [], "requests to another origin");
        });
      } finally {
        await env.close();
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    },
  });
}
