/**
 * Screenshots at 360×640 of the push actions and of the organisation's words in the reader's
 * language, for docs/screens.md (not a test):
 *
 *   ./node_modules/deno/deno task build
 *   ./node_modules/deno/deno run -A tests/e2e/screens_push_words.ts
 *
 * Writes docs/screenshots/push-words-*.png from a fresh demo server (the preact build in dist/),
 * with the server's own notices (server/push/notify.ts) delivered to the service worker.
 */
import type { Page } from "puppeteer-core";
import { createRequest } from "../../server/domain/request_create.ts";
import { submitRequest } from "../../server/domain/requests.ts";
import { noticesFor } from "../../server/push/notify.ts";
import { activate, click, start, tapDigits, waitText } from "./harness.ts";
import { closeAll, settled, waitInTopPanel } from "./panels.ts";
import { bearerOf, cardFor, postAs, purchase } from "./transactions_setup.ts";
import { serviceWorker, waitFor } from "./push_worker.ts";
import { shot as docShot } from "./shots.ts";

const shot = (p: Page, name: string) => docShot(p, `push-words-${name}`);

const env = await start("preact");
try {
  const { deps } = env;
  const emma = (await deps.store.users.byEmail("employee@demo.example"))!;
  const approverOid = (await deps.store.users.byEmail("approver@demo.example"))!.oid;

  // The employee: a purchase, then a refusal on the blocked card, both on screen.
  const p = await activate(env, "employee@demo.example");
  const ctx = p.browserContext();
  await ctx.overridePermissions(env.url, ["notifications"]);
  await waitText(p, "No requests here");
  const h = await bearerOf(p, () => click(p, "Refresh"));
  const card = await cardFor(env, h);
  const bought = await purchase(env, {
    card: card.oid,
    amount: "42.50",
    merchantName: "Boulangerie Paul",
  });
  const sw = await serviceWorker(env, ctx);
  await p.bringToFront();
  await click(p, "Refresh");
  const [paid] = await noticesFor(deps, {
    type: "card.purchase",
    userOid: emma.oid,
    transactionOid: bought.transactionOid,
    approved: true,
  });
  await sw.deliver(paid.payload);
  await p.waitForSelector(".push-banner .push-action-receipt");
  await shot(p, "receipt-banner");
  await p.locator(".push-action-receipt").click();
  await waitInTopPanel(p, "Boulangerie Paul");
  await shot(p, "receipt-camera");
  await closeAll(p);

  await postAs(env, h, "pwafreezecard", { oid: card.oid });
  const refused = await purchase(env, {
    card: card.oid,
    amount: "18.00",
    merchantName: "Kiosque Gare",
  });
  const [no] = await noticesFor(deps, {
    type: "card.purchase",
    userOid: emma.oid,
    transactionOid: refused.transactionOid,
    approved: false,
  });
  await sw.deliver(no.payload);
  await p.waitForFunction(() =>
    document.querySelector(".push-banner")?.textContent?.includes("Card blocked")
  );
  await shot(p, "decline-banner");

  // An English-created request read in German.
  await postAs(env, { ...h, "accept-language": "en" }, "pwaexpenserequestcreate", {
    expenseRequest: {
      typeOid: "type-travel",
      amount: 240,
      purpose: "Trade fair in Frankfurt",
      costCenterOid: "cc-sales",
      GLOid: "gl-travel",
      projectOid: "prj-crm",
    },
  });
  await p.evaluate(() =>
    (document.querySelector(".push-banner .icon-button") as HTMLElement | null)?.click()
  );
  await click(p, "Open menu");
  await click(p, "Options");
  await settled(p);
  await p.locator('::-p-aria([name="Deutsch"][role="radio"])').click();
  await p.waitForSelector('[role="radio"][aria-checked="true"][lang="de"]');
  while ((await p.$$(".side-panel.open")).length) {
    await p.locator(".side-panel.open ::-p-aria(Zurück)").click();
    await new Promise((r) => setTimeout(r, 350));
  }
  await click(p, "Aktualisieren");
  await p.waitForFunction(() =>
    [...document.querySelectorAll(".request-row .row-cc")].some((e) => e.textContent === "Vertrieb")
  );
  await p.evaluate(() =>
    ([...document.querySelectorAll(".request-row")].find((e) =>
      e.textContent?.includes("Trade fair in Frankfurt")
    ) as HTMLElement).click()
  );
  await waitInTopPanel(p, "Reisen und Unterkunft");
  await p.evaluate(() =>
    [...document.querySelectorAll(".side-panel.open dt")].find((e) =>
      e.textContent === "Kostenstelle"
    )?.scrollIntoView({ block: "center" })
  );
  await shot(p, "german-request");

  // The approver: Approve and Reject on the in-app banner; Approve from a notification.
  const r = await createRequest(deps, emma, {
    typeOid: "type-travel",
    amount: 120,
    purpose: "Client lunch in Lyon",
    costCenterOid: "cc-sales",
  });
  await submitRequest(deps, emma, r.oid);
  const [a] = await deps.store.approvals.byRequest(r.oid);
  const approvalPush = (await noticesFor(deps, {
    type: "approval.opened",
    approvalOid: a.oid,
    requestOid: a.requestOid,
    level: a.levels[0].level,
    teamOids: a.levels[0].teamOids,
  })).find((n) => n.userOid === approverOid)!.payload;
  const q = await activate(env, "approver@demo.example");
  const qctx = q.browserContext();
  await qctx.overridePermissions(env.url, ["notifications"]);
  const qsw = await serviceWorker(env, qctx);
  await q.bringToFront();
  await q.waitForFunction(() => document.visibilityState === "visible");
  await qsw.deliver(approvalPush);
  await q.waitForSelector(".push-banner .push-action-approve");
  await shot(q, "approval-banner");
  await q.evaluate(() =>
    (document.querySelector(".push-banner .icon-button") as HTMLElement).click()
  );
  await qsw.holder.bringToFront();
  await q.waitForFunction(() => document.visibilityState === "hidden");
  await qsw.deliver(approvalPush);
  await waitFor("the notification", async () => (await qsw.notifications()).length);
  await qsw.click(approvalPush.tag, "approve");
  await q.bringToFront();
  await waitText(q, "Enter your PIN");
  await shot(q, "approve-unlock");
  await tapDigits(q, "135790");
  await q.waitForSelector(".confirm");
  await shot(q, "approve-confirm");
} finally {
  await env.close();
}
