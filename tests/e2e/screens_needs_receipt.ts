/**
 * Screenshots of "Needs a receipt" at 360×640 for docs/screens.md (not a test):
 *
 *   ./node_modules/deno/deno task build
 *   CHROME_PATH=/usr/bin/chromium ./node_modules/deno/deno run -A tests/e2e/screens_needs_receipt.ts
 *
 * Writes docs/screenshots/needs-receipt-*.png from a fresh demo server (the preact build in
 * dist/): the Transactions tab with the pinned group (one purchase overdue, two not yet due,
 * the rest in their day groups), and the main screen's badge counting them.
 */
import { activate, click, start, waitText } from "./harness.ts";
import { mainTab } from "./panels.ts";
import { bearerOf, cardFor, purchase } from "./transactions_setup.ts";
import { backdate } from "./needs_receipt_test.ts";
import { shot } from "./shots.ts";

const env = await start("preact");
try {
  const p = await activate(env, "employee@demo.example");
  await waitText(p, "No requests here");
  const h = await bearerOf(p, () => click(p, "Refresh"));
  const card = await cardFor(env, h);
  const buy = async (merchantName: string, amount: string, daysAgo: number, mcc?: string) => {
    const r = await purchase(env, { card: card.oid, amount, merchantName, mcc });
    if (daysAgo && r.approved) await backdate(env, r.transactionOid, daysAgo);
  };
  await buy("Hôtel Bellecour", "180", 10);
  await buy("Heathrow Express", "25", 5);
  await buy("Brasserie Georges", "64.50", 0);
  await buy("Casino Le Lyon Vert", "50", 0, "7995");
  await click(p, "Refresh");
  await p.waitForFunction(() =>
    document.querySelector("#nav-tab-transactions .badge")?.textContent === "3"
  );
  await mainTab(p, "Transactions");
  await p.waitForSelector(".tx-needs-receipt .tx-row");
  await shot(p, "needs-receipt-transactions");
} finally {
  await env.close();
}
