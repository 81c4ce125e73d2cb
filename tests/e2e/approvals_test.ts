/**
 * Approval mode end to end (issue 4), in both flavours, each person on their own activated
 * browser profile: employee@ submits two requests; approver@ (Finance) lands in approval
 * mode, approves level 1 of the travel request; manager@ (Management) approves level 2 and
 * the employee sees it accepted. The equipment request is edited by approver@ (cancel and
 * recreate the approval), then rejected through the reject-note flow; the employee sees the
 * note. A decision made offline fails and leaves the approval as it was.
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
import { expectAccessible } from "./a11y.ts";

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
  await confirmYes(p, "Submit this request for approval?");
  await waitText(p, "Request R000001 submitted");
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
  await confirmYes(p, "Submit this request for approval?");
  await waitText(p, "Request R000002 submitted");
  await panelsClosed(p);
}

/** A person who has approvals to decide lands in approval mode, green (spec §2, §4, §9). */
async function inApprovalMode(p: Page): Promise<void> {
  await p.locator("::-p-aria(Approvals)").wait();
  await p.waitForFunction(() => document.documentElement.dataset.mode === "approval");
  assert.deepEqual(await themeOf(p), { meta: GREEN, mode: "approval" });
}

async function decide(p: Page, button: "Approve" | "Reject", id: string): Promise<void> {
  await inTopPanel(p, button);
  await confirmYes(p, `${button} ${id}?`);
  await waitText(p, `${id} ${button === "Approve" ? "approved" : "rejected"}`);
}

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
          assert.equal((await rowTexts(fin)).length, 2);
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
          await confirmYes(fin, "Approve AP000001.1?");
          await waitText(fin, "The server could not be reached");
          await fin.setOfflineMode(false);
          await waitInTopPanel(fin, "No votes yet");
          const stored = (await env.deps.store.approvals.byTeams(["team-finance"]))
            .find((a) => a.id === "AP000001.1");
          assert.deepEqual(stored?.votes, []);
          assert.equal(stored?.statusCode, "new");

          // Level 1: approved, shown once the server answered.
          await decide(fin, "Approve", "AP000001.1");
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
          assert.deepEqual(
            await fin.$$eval(".decision-bar button", (l) => l.map((b) => b.textContent)),
            [],
          );
          await inTopPanel(fin, "Back");
          await panelsClosed(fin);
        });

        // manager@ (Management) approves level 2: the request is accepted.
        const mgr = await activate(env, "manager@demo.example");
        await dumpOnFailure(mgr, async () => {
          await inApprovalMode(mgr);
          await openRow(mgr, "Client visit in Lyon");
          await waitInTopPanel(mgr, "Level 2: Management approval");
          await decide(mgr, "Approve", "AP000001.1");
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
          await inTopPanel(fin, "Edit");
          await confirmYes(fin, "Cancel and recreate the approval?");
          await fin.waitForFunction(() =>
            document.querySelectorAll(".side-panel.open").length === 2
          );
          await fill(fin, "Purpose", "Laptop for new hire, 14 inch");
          await inTopPanel(fin, "Save");
          // A purpose change needs no new approval (spec §4): the approval is kept.
          await waitInTopPanel(fin, "Approval AP000002.1");
          await waitInTopPanel(fin, "Laptop for new hire, 14 inch");

          // Reject on a reject-note type: the note is asked first, then the rejection proceeds.
          await inTopPanel(fin, "Reject");
          await waitInTopPanel(fin, "This type needs a comment before it can be rejected.");
          await fill(fin, "Reason for rejection", "Not in this year's budget");
          await inTopPanel(fin, "Add comment and reject");
          await waitText(fin, "AP000002.1 rejected");
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
        });
      } finally {
        await env.close();
      }
    },
  });
}
