/**
 * Screenshots of the approver's view at 360×640 for docs/screens.md (not a test):
 *
 *   ./node_modules/deno/deno task build
 *   CHROME_PATH=/usr/bin/chromium ./node_modules/deno/deno run -A tests/e2e/screens_approver.ts
 *
 * Writes docs/screenshots/approver-*.png from a fresh demo server (the preact build in dist/):
 * the list with titles first, an approval with budget lines, the same after approving it (Next
 * offered), a dollar request with its euros, none left after the last one, a read-only approval.
 */
import type { Page } from "puppeteer-core";
import { activate, click, start, waitText } from "./harness.ts";
import { closeAll, inTopPanel, waitInTopPanel } from "./panels.ts";
import { openApprovalRow, submitThree } from "./approver_view_test.ts";
import { shot } from "./shots.ts";

async function approve(p: Page, what: string): Promise<void> {
  await inTopPanel(p, "Approve");
  await waitText(p, `Approve ${what}?`);
  await p.locator(".confirm ::-p-aria(Approve)").click();
  await waitText(p, `Approved: ${what}`);
  await p.waitForSelector(".side-panel.open .next-bar");
}

const env = await start("preact");
try {
  await submitThree(env);
  const fin = await activate(env, "approver@demo.example");
  await fin.waitForFunction(() => document.documentElement.dataset.mode === "approval");
  await waitText(fin, "Taxi to the station");
  // The app-mode hint is another screen's: hidden for a clear list.
  await click(fin, "Hide this hint");
  await shot(fin, "approver-list");

  await openApprovalRow(fin, "Trade show stand");
  await waitInTopPanel(fin, "6 × €250.00 monthly, until April 2027");
  await shot(fin, "approver-budget");

  await approve(fin, "Trade show stand (€1,500.00)");
  await shot(fin, "approver-next");

  await inTopPanel(fin, "Next");
  await waitInTopPanel(fin, "in the account’s currency");
  await shot(fin, "approver-currency");

  await approve(fin, "Design tool seats ($600.00)");
  await inTopPanel(fin, "Next");
  await waitInTopPanel(fin, "Approval AP000001.1");
  await approve(fin, "Taxi to the station (€40.00)");
  await waitInTopPanel(fin, "No other approval waits for your decision.");
  await shot(fin, "approver-none-left");
  await closeAll(fin);

  await click(fin, "Approved");
  await openApprovalRow(fin, "Trade show stand");
  await waitInTopPanel(fin, "Read only: You approved level 1 on");
  await fin.waitForFunction(() => !document.querySelector(".notice.shown"), { timeout: 20_000 });
  await shot(fin, "approver-read-only");
} finally {
  await env.close();
}
