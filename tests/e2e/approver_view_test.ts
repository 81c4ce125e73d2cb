/**
 * The approver does not approve blind (spec §2 approval detail, §3 budget, §4 approval actions),
 * in both flavours: approver@ (Finance) opens an event budget and sees its lines in words and in
 * a table; approves it and is offered the next waiting approval ("Next", opened in the same
 * panel) instead of the list — a subscription in US dollars, also shown in the account's euros;
 * after the last one (rejected) the app says none is left; an approval they can no longer decide
 * says why.
 * Titles read as what the approval is (type, purpose, person), the AP/R ids beside them.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { activate, click, dumpOnFailure, type Env, FLAVOURS, start, waitText } from "./harness.ts";
import { inTopPanel, opts, panelsClosed, rowTexts, settled, waitInTopPanel } from "./panels.ts";
import { expectAccessible, expectNoSideScroll } from "./a11y.ts";
import { bearerOf, postAs } from "./transactions_setup.ts";

/** Six monthly lines of €250 from 15 November 2026: the budget ends in April 2027. */
const EVENT = {
  typeOid: "type-event",
  purpose: "Trade show stand",
  costCenterOid: "cc-marketing",
  budget: { period: "monthly", startDate: "2026-11-15", amount: 250, occurrences: 6 },
};
/** Six monthly lines of $100 on the euro account: €553.51 at the issuer's 1.0840. */
const SUBSCRIPTION = {
  typeOid: "type-subscription",
  purpose: "Design tool seats",
  pricingCurrency: "USD",
  costCenterOid: "cc-marketing",
  budget: { period: "monthly", startDate: "2026-12-01", amount: 100, occurrences: 6 },
};
const TAXI = {
  typeOid: "type-travel",
  amount: 40,
  purpose: "Taxi to the station",
  costCenterOid: "cc-sales",
};

/** The employee's three requests, submitted through the API: oldest first (listed last). */
export async function submitThree(env: Env): Promise<void> {
  const emp = await activate(env, "employee@demo.example");
  await waitText(emp, "No requests here");
  const h = await bearerOf(emp, () => click(emp, "Refresh"));
  for (const body of [TAXI, SUBSCRIPTION, EVENT]) {
    const { expenseRequest } = await postAs(env, h, "pwaexpenserequestcreate", {
      expenseRequest: body,
    });
    await postAs(env, h, "pwasubmit", { record: expenseRequest.oid });
  }
  await emp.close();
}

/** Opens the approval row whose text matches, in one step (a re-render may replace rows). */
export async function openApprovalRow(p: Page, text: string): Promise<void> {
  await p.waitForFunction(
    (t) => [...document.querySelectorAll(".request-row")].some((e) => e.textContent?.includes(t)),
    {},
    text,
  );
  await p.evaluate((t) => {
    const row = [...document.querySelectorAll(".request-row")].find((e) =>
      e.textContent?.includes(t)
    );
    (row as HTMLElement).click();
  }, text);
  await p.waitForFunction(() => document.querySelectorAll(".side-panel.open").length > 0);
  await settled(p);
}

const panelTitle = (p: Page) =>
  p.evaluate(() => {
    const l = document.querySelectorAll(".side-panel.open");
    return (l[l.length - 1] as HTMLElement | undefined)?.querySelector("h2")?.textContent ?? "";
  });

const budgetRows = (p: Page) =>
  p.$$eval(
    ".side-panel.open .approval-budget tbody tr",
    (l) => l.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent?.trim())),
  );

/** Approves from the action bar; the confirm names the request in words. */
async function approve(p: Page, what: string): Promise<void> {
  await inTopPanel(p, "Approve");
  await waitText(p, `Approve ${what}?`);
  await p.locator(".confirm ::-p-aria(Approve)").click();
  await waitText(p, `Approved: ${what}`);
  // The notice fades in (.2 s): axe reads a half-faded notice as too little contrast.
  await p.waitForFunction(() =>
    [...document.querySelectorAll(".notice")].every((e) =>
      ["0", "1"].includes(getComputedStyle(e).opacity)
    )
  );
}

/** The text of the bar offered after a decision. */
const nextBarText = (p: Page) =>
  p.$eval(".side-panel.open .next-bar", (e) => (e as HTMLElement).innerText.replace(/\s+/g, " "));

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] approver view: budget lines and the account's currency, Next after a decision, none left, a read-only approval says why`,
    ...opts,
    fn: async () => {
      const env: Env = await start(flavour);
      try {
        await submitThree(env);
        const fin = await activate(env, "approver@demo.example");
        await dumpOnFailure(fin, async () => {
          await fin.waitForFunction(() => document.documentElement.dataset.mode === "approval");
          await waitText(fin, "Taxi to the station");
          // Rows read as what they are first (type and purpose), then who asks and the id.
          const rows = await rowTexts(fin);
          assert.equal(rows.length, 3);
          assert.match(rows[0], /^Event budget: Trade show stand\s+€1,500\.00\s+Emma Laurent/);
          assert.match(rows[0], /AP000003\.1/);
          assert.match(rows[1], /^Monthly subscription: Design tool seats\s+\$600\.00/);
          assert.match(rows[2], /^Travel: Taxi to the station\s+€40\.00/);
          await expectAccessible(fin, "approvals list, titles first");
          await expectNoSideScroll(fin, "approvals list, titles first");

          // The event budget: what is paid when, in words and line by line.
          await openApprovalRow(fin, "Trade show stand");
          await waitInTopPanel(fin, "6 × €250.00 monthly, until April 2027");
          assert.equal(await panelTitle(fin), "Event budget: Trade show stand · Emma Laurent");
          await waitInTopPanel(fin, "Approval AP000003.1");
          await waitInTopPanel(fin, "R000003");
          assert.deepEqual(await budgetRows(fin), [
            ["11/15/2026", "€250.00"],
            ["12/15/2026", "€250.00"],
            ["01/15/2027", "€250.00"],
            ["02/15/2027", "€250.00"],
            ["03/15/2027", "€250.00"],
            ["04/15/2027", "€250.00"],
          ]);
          await waitInTopPanel(fin, "Total €1,500.00");
          // Same currency as its account: no conversion line; Finance decides: no reason shown.
          assert.equal(await fin.$$eval(".side-panel.open .account-amount", (l) => l.length), 0);
          assert.equal(await fin.$$eval(".side-panel.open .why-read-only", (l) => l.length), 0);
          await expectAccessible(fin, "approval with budget lines");
          await expectNoSideScroll(fin, "approval with budget lines");

          // Approved: the next waiting approval is offered, not the list.
          await approve(fin, "Trade show stand (€1,500.00)");
          await fin.waitForSelector(".side-panel.open .next-bar");
          assert.equal(
            await nextBarText(fin),
            "2 more approvals wait for you. Next: Monthly subscription: Design tool seats · Emma Laurent Next",
          );
          // The approval decided says where it stands now.
          await waitInTopPanel(
            fin,
            "level 2 (Management approval) decides now.",
          );
          assert.match(
            await fin.$eval(".side-panel.open .why-read-only", (e) => e.textContent ?? ""),
            /^Read only: You approved level 1 on /,
          );
          assert.equal(await fin.$$eval(".side-panel.open .action-bar", (l) => l.length), 0);
          await expectAccessible(fin, "after a decision, Next offered");
          await expectNoSideScroll(fin, "after a decision, Next offered");

          // Next opens it in the same panel: one panel, its title, its lines, its euros.
          await inTopPanel(fin, "Next");
          await waitInTopPanel(fin, "Approval AP000002.1");
          assert.equal(await fin.$$eval(".side-panel.open", (l) => l.length), 1);
          assert.equal(
            await panelTitle(fin),
            "Monthly subscription: Design tool seats · Emma Laurent",
          );
          await waitInTopPanel(fin, "6 × $100.00 monthly, until May 2027");
          await waitInTopPanel(fin, "≈ €553.51 in the account’s currency (rate of 01/02/2026)");
          assert.equal((await budgetRows(fin)).length, 6);
          assert.equal(await fin.$$eval(".side-panel.open .next-bar", (l) => l.length), 0);
          await expectAccessible(fin, "the next approval, in dollars");

          await approve(fin, "Design tool seats ($600.00)");
          await fin.waitForSelector(".side-panel.open .next-bar");
          assert.match(
            await nextBarText(fin),
            /^1 more approval waits for you\. Next: Travel: Taxi to the station · Emma Laurent/,
          );
          await inTopPanel(fin, "Next");
          await waitInTopPanel(fin, "Approval AP000001.1");
          // A one-off amount has no budget section.
          assert.equal(await fin.$$eval(".side-panel.open .approval-budget", (l) => l.length), 0);

          // The last one: the app says none is left, and leads back to the list.
          // The last one, rejected: a rejection offers what comes next too — nothing here.
          await inTopPanel(fin, "More actions");
          await inTopPanel(fin, "Reject");
          await waitInTopPanel(fin, "Reject Taxi to the station (€40.00)?");
          await inTopPanel(fin, "Reject");
          await waitText(fin, "Rejected: Taxi to the station (€40.00)");
          await panelsClosed(fin, 1);
          await fin.waitForSelector(".side-panel.open .next-bar");
          assert.equal(
            await nextBarText(fin),
            "No other approval waits for your decision. Back to the list",
          );
          // Travel up to €250 is Finance's alone: decided, by whom.
          await waitInTopPanel(fin, "Read only: Adam Fischer rejected it on");
          await fin.waitForFunction(() =>
            [...document.querySelectorAll(".notice")].every((e) =>
              ["0", "1"].includes(getComputedStyle(e).opacity)
            )
          );
          await expectAccessible(fin, "after the last decision, none left");
          await inTopPanel(fin, "Back to the list");
          await panelsClosed(fin);

          // A read-only approval says why: the event waits for Management now.
          await click(fin, "Approved");
          await openApprovalRow(fin, "Trade show stand");
          await waitInTopPanel(fin, "Read only: You approved level 1 on");
          const why = await fin.$eval(
            ".side-panel.open .why-read-only",
            (e) => e.textContent ?? "",
          );
          assert.match(why, /; level 2 \(Management approval\) decides now\.$/);
          assert.equal(await fin.$$eval(".side-panel.open .next-bar", (l) => l.length), 0);
          assert.equal(await fin.$$eval(".side-panel.open .action-bar", (l) => l.length), 0);
          await expectAccessible(fin, "read-only approval with its reason");
          await expectNoSideScroll(fin, "read-only approval with its reason");
        });

        // A Finance delegate sees the event's level decided for Finance by someone else.
        const del = await activate(env, "delegate@demo.example");
        await dumpOnFailure(del, async () => {
          await openApprovalRow(del, "Trade show stand");
          await waitInTopPanel(
            del,
            "Read only: Adam Fischer approved level 1 on",
          );
          await waitInTopPanel(del, "level 2 (Management approval) decides now.");
          await expectAccessible(del, "read-only approval, decided by another");
        });
      } finally {
        await env.close();
      }
    },
  });
}
