/**
 * Screenshot of the VAT panel's suggestion at 360×640 for docs/screens.md (not a test):
 *
 *   ./node_modules/deno/deno task build
 *   CHROME_PATH=/usr/bin/chromium ./node_modules/deno/deno run -A tests/e2e/screens_vat.ts
 *
 * Writes docs/screenshots/vat-prefill.png from a fresh demo server (the preact build in dist/):
 * a purchase in France with its receipt attached, the VAT panel opened from its header, the
 * country's standard rate filled in and marked as a suggestion.
 */
import { activate, click, start, waitText } from "./harness.ts";
import { fileInput, inTopPanel, mainTab, waitInTopPanel } from "./panels.ts";
import { makePng } from "../fixtures/files.ts";
import { bearerOf, cardFor, purchase } from "./transactions_setup.ts";
import { shot } from "./shots.ts";

const env = await start("preact");
const dir = await Deno.makeTempDir({ prefix: "qcard-vat-shot-" });
try {
  const png = `${dir}/receipt.png`;
  await Deno.writeFile(png, makePng(800, 600));
  const p = await activate(env, "employee@demo.example");
  await waitText(p, "No requests here");
  const h = await bearerOf(p, () => click(p, "Refresh"));
  const card = await cardFor(env, h);
  await purchase(env, { card: card.oid, amount: "54.90", merchantName: "Bistro Lyon" });
  await click(p, "Refresh");
  await mainTab(p, "Transactions");
  await p.locator(".transactions-tab .tx-row").click();
  await p.waitForSelector(".side-panel.open");
  await (await fileInput(p, "Add receipt")).uploadFile(png);
  await waitInTopPanel(p, "Receipts (1)");
  await inTopPanel(p, "VAT lines: 0");
  await waitInTopPanel(p, "Standard rate of France filled in");
  await shot(p, "vat-prefill");
} finally {
  await env.close();
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}
