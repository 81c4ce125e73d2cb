/**
 * Screenshots of the main screens at 360×640 for docs/screens.md (not a test):
 *
 *   ./node_modules/deno/deno run -A build.ts
 *   CHROME_PATH=/usr/bin/chromium ./node_modules/deno/deno run -A tests/e2e/screens.ts
 *
 * Writes docs/screenshots/*.png from a fresh demo server (the preact build in dist/).
 */
import { decide } from "../../server/domain/approvals.ts";
import { activate, click, start, tapDigits, waitText } from "./harness.ts";
import { closeAll, fill, mainTab, openRow, pick, tap, waitInTopPanel } from "./panels.ts";
import { bearerOf, cardFor, DAY, postAs, purchase } from "./transactions_setup.ts";
import { shot } from "./shots.ts";

const env = await start("preact");
try {
  const p = await activate(env, "employee@demo.example");
  await waitText(p, "No requests here");
  const h = await bearerOf(p, () => click(p, "Refresh"));
  const card = await cardFor(env, h);
  for (const [merchantName, amount] of [["Hotel Lyon", "120"], ["Cafe Simple", "12"]]) {
    await purchase(env, { card: card.oid, amount, merchantName });
  }
  const { expenseRequest } = await postAs(env, h, "pwaexpenserequestcreate", {
    expenseRequest: {
      typeOid: "type-travel",
      amount: 320,
      purpose: "Trade fair in Frankfurt",
      costCenterOid: "cc-sales",
    },
  });
  await postAs(env, h, "pwasubmit", { record: expenseRequest.oid });
  const [a] = await env.deps.store.approvals.byRequest(expenseRequest.oid);
  await decide(
    env.deps,
    (await env.deps.store.users.byEmail("approver@demo.example"))!,
    a.oid,
    "approved",
  );
  const now = env.deps.now;
  env.deps.now = () => now() + 8 * DAY;
  await click(p, "Refresh");
  await p.waitForFunction(() => !!document.querySelector(".bottom-nav .badge"));
  await shot(p, "requests");

  await mainTab(p, "Transactions");
  await p.waitForSelector(".tx-row .attention-marker");
  await shot(p, "transactions-attention");

  await mainTab(p, "Requests");
  await click(p, "New request");
  await waitText(p, "please provide those first");
  await shot(p, "block-banner");
  await p.locator(".banners ::-p-aria(Add receipt)").click();
  await p.waitForFunction(() => document.querySelectorAll(".side-panel.open").length > 0);
  await waitInTopPanel(p, "Receipt overdue");
  await shot(p, "transaction-detail");
  await tap(p, "More actions");
  await shot(p, "transaction-more");
  await closeAll(p);
  // The banner's own remove button (its last one), for clear screens after it.
  await p.evaluate(() =>
    (document.querySelector(".banners .banner button:last-of-type") as HTMLElement | null)
      ?.click()
  );

  await mainTab(p, "Requests");
  await openRow(p, ".request-row", "Trade fair");
  await waitInTopPanel(p, "Approved by");
  await p.evaluate(() =>
    document.querySelector(".side-panel.open .timeline")?.scrollIntoView({ block: "center" })
  );
  await shot(p, "request-timeline");
  await closeAll(p);

  await mainTab(p, "Wallet");
  await waitText(p, "Client visit in Lyon");
  await shot(p, "wallet");

  // The create form's inline errors (no overdue block once the clock is back).
  env.deps.now = now;
  await click(p, "Refresh");
  await mainTab(p, "Requests");
  await click(p, "New request");
  await p.waitForFunction(() => document.querySelectorAll(".side-panel.open").length === 1);
  await pick(p, "Type", "Travel");
  await fill(p, "Amount", "10");
  await tap(p, "Submit");
  await p.waitForSelector(".side-panel.open .field-error");
  await shot(p, "create-errors");
  // The confirm names its verb.
  await fill(p, "Amount", "320.5");
  await fill(p, "Purpose", "Client visit in Lyon");
  await tap(p, "Submit");
  await p.waitForSelector(".confirm");
  await shot(p, "create-confirm");
  await p.locator(".confirm ::-p-aria(No)").click();
  await closeAll(p);

  // The approver: approval mode.
  const mgr = await activate(env, "manager@demo.example");
  await mgr.waitForFunction(() => document.documentElement.dataset.mode === "approval");
  await waitText(mgr, "Trade fair");
  await shot(mgr, "approvals");
  await mgr.reload();
  await waitText(mgr, "Enter your PIN");
  await shot(mgr, "pin-pad");
  await tapDigits(mgr, "135790");
  // A first visit: the activation screen, its email link in words (no "Forgot PIN?").
  const fresh = await env.newPage();
  await fresh.goto(env.url);
  await fresh.locator("::-p-aria(No code, or it expired? Send activation email)").wait();
  await shot(fresh, "activation");
} finally {
  await env.close();
}
