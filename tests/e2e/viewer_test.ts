/**
 * Receipt and document viewers at 360×640, both flavours (spec §7 pwapreview, §2 document
 * panel): a receipt shows its 1024 px preview and the original is fetched only after "Open
 * original" (requests counted); a PDF receipt is drawn on a framed dark ground and zooms with
 * named +/- buttons; the document panel's chooser is a button over a hidden input with the
 * chosen name shown, and an opened tab's close button stands outside the tablist. axe finds
 * nothing on each screen and nothing is wider than the viewport.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { activate, click, dumpOnFailure, type Env, FLAVOURS, start, waitText } from "./harness.ts";
import { inTopPanel, mainTab, named, opts, settled, waitInTopPanel } from "./panels.ts";
import { bearerOf, cardFor, purchase } from "./transactions_setup.ts";
import { makePdf, makePng } from "../fixtures/files.ts";
import { expectAccessible, expectNoSideScroll } from "./a11y.ts";
import { UPLOAD_PATH } from "../../client/shared/contract/documents.ts";
import { sizeText } from "../../client/lib/file_display.ts";

const EMPLOYEE = "employee@demo.example";

/** Attaches a receipt through the API, as another device of the user would. */
async function attach(
  env: Env,
  h: Record<string, string>,
  tx: string,
  file: Uint8Array,
  name: string,
  preview: Uint8Array,
) {
  const f = new FormData();
  f.append("record", tx);
  f.append("documenttype", "receipt");
  f.append("file", new Blob([file as Uint8Array<ArrayBuffer>]), name);
  f.append("preview", new Blob([preview as Uint8Array<ArrayBuffer>]), "preview.png");
  const res = await fetch(`${env.url}/bonita${UPLOAD_PATH}`, {
    method: "POST",
    headers: h,
    body: f,
  });
  assert.equal(res.status, 200, await res.text());
  await res.body?.cancel().catch(() => {});
}

/** The shown image's natural width (the preview's or the original's). */
const imageWidth = (p: Page) =>
  p.$eval(".side-panel.open .receipt-view img", (e) => (e as HTMLImageElement).naturalWidth);

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] viewers: preview first, original only on demand; PDF framed and zoomable; document chooser is a named button`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      const dir = await Deno.makeTempDir({ prefix: "qcard-viewer-" });
      let page: Page | null = null;
      try {
        page = await activate(env, EMPLOYEE);
        const p = page;
        // Every file request the page makes, by call.
        const fetched: string[] = [];
        p.on("request", (r) => {
          const m = /\/(pwapreview|pwadocumentcontent)\?/.exec(r.url());
          if (m) fetched.push(m[1]);
        });
        const count = (kind: string) => fetched.filter((k) => k === kind).length;
        await dumpOnFailure(p, async () => {
          await waitText(p, "No requests here");
          const h = await bearerOf(p, () => click(p, "Refresh"));
          const card = await cardFor(env, h);
          const b = await purchase(env, {
            card: card.oid,
            amount: "80",
            merchantName: "Hotel Nice",
          });
          // A 1600 px photo of 2 MB with its 1024 px preview, and a PDF with its preview.
          const photo = new Uint8Array([...makePng(1600, 1200), ...new Uint8Array(2_000_000)]);
          await attach(env, h, b.transactionOid, photo, "photo.png", makePng(1024, 768));
          const pdf = makePdf();
          await attach(env, h, b.transactionOid, pdf, "bill.pdf", makePng(724, 1024));

          await click(p, "Refresh");
          await mainTab(p, "Transactions");
          await p.waitForFunction(() =>
            [...document.querySelectorAll(".transactions-tab .tx-row")].some((e) =>
              (e as HTMLElement).innerText.includes("Hotel Nice")
            )
          );
          await p.locator(".transactions-tab .tx-row").click();
          await settled(p);
          await waitInTopPanel(p, "Receipts (2)");
          // The first receipt: its preview, not the 2 MB original.
          await p.waitForFunction(() => {
            const img = document.querySelector(".side-panel.open .receipt-view img") as
              | HTMLImageElement
              | null;
            return !!img && img.complete && img.naturalWidth > 0;
          });
          assert.equal(await imageWidth(p), 1024);
          assert.ok(count("pwapreview") >= 1, `requests: ${fetched}`);
          assert.equal(count("pwadocumentcontent"), 0, "the original fetched without asking");
          await expectAccessible(p, "receipt preview");
          await expectNoSideScroll(p, "receipt preview");

          // Asked for: the original, once.
          await inTopPanel(p, `Open original (${sizeText(photo.length)})`);
          await p.waitForFunction(() =>
            (document.querySelector(".side-panel.open .receipt-view img") as HTMLImageElement)
              ?.naturalWidth === 1600
          );
          assert.equal(count("pwadocumentcontent"), 1);

          // The PDF: its preview first; the original drawn framed on a dark ground, zoomable.
          await inTopPanel(p, "Show receipt bill.pdf");
          await p.waitForFunction(() =>
            (document.querySelector(".side-panel.open .receipt-view img") as HTMLImageElement)
              ?.naturalWidth === 724
          );
          assert.equal(count("pwadocumentcontent"), 1);
          await inTopPanel(p, `Open original (${sizeText(pdf.length)})`);
          const page1 = await p.locator("::-p-aria(Page 1 of 1)").waitHandle();
          await p.waitForFunction(() => {
            const c = document.querySelector(".side-panel.open .pdf-viewer canvas") as
              | HTMLCanvasElement
              | null;
            return !!c && c.width > 0 && c.getBoundingClientRect().width > 0;
          });
          assert.equal(count("pwadocumentcontent"), 2);
          const look = await p.$eval(".side-panel.open .pdf-frame", (e) => {
            const s = getComputedStyle(e);
            const viewer = getComputedStyle(e.querySelector(".pdf-viewer")!);
            return { bg: s.backgroundColor, border: s.borderTopWidth, pad: viewer.paddingTop };
          });
          assert.notEqual(look.bg, "rgb(255, 255, 255)", "the page's ground is not white");
          assert.notEqual(look.bg, "rgba(0, 0, 0, 0)", "the page has a ground");
          assert.notEqual(look.border, "0px", "the page has a frame");
          assert.notEqual(look.pad, "0px", "the ground shows around the page");
          await expectAccessible(p, "PDF receipt");
          await expectNoSideScroll(p, "PDF receipt");
          const cssWidth = () => page1.evaluate((c) => c.getBoundingClientRect().width);
          const before = await cssWidth();
          const zoomOut = await named(p, "Zoom out");
          assert.equal(await zoomOut.evaluate((e) => (e as HTMLButtonElement).disabled), true);
          await inTopPanel(p, "Zoom in");
          await waitInTopPanel(p, "150 %");
          await p.waitForFunction(
            (w) =>
              document.querySelector(".side-panel.open .pdf-viewer canvas")!
                .getBoundingClientRect().width > w * 1.4,
            {},
            before,
          );
          await inTopPanel(p, "Zoom out");
          await waitInTopPanel(p, "100 %");

          // The document panel: a named button opens the hidden input; the name is shown.
          await inTopPanel(p, "Documents (2)");
          await waitInTopPanel(p, "photo.png");
          const raw = await p.evaluate(() => {
            const panels = document.querySelectorAll(".side-panel.open");
            const top = panels[panels.length - 1];
            return [...top.querySelectorAll("input[type=file]")].filter((e) =>
              e.getBoundingClientRect().width > 1
            ).length;
          });
          assert.equal(raw, 0, "a raw file picker is visible");
          const doc = `${dir}/contract.pdf`;
          await Deno.writeFile(doc, makePdf({ text: "Contract" }));
          const [chooser] = await Promise.all([
            p.waitForFileChooser({ timeout: 15_000 }),
            inTopPanel(p, "Choose files"),
          ]);
          await chooser.accept([doc]);
          await p.waitForFunction(() =>
            (document.querySelector(".side-panel.open .chosen") as HTMLElement | null)?.innerText
              .includes("contract.pdf")
          );
          assert.ok(!(await p.evaluate(() => document.body.innerText)).includes("No file chosen"));
          await expectAccessible(p, "document panel with a chosen file");
          await expectNoSideScroll(p, "document panel with a chosen file");
          // An opened document: its preview in a tab; the close button outside the tablist.
          await inTopPanel(p, "Open photo.png");
          await waitInTopPanel(p, `Open original (${sizeText(photo.length)})`);
          await p.waitForSelector(".side-panel.open .file-view img");
          assert.equal(
            await p.$$eval(".side-panel.open [role=tablist] :not([role=tab])", (l) => l.length),
            0,
            "only tabs in the tablist",
          );
          await named(p, "Close photo.png");
          await expectAccessible(p, "document panel with an opened tab");
          await expectNoSideScroll(p, "document panel with an opened tab");
          assert.equal(count("pwadocumentcontent"), 2, "the tab fetched the original");
        });
      } finally {
        await env.close();
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    },
  });
}
