/**
 * The organisation's own words in the language shown (spec §3 labels; the demo organisation
 * gives them in en/fr/de/es, client/shared/org_words.ts): an open create-request form names its
 * type and cost center in English, follows a switch to German in Options at once (no reload,
 * same cached lookups), and its type list is German too; the German form passes axe. A request
 * created in English reads in German once the app speaks German: its row's cost center and its
 * detail's cost center, GL and project (server/org/labels.ts codesIn), and the German detail
 * passes axe.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { activate, click, dumpOnFailure, FLAVOURS, start, waitText } from "./harness.ts";
import { inTopPanel, opts, pick, settled, tap, waitInTopPanel } from "./panels.ts";
import { expectAccessible, expectNoSideScroll } from "./a11y.ts";
import { bearerOf, postAs } from "./transactions_setup.ts";

/** Waits until the top panel's field selector `label` shows `value`. */
const shows = (p: Page, label: string, value: string) =>
  p.waitForFunction(
    (l, v) =>
      [...document.querySelectorAll(".side-panel.open .field-button")].some((b) =>
        b.querySelector(".field-label")?.textContent?.trim() === l &&
        b.querySelector(".field-value")?.textContent?.trim() === v
      ),
    {},
    label,
    value,
  );

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] org words: the open create-request form shows the demo type and cost center in German after a switch in Options`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      let page: Page | null = null;
      try {
        page = await activate(env, "employee@demo.example");
        const p = page;
        await dumpOnFailure(p, async () => {
          await tap(p, "New request");
          await p.waitForFunction(() => document.querySelectorAll(".side-panel.open").length === 1);
          await pick(p, "Type", "Travel");
          await pick(p, "Cost center (optional)", "Sales");
          await shows(p, "Type", "Travel");

          // Menu → Options → Deutsch while the form stays open (the menu button is under it).
          await p.evaluate(() =>
            (document.querySelector('[aria-label="Open menu"]') as HTMLElement).click()
          );
          await tap(p, "Options");
          await p.locator('::-p-aria([name="Deutsch"][role="radio"])').click();
          await p.waitForSelector('[role="radio"][aria-checked="true"][lang="de"]');
          await inTopPanel(p, "Zurück");
          await settled(p);

          await shows(p, "Art", "Reise");
          await shows(p, "Kostenstelle (optional)", "Vertrieb");
          await expectAccessible(p, "German create-request form");
          // The type list, from the same cached answer, in German.
          await tap(p, "Art");
          await p.waitForFunction(() => document.querySelectorAll(".side-panel.open").length === 2);
          await settled(p);
          await p.waitForFunction(() => {
            const panels = document.querySelectorAll(".side-panel.open");
            const text = (panels[panels.length - 1] as HTMLElement).innerText;
            return text.includes("Veranstaltungsbudget") && text.includes("Monatsabonnement");
          });
          // (Not axe here: an option row with a detail is named by its label alone, which axe's
          // label-content-name-mismatch flags in every language — a separate finding.)
          await inTopPanel(p, "Reise");
          await shows(p, "Art", "Reise");
        });
      } finally {
        await env.close();
      }
    },
  });
}

/** The value painted beside the detail field `label` of the top panel. */
const fieldValue = (p: Page, label: string) =>
  p.evaluate((l) => {
    const panels = document.querySelectorAll(".side-panel.open");
    const root = panels[panels.length - 1];
    const dt = [...(root?.querySelectorAll("dt") ?? [])].find((x) => x.textContent?.trim() === l);
    return (dt?.nextElementSibling as HTMLElement | null)?.innerText.trim() ?? null;
  }, label);

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] org words: a request created in English shows its cost center, GL and project in German once the app speaks German`,
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
          // Created by an English reader: the record is written in English.
          const { expenseRequest } = await postAs(
            env,
            { ...h, "accept-language": "en" },
            "pwaexpenserequestcreate",
            {
              expenseRequest: {
                typeOid: "type-travel",
                amount: 240,
                purpose: "Trade fair in Frankfurt",
                costCenterOid: "cc-sales",
                GLOid: "gl-travel",
                projectOid: "prj-crm",
              },
            },
          );
          assert.equal(expenseRequest.costCenter, "Sales");
          await click(p, "Refresh");
          await p.waitForFunction(() =>
            [...document.querySelectorAll(".request-row .row-cc")].some((e) =>
              e.textContent === "Sales"
            )
          );

          // Menu → Options → Deutsch, then the list read again.
          await click(p, "Open menu");
          await click(p, "Options");
          await settled(p);
          await p.locator('::-p-aria([name="Deutsch"][role="radio"])').click();
          await p.waitForSelector('[role="radio"][aria-checked="true"][lang="de"]');
          while ((await p.$$(".side-panel.open")).length) {
            await inTopPanel(p, "Zurück");
            await new Promise((r) => setTimeout(r, 350));
          }
          await click(p, "Aktualisieren");
          await p.waitForFunction(() =>
            [...document.querySelectorAll(".request-row .row-cc")].some((e) =>
              e.textContent === "Vertrieb"
            )
          );

          // The detail: the organisation's words in German, under German field names.
          await p.evaluate(() =>
            ([...document.querySelectorAll(".request-row")].find((e) =>
              e.textContent?.includes("Trade fair in Frankfurt")
            ) as HTMLElement).click()
          );
          await waitInTopPanel(p, "Reisen und Unterkunft");
          await settled(p);
          assert.equal(await fieldValue(p, "Kostenstelle"), "Vertrieb");
          assert.equal(await fieldValue(p, "Sachkonto"), "Reisen und Unterkunft");
          assert.equal(await fieldValue(p, "Projektcode"), "CRM-Einführung");
          const text = await p.evaluate(() => document.body.innerText);
          for (const english of ["Travel and accommodation", "CRM rollout"]) {
            assert.ok(!text.includes(english), `English "${english}" still shown`);
          }
          await expectAccessible(p, "German request detail of an English-created request");
          await expectNoSideScroll(p, "German request detail");
        });
      } finally {
        await env.close();
      }
    },
  });
}
