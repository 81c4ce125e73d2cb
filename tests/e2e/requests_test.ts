import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import {
  activate,
  bodyText,
  dumpOnFailure,
  FLAVOURS,
  start,
  tapDigits,
  waitText,
} from "./harness.ts";
import { confirmYes, fill, inTopPanel, opts, panelsClosed, pick, rowTexts, tap } from "./panels.ts";
import { expectAccessible, expectNoSideScroll } from "./a11y.ts";
import { seedRequests } from "../bench/seed.ts";

/** Waits until the Requests tab lists `n` rows (it is read again after each write). */
async function waitRows(p: Page, n: number): Promise<void> {
  await p.waitForFunction((n) => document.querySelectorAll(".request-row").length === n, {}, n);
}

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] employee creates one-off and monthly budget requests, validation, filter, edit, comments, cancel, offline list`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      let page: Page | null = null;
      try {
        page = await activate(env, "employee@demo.example");
        const p = page;
        await dumpOnFailure(p, async () => {
          await waitText(p, "No requests here");

          // One-off request: §5 messages first.
          await tap(p, "New request");
          await p.waitForFunction(() => document.querySelectorAll(".side-panel.open").length === 1);
          await pick(p, "Type", "Travel");
          await fill(p, "Amount", "10");
          await tap(p, "Submit");
          await waitText(p, "Amount must be between €20.00 and €5,000.00");
          await fill(p, "Amount", "320.5");
          await tap(p, "Submit");
          await waitText(p, "Please enter a purpose");
          await fill(p, "Purpose", "Client visit in Lyon");
          await pick(p, "Cost center (optional)", "Sales");
          await pick(p, "GL code (optional)", "Travel and accommodation");
          await fill(p, "Vendor (optional)", "Rail Co");
          await fill(p, "Vendor website (optional)", "rail.example.com");
          await tap(p, "Submit");
          // The confirm says its verb, not Yes: No and Submit.
          await waitText(p, "Submit this request for approval?");
          assert.deepEqual(
            await p.$$eval(".confirm button", (l) => l.map((b) => (b as HTMLElement).innerText)),
            ["No", "Submit"],
          );
          await expectAccessible(p, "submit confirm");
          await confirmYes(p, "Submit this request for approval?", "Submit");
          await waitText(p, "Request submitted: Client visit in Lyon (€320.50)");
          await panelsClosed(p);
          // The list is read again after the notice (a write, then a read): wait for the row.
          await waitRows(p, 1);
          assert.match((await rowTexts(p))[0], /Sales[\s\S]*Client visit in Lyon[\s\S]*€320\.50/);
          await expectAccessible(p, "requests");

          // Monthly budget request on a recurring type: the amount comes from the budget.
          await tap(p, "New request");
          await p.waitForFunction(() => document.querySelectorAll(".side-panel.open").length === 1);
          await pick(p, "Type", "Monthly subscription");
          assert.equal(
            await p.$eval("input[inputmode=decimal]", (e) => (e as HTMLInputElement).disabled),
            true,
          );
          await tap(p, "Create budget");
          await p.waitForFunction(() => document.querySelectorAll(".side-panel.open").length === 2);
          await tap(p, "Monthly");
          await tap(p, "Start date");
          await p.waitForSelector(".side-panel.open .date-grid");
          await expectAccessible(p, "date picker");
          // Go to the next January and pick the 31st: months end on the 28th, 31st, 30th.
          const month = new Date().getUTCMonth();
          for (let i = 0; i < (12 - month) % 12; i++) await tap(p, "Next month");
          const year = new Date().getUTCFullYear() + (month === 0 ? 0 : 1);
          await p.locator(`[data-date="${year}-01-31"]`).click();
          await panelsClosed(p, 2);
          await fill(p, "Occurrences", "3");
          const feb = new Date(Date.UTC(year, 2, 0)).getUTCDate();
          // The dates are previewed before any amount is typed (what "Add" will plan).
          await waitText(p, `3 dates, from 01/31/${year} to 03/31/${year}`);
          await waitText(p, `02/${feb}/${year}`);
          assert.doesNotMatch(await bodyText(p), /Total /);
          await expectAccessible(p, "budget preview");
          await expectNoSideScroll(p, "budget preview");
          await fill(p, "Amount per occurrence", "49.90");
          await waitText(p, `02/${feb}/${year}`);
          await waitText(p, `04/30/${year}`.replace("04/30", "03/31"));
          await waitText(p, "Total €149.70");
          await tap(p, "Add");
          await waitText(p, "3 occurrences, total €149.70");
          await fill(p, "Purpose", "Design tool licence");
          await tap(p, "Submit");
          await confirmYes(p, "Submit this request for approval?", "Submit");
          await waitText(p, "Request submitted: Design tool licence (€149.70)");
          await panelsClosed(p);
          await waitRows(p, 2);

          // Filter by type: only the travel request stays.
          await tap(p, "Filter");
          await p.waitForFunction(() => document.querySelectorAll(".side-panel.open").length === 1);
          await tap(p, "Type");
          await p.waitForFunction(() => document.querySelectorAll(".side-panel.open").length === 2);
          await inTopPanel(p, "Travel");
          await inTopPanel(p, "OK");
          // The row names what is chosen.
          await p.waitForFunction(() =>
            [...document.querySelectorAll(".side-panel.open .field-button")].some((b) =>
              b.querySelector(".field-label")?.textContent === "Type" &&
              b.querySelector(".field-value")?.textContent === "Travel"
            )
          );
          await panelsClosed(p, 1);
          await tap(p, "Apply");
          await panelsClosed(p);
          await waitText(p, "Filters on: 1 of 2 shown");
          let rows = await rowTexts(p);
          assert.equal(rows.length, 1);
          assert.match(rows[0], /Client visit in Lyon/);

          // Detail: vendor link with http://, approvers of both levels (320.50 > 250).
          await p.locator(".request-row").click();
          await waitText(p, "Request R000001");
          await waitText(p, "Level 2: Management");
          await expectAccessible(p, "request detail");
          assert.equal(
            await p.$eval(
              ".request-detail a",
              (a) => (a as HTMLAnchorElement).getAttribute("href"),
            ),
            "http://rail.example.com",
          );
          // Comments: add two, delete one.
          await fill(p, "Add a comment", "Hotel booked");
          await tap(p, "Send");
          await waitText(p, "Hotel booked");
          await fill(p, "Add a comment", "Train too");
          await tap(p, "Send");
          await waitText(p, "Train too");
          await tap(p, "Delete comment: Train too");
          await p.waitForFunction(() => !document.body.innerText.includes("Train too"));
          assert.match(await bodyText(p), /Hotel booked/);

          // Edit: project required, then a purpose change saves directly.
          await tap(p, "More actions");
          await tap(p, "Edit");
          await p.waitForFunction(() => document.querySelectorAll(".side-panel.open").length === 2);
          await fill(p, "Purpose", "Client visit in Lyon and Grenoble");
          await tap(p, "Save");
          await waitText(p, "Project, GL code and cost center must be set");
          await pick(p, "Project code", "CRM rollout");
          await tap(p, "Save");
          await waitText(p, "Request saved");
          await panelsClosed(p, 1);
          await waitText(p, "Client visit in Lyon and Grenoble");
          // A new cost center needs a new approval: asked, then reissued.
          await tap(p, "More actions");
          await tap(p, "Edit");
          await p.waitForFunction(() => document.querySelectorAll(".side-panel.open").length === 2);
          await pick(p, "Cost center", "IT");
          await tap(p, "Save");
          await confirmYes(p, "This change needs a new approval", "Recreate approval");
          await waitText(p, "Request saved");
          await panelsClosed(p, 1);
          await p.waitForFunction(() =>
            document.querySelector(".request-detail")?.textContent?.includes("IT")
          );

          // Cancel, with confirmation.
          await tap(p, "More actions");
          await tap(p, "Cancel request");
          // The confirm's button says the verb.
          await waitText(p, "Cancel this request?");
          await p.locator(".confirm ::-p-aria(Cancel request)").click();
          await p.waitForFunction(() =>
            document.querySelector(".detail-head .status")?.textContent === "Cancelled"
          );
          await tap(p, "Back");
          await panelsClosed(p);
          await tap(p, "Filter");
          await tap(p, "Clear filters");
          await panelsClosed(p);
          await waitText(p, "Design tool licence");
          await tap(p, "Cancelled");
          await waitText(p, "Client visit in Lyon and Grenoble");
          await tap(p, "New");

          // Offline: reload and unlock; the list comes from the encrypted cache.
          await p.setOfflineMode(true);
          await p.reload();
          await waitText(p, "Enter your PIN");
          await tapDigits(p, "135790");
          await waitText(p, "You are offline: showing saved data");
          await waitText(p, "Design tool licence");
          rows = await rowTexts(p);
          assert.equal(rows.length, 1);
          // The cache is encrypted: no purpose in clear in IndexedDB.
          const clear = await p.evaluate(async () => {
            const db = await new Promise<IDBDatabase>((res, rej) => {
              const r = indexedDB.open("QCDB");
              r.onsuccess = () => res(r.result);
              r.onerror = () => rej(r.error);
            });
            const all = await new Promise<unknown[]>((res) => {
              const r = db.transaction("lists").objectStore("lists").getAll();
              r.onsuccess = () => res(r.result);
            });
            db.close();
            return JSON.stringify(all);
          });
          assert.doesNotMatch(clear, /Design tool licence/);
          assert.match(clear, /pwalists/);
          await p.setOfflineMode(false);
        });
      } finally {
        await env.close();
      }
    },
  });
}

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] a long Requests list paints a screenful, then its first 60 rows, then more on scroll`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      try {
        const seeded = await seedRequests(env.deps, "employee@demo.example", 150);
        const pending = seeded.filter((r) => r.status === "new" || r.status === "requested").length;
        assert.ok(pending > 60, `${pending} pending requests`);
        const p = await activate(env, "employee@demo.example");
        await dumpOnFailure(p, async () => {
          // A screenful first (not asserted: a frame is too short to catch), then the first
          // 60 rows in the document (find-in-page, screen readers), the rest after a scroll.
          await waitRows(p, 60);
          await p.$eval("li.more", (e) => e.scrollIntoView());
          await waitRows(p, pending);
          assert.equal(await p.$("li.more"), null);
        });
      } finally {
        await env.close();
      }
    },
  });
}
