/**
 * A draft (status new) edits everything creation offers, with creation's rules (spec §5
 * create; the edit rule's required codes are for submitted requests), both flavours at
 * 360×640: type, amount and vendor change in the create form filled with the draft; a wrong
 * amount is answered under its field; no code is asked for.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { activate, bodyText, dumpOnFailure, FLAVOURS, start, waitText } from "./harness.ts";
import { fill, opts, panelsClosed, pick, settled, tap, waitInTopPanel } from "./panels.ts";
import { bearerOf, postAs } from "./transactions_setup.ts";
import { expectAccessible, expectNoSideScroll } from "./a11y.ts";

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] draft edit: type, amount and vendor change with creation's rules, no codes required`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      let page: Page | null = null;
      try {
        page = await activate(env, "employee@demo.example");
        const p = page;
        await dumpOnFailure(p, async () => {
          await waitText(p, "No requests here");
          const h = await bearerOf(p, () => tap(p, "Refresh"));
          // A draft without codes (creation allows it), not submitted.
          const { expenseRequest: x } = await postAs(env, h, "pwaexpenserequestcreate", {
            expenseRequest: { typeOid: "type-travel", amount: 120, purpose: "Paper and pens" },
          });
          await tap(p, "Refresh");
          await waitText(p, "Paper and pens");
          await p.locator(".request-row").click();
          await p.waitForFunction(() => document.querySelectorAll(".side-panel.open").length);
          await settled(p);
          await waitInTopPanel(p, "Request R000001");
          await tap(p, "More actions");
          await tap(p, "Edit");
          await p.waitForFunction(() => document.querySelectorAll(".side-panel.open").length === 2);
          await settled(p);
          // The create form, filled with the draft.
          await waitInTopPanel(p, "Travel");
          assert.equal(
            await p.$eval("#create-amount", (e) => (e as HTMLInputElement).value),
            "120",
          );
          await expectAccessible(p, "draft edit");
          await expectNoSideScroll(p, "draft edit");

          await pick(p, "Type", "Office supplies");
          await fill(p, "Amount", "900");
          await fill(p, "Vendor (optional)", "Shop Co");
          await tap(p, "Save");
          // Creation's rule and message, under its field; no code asked for.
          await waitInTopPanel(p, "Amount must be between €5.00 and €500.00");
          assert.equal(
            await p.$eval("#create-amount", (e) => e.getAttribute("aria-invalid")),
            "true",
          );
          assert.doesNotMatch(await bodyText(p), /must be set/);
          await expectAccessible(p, "draft edit with an error");
          await fill(p, "Amount", "90");
          await tap(p, "Save");
          await waitText(p, "Request saved");
          await panelsClosed(p, 1);
          await waitInTopPanel(p, "Office supplies");
          await waitInTopPanel(p, "Shop Co");
          await waitInTopPanel(p, "€90.00");

          // Stored as edited, still a draft.
          const owner = (await env.deps.store.requests.owner(x.oid))!;
          const saved = (await env.deps.store.requests.get(owner, x.oid)).value!;
          assert.deepEqual(
            [saved.status, saved.typeOid, saved.amount, saved.vendor, saved.costCenterOid],
            ["new", "type-supplies", 90, "Shop Co", null],
          );
        });
      } finally {
        await env.close();
      }
    },
  });
}
