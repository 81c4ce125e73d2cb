/**
 * The accounting export's screen (docs/export.md), in both flavours (the react one through the
 * relay edge): a finance user opens Menu → Accounting export at 360×640, picks a period and
 * CSV, and the file downloads (checked on disk: the columns and the demo's purchases); the past
 * exports list it. On a desktop-sized window the same screen exports the DATEV file. The screen
 * is accessible and never scrolls sideways.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { activate, click, dumpOnFailure, FLAVOURS, start, waitText } from "./harness.ts";
import { opts, waitInTopPanel } from "./panels.ts";
import { expectAccessible, expectNoSideScroll } from "./a11y.ts";
import { seedDemoHistory } from "../../server/app/demo_history.ts";

const FINANCE = "approver@demo.example";
const DAY = 86_400_000;

/** Sets a date input as the picker would (the value, then input and change events). */
async function setDate(p: Page, label: string, iso: string): Promise<void> {
  const el = await p.waitForSelector(`.side-panel:last-of-type ::-p-aria(${label})`);
  await el!.evaluate((e, v) => {
    const input = e as HTMLInputElement;
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")!.set!.call(input, v);
    input.dispatchEvent(new Event("input", { bubbles: true }));
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }, iso);
}

/** Waits for one finished download in `dir` whose name matches; its bytes. */
async function downloaded(dir: string, name: RegExp): Promise<{ name: string; bytes: Uint8Array }> {
  for (let i = 0; i < 300; i++) {
    for await (const f of Deno.readDir(dir)) {
      if (name.test(f.name) && !f.name.endsWith(".crdownload")) {
        return { name: f.name, bytes: await Deno.readFile(`${dir}/${f.name}`) };
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no download matching ${name} in ${dir}`);
}

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] accounting export: Menu → Accounting export at 360 px downloads the month's CSV, listed in past exports; on a desktop window the DATEV file`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      await seedDemoHistory(env.deps);
      const dir = await Deno.makeTempDir({ prefix: "qcard-export-" });
      let page: Page | null = null;
      try {
        page = await activate(env, FINANCE);
        const p = page;
        // Downloads of the page's browser context go to `dir`.
        const cdp = await p.browser().target().createCDPSession();
        await cdp.send("Browser.setDownloadBehavior", {
          behavior: "allow",
          downloadPath: dir,
          browserContextId: p.browserContext().id,
        });
        await dumpOnFailure(p, async () => {
          await click(p, "Open menu");
          await click(p, "Accounting export");
          await waitInTopPanel(p, "Past exports");
          await waitInTopPanel(p, "No export yet.");
          await expectAccessible(p, "export panel");
          await expectNoSideScroll(p, "export panel at 360 px");

          const to = new Date().toISOString().slice(0, 10);
          const from = new Date(Date.now() - 60 * DAY).toISOString().slice(0, 10);
          await setDate(p, "From (capture date)", from);
          await setDate(p, "To (capture date)", to);
          await click(p, "Export");
          const csv = await downloaded(dir, /^qcard-.*\.csv$/);
          const text = new TextDecoder().decode(csv.bytes);
          assert.match(text, /^Booking date,Purchase date,/);
          assert.match(text, /Hôtel Bellecour/);
          assert.ok(text.trim().split("\r\n").length >= 5, "the demo's captured purchases");
          await waitText(p, `Export downloaded: ${csv.name}`);
          await waitInTopPanel(p, "transactions, by Adam Fischer");

          // A desktop window: the same screen, the DATEV file this time.
          // (The same touch and mobile flags: changing them reloads the page, which locks the app.)
          await p.setViewport({ ...p.viewport()!, width: 1280, height: 800 });
          await expectNoSideScroll(p, "export panel on a desktop window");
          await click(p, "CSV (spreadsheet)");
          await click(p, "DATEV Buchungsstapel");
          await setDate(p, "From (capture date)", `${to.slice(0, 4)}-01-01`);
          await click(p, "Export");
          const datev = await downloaded(dir, /^EXTF_Buchungsstapel_.*\.csv$/);
          assert.match(new TextDecoder("windows-1252").decode(datev.bytes), /^"EXTF";700;21;/);

          // Nothing chosen: the screen says so, nothing is asked of the server.
          await click(p, "DATEV Buchungsstapel");
          await click(p, "Export");
          await waitInTopPanel(p, "Choose at least one format.");
          assert.equal((await env.deps.store.exports.recent()).length, 2);
        });
      } finally {
        await page?.close().catch(() => {});
        await env.close();
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    },
  });
}
