/**
 * Approval mode end to end (spec §1, §4 approval actions, §6), in both flavours, each person on
 * their own activated browser profile: employee@ submits two requests; approver@ (Finance) lands in
 * approval mode, approves level 1 of the travel request; manager@ (Management) approves level 2 and
 * the employee sees it accepted. The equipment request is edited by approver@ (cancel and recreate
 * the approval), then rejected through the reject-note flow; the employee sees the note. A decision
 * made offline fails and leaves the approval as it was.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import {
  activate,
  bodyText,
  click,
  dumpOnFailure,
  type Env,
  FLAVOURS,
  start,
  waitText,
} from "./harness.ts";
import {
  confirmYes,
  fill,
  inTopPanel,
  opts,
  panelsClosed,
  pick,
  rowTexts,
  settled,
  tap,
  topPanelText,
  waitInTopPanel,
} from "./panels.ts";
import { expectAccessible, expectNoSideScroll } from "./a11y.ts";
import { bearerOf, postAs } from "./transactions_setup.ts";

const GREEN = "#1f7a4d";
const SLATE = "#2f3e4e";

const themeOf = (p: Page) =>
  p.evaluate(() => ({
    meta: document.querySelector('meta[name="theme-color"]')?.getAttribute("content"),
    mode: document.documentElement.dataset.mode,
  }));

/** Opens the list row whose text matches. */
async function openRow(p: Page, text: string): Promise<void> {
  await p.waitForFunction(
    (t) => [...document.querySelectorAll(".request-row")].some((e) => e.textContent?.includes(t)),
    {},
    text,
  );
  // Found and tapped in one step: a handle taken before a refresh re-renders the list could
  // be detached, or now stand for another row.
  const found = await p.evaluate((t) => {
    const row = [...document.querySelectorAll(".request-row")].find((e) =>
      e.textContent?.includes(t)
    );
    (row as HTMLElement | undefined)?.click();
    return !!row;
  }, text);
  if (!found) throw new Error(`no row with ${text}`);
  await p.waitForFunction(() => document.querySelectorAll(".side-panel.open").length > 0);
  await settled(p);
}

/** The employee's two requests, through the create form. */
async function submitRequests(p: Page): Promise<void> {
  await waitText(p, "No requests here");
  await tap(p, "New request");
  await p.waitForFunction(() => document.querySelectorAll(".side-panel.open").length === 1);
  await pick(p, "Type", "Travel");
  await fill(p, "Amount", "320.5");
  await fill(p, "Purpose", "Client visit in Lyon");
  await pick(p, "Cost center (optional)", "Sales");
  await tap(p, "Submit");
  await confirmYes(p, "Submit this request for approval?", "Submit");
  await waitText(p, "Request submitted: Client visit in Lyon (€320.50)");
  await panelsClosed(p);

  await tap(p, "New request");
  await p.waitForFunction(() => document.querySelectorAll(".side-panel.open").length === 1);
  await pick(p, "Type", "IT equipment");
  await fill(p, "Amount", "900");
  await fill(p, "Purpose", "Laptop for new hire");
  await pick(p, "Cost center (optional)", "IT");
  await pick(p, "GL code (optional)", "IT hardware");
  await pick(p, "Project code (optional)", "Cloud migration");
  await tap(p, "Submit");
  await confirmYes(p, "Submit this request for approval?", "Submit");
  await waitText(p, "Request submitted: Laptop for new hire (€900.00)");
  await panelsClosed(p);
}

/** A person who has approvals to decide lands in approval mode, green (spec §2, §4, §9). */
async function inApprovalMode(p: Page): Promise<void> {
  await p.locator("::-p-aria(Approvals)").wait();
  await p.waitForFunction(() => document.documentElement.dataset.mode === "approval");
  assert.deepEqual(await themeOf(p), { meta: GREEN, mode: "approval" });
}

/** Approves from the action bar: the confirm and the notice name the request in words. */
async function approveIt(p: Page, what: string): Promise<void> {
  await inTopPanel(p, "Approve");
  await p.waitForFunction(
    (t) => document.body.innerText.includes(t),
    {},
    `Approve ${what}?`,
  );
  await expectAccessible(p, "approve confirm");
  // The confirm says the verb (spec §2 confirm panel, labelled with the action).
  await p.locator(".confirm ::-p-aria(Approve)").click();
  await waitText(p, `Approved: ${what}`);
}

const LYON = "Client visit in Lyon (€320.50)";

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] approvals: two levels by approver@ and manager@, employee sees accepted; approver edit recreates; reject-note flow; offline decision fails cleanly`,
    ...opts,
    fn: async () => {
      const env: Env = await start(flavour);
      try {
        // employee@ submits (own profile). No approvals: request mode, slate, no mode switch.
        const emp = await activate(env, "employee@demo.example");
        await dumpOnFailure(emp, async () => {
          await submitRequests(emp);
          const h = await bearerOf(emp, () => click(emp, "Refresh"));
          const { expenseRequest } = await postAs(env, h, "pwaexpenserequestcreate", {
            expenseRequest: {
              typeOid: "type-travel",
              amount: 40,
              purpose: "Taxi to the station",
              costCenterOid: "cc-sales",
            },
          });
          await postAs(env, h, "pwasubmit", { record: expenseRequest.oid });
          assert.deepEqual(await themeOf(emp), { meta: SLATE, mode: "request" });
          await click(emp, "Open menu");
          await waitText(emp, "Lock");
          assert.doesNotMatch(await bodyText(emp), /Switch to approval mode/);
          await click(emp, "Back");
        });

        // approver@ (Finance) on its own profile: approval mode, both rows to decide.
        const fin = await activate(env, "approver@demo.example");
        await dumpOnFailure(fin, async () => {
          await inApprovalMode(fin);
          await waitText(fin, "Client visit in Lyon");
          await waitText(fin, "Laptop for new hire");
          await waitText(fin, "Taxi to the station");
          assert.equal((await rowTexts(fin)).length, 3);
          await expectAccessible(fin, "approvals (approval mode)");
          // In a browser tab, the app-mode hint with iOS instructions (spec §2).
          await waitText(fin, "Approve faster: add QCard to your home screen");
          await click(fin, "How?");
          await waitInTopPanel(fin, "Add to Home Screen");
          await waitInTopPanel(fin, "iPhone and iPad (Safari)");
          await inTopPanel(fin, "Back");
          await panelsClosed(fin);
          // The filter panel has the author filter in approval mode.
          await tap(fin, "Filter");
          await settled(fin);
          await waitInTopPanel(fin, "Author");
          await inTopPanel(fin, "Back");
          await panelsClosed(fin);

          // Every §2 field of the approval detail.
          await openRow(fin, "Client visit in Lyon");
          await waitInTopPanel(fin, "Approval AP000001.1");
          await waitInTopPanel(fin, "Level 2: Management approval");
          await expectAccessible(fin, "approval detail");
          const d = await topPanelText(fin);
          for (
            const s of [
              "New",
              "€320.50",
              "Travel: Client visit in Lyon [320.50 EUR]",
              "R000001",
              "Emma Laurent",
              "Operating account (EUR)",
              "Sales",
              "Level 1: Finance approval",
              "Delegation team: Finance Delegates",
              "Adam Fischer",
              "Maria Jansen",
              "No votes yet",
              "Approvals needed: 1",
              "Not opened yet",
            ]
          ) assert.ok(d.includes(s), `approval detail lacks '${s}':\n${d}`);

          // The visible teams (pwaoverviewteams), read when opened.
          await fin.$eval(".side-panel.open .teams summary", (e) => (e as HTMLElement).click());
          await waitInTopPanel(fin, "Daniel Peeters");
          assert.match(await topPanelText(fin), /Finance Delegates\s*Daniel Peeters/);

          // A decision made offline fails: error banner, the approval stays as it was.
          await fin.setOfflineMode(true);
          await inTopPanel(fin, "Approve");
          await waitText(fin, `Approve ${LYON}?`);
          await fin.locator(".confirm ::-p-aria(Approve)").click();
          await waitText(fin, "The server could not be reached");
          await fin.setOfflineMode(false);
          await waitInTopPanel(fin, "No votes yet");
          const stored = (await env.deps.store.approvals.byTeams(["team-finance"]))
            .find((a) => a.id === "AP000001.1");
          assert.deepEqual(stored?.votes, []);
          assert.equal(stored?.statusCode, "new");

          // Level 1: approved, shown once the server answered.
          await approveIt(fin, LYON);
          // The server answers again: the stale 'could not be reached' banner is gone.
          await fin.waitForFunction(() =>
            !document.body.innerText.includes("could not be reached")
          );
          await waitInTopPanel(fin, "Adam Fischer");
          await fin.waitForFunction(() =>
            !![...document.querySelectorAll(".vote-approved")].length
          );
          const after = await topPanelText(fin);
          assert.match(after, /Level 1: Finance approval\s*Approved/);
          // Level 2 is not theirs: no Approve, Reject or Edit any more (spec §4/§6: only who
          // may decide the open level edits).
          assert.equal(await fin.$$eval(".side-panel.open .action-bar", (l) => l.length), 0);
          await inTopPanel(fin, "Back");
          await panelsClosed(fin);

          // Voted: no longer under New, but with the decided ones, as theirs.
          await fin.waitForFunction(() =>
            ![...document.querySelectorAll(".request-row")].some((e) =>
              e.textContent?.includes("Client visit in Lyon")
            )
          );
          assert.equal((await rowTexts(fin)).length, 2);
          await click(fin, "Approved");
          await waitText(fin, "Client visit in Lyon");
          const mine = await rowTexts(fin);
          assert.equal(mine.length, 1);
          assert.match(mine[0], /Approved by you/);
          await expectAccessible(fin, "approvals, approved by me");
          await expectNoSideScroll(fin, "approvals, approved by me");
          await click(fin, "New");
          await waitText(fin, "Laptop for new hire");

          // Any rejection offers a reason (optional here: travel needs no note); the
          // requester sees it. The action is in the menu, in red, saying what it does.
          await openRow(fin, "Taxi to the station");
          await waitInTopPanel(fin, "Approval AP000003.1");
          await expectAccessible(fin, "approval detail, action bar");
          await expectNoSideScroll(fin, "approval detail, action bar");
          await inTopPanel(fin, "More actions");
          assert.deepEqual(
            await fin.$$eval(".side-panel.open .more-item", (l) =>
              l.map((e) => ({
                label: e.textContent,
                danger: e.classList.contains("danger"),
                says: document.getElementById(e.getAttribute("aria-describedby") ?? "")
                  ?.textContent,
              }))),
            [
              {
                label: "Edit",
                danger: false,
                says: "The votes given so far are dropped and the approvers decide again.",
              },
              {
                label: "Reject",
                danger: true,
                says: "Ends the approval: the request is rejected and its requester is told.",
              },
            ],
          );
          await expectAccessible(fin, "approval actions menu");
          await inTopPanel(fin, "Reject");
          await waitInTopPanel(fin, "Reject Taxi to the station (€40.00)?");
          await waitInTopPanel(fin, "The requester sees this reason on the request.");
          await expectAccessible(fin, "reject with optional reason");
          await expectNoSideScroll(fin, "reject with optional reason");
          await fill(fin, "Reason for rejection (optional)", "Take the bus, it is 5 minutes");
          // The confirming button says the verb, in red.
          assert.deepEqual(
            await fin.$$eval(
              ".side-panel.open button[type=submit]",
              (l) =>
                l.filter((b) => b.textContent === "Reject").map((b) =>
                  b.classList.contains("danger-button")
                ),
            ),
            [true],
          );
          await inTopPanel(fin, "Reject");
          await waitText(fin, "Rejected: Taxi to the station (€40.00)");
          await waitInTopPanel(fin, "Take the bus, it is 5 minutes");
          await inTopPanel(fin, "Back");
          await panelsClosed(fin);
        });

        // manager@ (Management) approves level 2: the request is accepted.
        const mgr = await activate(env, "manager@demo.example");
        await dumpOnFailure(mgr, async () => {
          await inApprovalMode(mgr);
          await openRow(mgr, "Client visit in Lyon");
          await waitInTopPanel(mgr, "Level 2: Management approval");
          await approveIt(mgr, LYON);
          await waitInTopPanel(mgr, "Approved");
          await inTopPanel(mgr, "Back");
          await panelsClosed(mgr);
          // Decided: it moves to the Approved sub-filter.
          await click(mgr, "Approved");
          await waitText(mgr, "Client visit in Lyon");
          // The mode switch in the main menu: back to request mode, slate.
          await click(mgr, "Open menu");
          await click(mgr, "Switch to request mode");
          await mgr.locator("::-p-aria(Requests)").wait();
          await mgr.waitForFunction(() => document.documentElement.dataset.mode === "request");
          assert.deepEqual(await themeOf(mgr), { meta: SLATE, mode: "request" });
        });

        // The employee sees R000001 accepted.
        await dumpOnFailure(emp, async () => {
          await click(emp, "Refresh");
          await click(emp, "Accepted");
          await waitText(emp, "Client visit in Lyon");
        });

        // approver@ edits the equipment request: 'cancel and recreate the approval?'.
        await dumpOnFailure(fin, async () => {
          await openRow(fin, "Laptop for new hire");
          await waitInTopPanel(fin, "Approval AP000002.1");
          await inTopPanel(fin, "More actions");
          await inTopPanel(fin, "Edit");
          await confirmYes(fin, "Cancel and recreate the approval?", "Recreate approval");
          await fin.waitForFunction(() =>
            document.querySelectorAll(".side-panel.open").length === 2
          );
          await fill(fin, "Purpose", "Laptop for new hire, 14 inch");
          await inTopPanel(fin, "Save");
          // A purpose change needs no new approval (spec §4): the approval is kept.
          await waitInTopPanel(fin, "Approval AP000002.1");
          await waitInTopPanel(fin, "Laptop for new hire, 14 inch");

          // Reject on a reject-note type: the note is asked first, then the rejection proceeds.
          await inTopPanel(fin, "More actions");
          await inTopPanel(fin, "Reject");
          await waitInTopPanel(fin, "This type needs a comment before it can be rejected.");
          await fill(fin, "Reason for rejection", "Not in this year's budget");
          await inTopPanel(fin, "Add comment and reject");
          await waitText(fin, "Rejected: Laptop for new hire, 14 inch (€900.00)");
          await waitInTopPanel(fin, "Rejected");
          await waitInTopPanel(fin, "Not in this year's budget");
        });

        // The employee sees R000002 rejected with the approver's note.
        await dumpOnFailure(emp, async () => {
          await click(emp, "Refresh");
          await click(emp, "Rejected");
          await openRow(emp, "Laptop for new hire, 14 inch");
          await waitInTopPanel(emp, "Approver note");
          await waitInTopPanel(emp, "Not in this year's budget");
          await inTopPanel(emp, "Back");
          await panelsClosed(emp);
          await openRow(emp, "Taxi to the station");
          await waitInTopPanel(emp, "Approver note");
          await waitInTopPanel(emp, "Take the bus, it is 5 minutes");
        });
      } finally {
        await env.close();
      }
    },
  });
}
