/**
 * The request's approval timeline, both flavours at 360×640: a two-level request approved
 * by Finance shows, on the requester's detail, level 1 with who approved it and when, and
 * level 2 open, waiting for its approvers by name; the detail's one action bar keeps the
 * destructive action in its menu, saying what it does.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { decide } from "../../server/domain/approvals.ts";
import { activate, click, dumpOnFailure, FLAVOURS, start, waitText } from "./harness.ts";
import { inTopPanel, opts, settled, topPanelText, waitInTopPanel } from "./panels.ts";
import { bearerOf, postAs } from "./transactions_setup.ts";
import { expectAccessible, expectNoSideScroll } from "./a11y.ts";

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] timeline: the request shows each level, who approved it and when, and who the open level is waiting for`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      let page: Page | null = null;
      try {
        page = await activate(env, "employee@demo.example");
        const p = page;
        await dumpOnFailure(p, async () => {
          await waitText(p, "No requests here");
          const h = await bearerOf(p, () => click(p, "Refresh"));
          // Above 250: Finance, then Management (spec §4 policy levels).
          const { expenseRequest } = await postAs(env, h, "pwaexpenserequestcreate", {
            expenseRequest: {
              typeOid: "type-travel",
              amount: 320,
              purpose: "Client visit in Lyon",
              costCenterOid: "cc-sales",
            },
          });
          await postAs(env, h, "pwasubmit", { record: expenseRequest.oid });
          const [a] = await env.deps.store.approvals.byRequest(expenseRequest.oid);
          const fin = (await env.deps.store.users.byEmail("approver@demo.example"))!;
          await decide(env.deps, fin, a.oid, "approved");

          await click(p, "Refresh");
          await waitText(p, "Client visit in Lyon");
          await p.locator(".request-row").click();
          await p.waitForFunction(() => document.querySelectorAll(".side-panel.open").length);
          await settled(p);
          await waitInTopPanel(p, "Approved by Adam Fischer");
          const levels = await p.$$eval(
            ".side-panel.open .timeline-level",
            (l) => l.map((e) => (e as HTMLElement).innerText.replace(/\s+/g, " ").trim()),
          );
          assert.equal(levels.length, 2, levels.join("\n"));
          assert.match(
            levels[0],
            /^Level 1: Finance Approved Approved by Adam Fischer · \d\d\/\d\d, \d\d:\d\d$/,
          );
          assert.match(levels[1], /^Level 2: Management Open Waiting for /);
          assert.ok(levels[1].includes("David Moreau") && levels[1].includes("Maria Jansen"));
          await expectAccessible(p, "request detail with timeline");
          await expectNoSideScroll(p, "request detail with timeline");

          // One action bar: cancelling is in its menu, in words, and its confirm says so.
          assert.ok(!(await topPanelText(p)).includes("Cancel request"));
          await inTopPanel(p, "More actions");
          await waitInTopPanel(p, "Cancel request");
          // In red, with one line saying what it does (its description).
          assert.deepEqual(
            await p.$$eval(
              ".side-panel.open .more-item",
              (l) =>
                l.filter((e) => e.textContent === "Cancel request").map((e) => ({
                  danger: e.classList.contains("danger"),
                  says: document.getElementById(e.getAttribute("aria-describedby") ?? "")
                    ?.textContent,
                })),
            ),
            [{ danger: true, says: "This cannot be undone." }],
          );
          await expectAccessible(p, "request actions menu");
          await inTopPanel(p, "Cancel request");
          await waitText(p, "Cancel this request?");
          assert.deepEqual(
            await p.$$eval(".confirm button", (l) => l.map((b) => (b as HTMLElement).innerText)),
            ["No", "Cancel request"],
          );
          await p.locator(".confirm ::-p-aria(No)").click();
        });
      } finally {
        await env.close();
      }
    },
  });
}
