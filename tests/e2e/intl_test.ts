/**
 * Localisation in the browser (spec §9 through Intl), German then Spanish, device in Berlin,
 * at 360×640: amounts with the locale's separators on Requests and Transactions, dates and
 * times in the locale's order and the device's zone (UTC named when chosen in Options),
 * plurals ("1 Transaktion gefunden"), refused reasons translated (label and sentence, the
 * issuer's wording kept) in the row and the detail; switching language re-renders the open
 * detail at once. Then every main label (bottom nav, action bar, tabs) fits at 360 px in all
 * four languages.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import {
  click,
  definePin,
  dumpOnFailure,
  FLAVOURS,
  start,
  tapDigits,
  waitText,
} from "./harness.ts";
import { inTopPanel, mainTab, opts, settled, waitInTopPanel } from "./panels.ts";
import { bearerOf, cardFor, postAs, purchase } from "./transactions_setup.ts";
import { formatDateTime } from "../../client/shared/intl.ts";
import type { Env } from "./harness.ts";

const EMPLOYEE = "employee@demo.example";
const BERLIN = "Europe/Berlin";

/** Activates with the browser's languages and zone set (the app starts in English). */
async function activateIn(env: Env): Promise<Page> {
  const p = await env.newPage();
  await p.evaluateOnNewDocument(() =>
    Object.defineProperty(navigator, "languages", { get: () => ["en-US", "de-DE", "es-ES"] })
  );
  await p.emulateTimezone(BERLIN);
  await p.goto(env.url);
  await waitText(p, "Enter the 5-digit code");
  await tapDigits(p, await env.latestCode(EMPLOYEE));
  await click(p, "Connect device");
  await definePin(p, "135790");
  await p.locator("::-p-aria(Open menu)").wait();
  return p;
}

/** Menu → Options → a language (by its own name and code); back to where it was. */
async function chooseLanguage(p: Page, menu: string, options: string, lang: string[]) {
  const [name, code, back] = lang;
  // The menu button may sit under an open panel: pressed as a script would.
  await p.evaluate(
    (m) => (document.querySelector(`[aria-label="${m}"]`) as HTMLElement).click(),
    menu,
  );
  await click(p, options);
  await p.locator(`::-p-aria([name="${name}"][role="radio"])`).click();
  await p.waitForSelector(`[role="radio"][aria-checked="true"][lang="${code}"]`);
  await inTopPanel(p, back);
  await settled(p);
}

/**
 * Main labels (bottom nav, action bars, tabs) whose text is cut (wider than its box) or
 * reaches past the 360 px screen.
 */
const cutLabels = (p: Page) =>
  p.evaluate(() =>
    [
      ...document.querySelectorAll(
        ".bottom-nav [role=tab], .action-bar button, .action-bar a, [role=tablist] [role=tab]",
      ),
    ].flatMap((e) => {
      const el = e as HTMLElement;
      const r = el.getBoundingClientRect();
      if (!r.width) return [];
      const inner = [el, ...el.querySelectorAll<HTMLElement>("*")];
      // Elements holding the label's words (a badge or an icon box may overhang by design).
      const words = inner.filter((x) =>
        !/badge|glyph/.test(x.className) &&
        [...x.childNodes].some((n) => n.nodeType === 3 && n.textContent!.trim())
      );
      const cut = words.filter((x) => x.scrollWidth > x.clientWidth + 1 && x.clientWidth > 0)
        .map((x) => `${x.className}:${x.scrollWidth}>${x.clientWidth}`);
      // A word broken across lines does not fit either: each word lies on one line.
      for (const x of words) {
        for (const n of x.childNodes) {
          if (n.nodeType !== 3) continue;
          for (const m of n.textContent!.matchAll(/\S+/g)) {
            const range = document.createRange();
            range.setStart(n, m.index!);
            range.setEnd(n, m.index! + m[0].length);
            const tops = new Set([...range.getClientRects()].map((q) => Math.round(q.top)));
            if (tops.size > 1) cut.push(`'${m[0]}' broken`);
          }
        }
      }
      return cut.length || r.left < -1 || r.right > 361
        ? [`${el.innerText} (${Math.round(r.width)}px) ${cut.join(" ")}`]
        : [];
    })
  );

const text = (p: Page, sel: string) =>
  p.$$eval(sel, (l) => l.map((e) => (e as HTMLElement).innerText).join("\n"));

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] intl: German and Spanish amounts, dates, times (device zone, UTC named), plurals and refused reasons on Requests, Transactions and the detail; the open detail follows a language switch`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      let page: Page | null = null;
      try {
        page = await activateIn(env);
        const p = page;
        await dumpOnFailure(p, async () => {
          const h = await bearerOf(p, () => click(p, "Refresh"));
          const card = await cardFor(env, h);
          // A new request (not submitted) under Requests → New.
          await postAs(env, h, "pwaexpenserequestcreate", {
            expenseRequest: {
              typeOid: "type-travel",
              amount: 2345.6,
              purpose: "Trade fair",
              costCenterOid: "cc-sales",
              GLOid: "gl-travel",
              projectOid: "prj-crm",
            },
          });
          const before = Date.now();
          await purchase(env, { card: card.oid, amount: "45.5", merchantName: "Bäckerei Kamps" });
          const refused = await purchase(env, {
            card: card.oid,
            amount: "20",
            merchantName: "Casino Royal",
            mcc: "7995",
          });
          assert.equal(refused.approved, false);
          await purchase(env, {
            card: card.oid,
            amount: "100",
            currency: "USD",
            merchantName: "Yellow Cab NYC",
          });
          const after = Date.now();
          const times = (loc: string, zone: string) =>
            [before, after].map((t) => formatDateTime(t, loc, zone, BERLIN));

          await chooseLanguage(p, "Open menu", "Options", ["Deutsch", "de", "Zurück"]);
          // Requests: the amount with German separators, the day as dd.MM.yyyy.
          await click(p, "Aktualisieren");
          await waitText(p, "2.345,60\u00a0€");
          const requests = await text(p, ".request-row");
          assert.match(
            requests,
            /Trade fair[\s\S]*\d\d\.\d\d\.\d{4}|\d\d\.\d\d\.\d{4}[\s\S]*Trade fair/,
          );

          await mainTab(p, "Transaktionen");
          await waitText(p, "Bäckerei Kamps");
          const rows = await text(p, ".tx-row");
          assert.ok(rows.includes("45,50\u00a0€"), rows);
          assert.ok(rows.includes("100,00\u00a0$"), rows);
          assert.ok(rows.includes("Händlerart gesperrt"), rows);
          assert.ok(times("de-DE", BERLIN).some((t) => rows.includes(t)), rows);
          assert.ok(!rows.includes("UTC"), "the device's own zone is not named");

          // Plural: one match.
          const search = await p.$(".transactions-tab input.search");
          await search!.type("Bäckerei");
          await waitText(p, "1 Transaktion gefunden");
          await search!.evaluate((e) => (e as HTMLInputElement).select());
          await p.keyboard.press("Backspace");

          // The refused one's detail: translated label and sentence, the issuer's words kept.
          await p.evaluate(() =>
            ([...document.querySelectorAll(".tx-row")].find((e) =>
              (e as HTMLElement).innerText.includes("Casino Royal")
            ) as HTMLElement).click()
          );
          await waitInTopPanel(p, "Diese Art von Händler (Kategorie, MCC)");
          await waitInTopPanel(p, refused.refusedReason!.slice(0, 40));
          // Switching language while it is open: the detail follows at once.
          await chooseLanguage(p, "Menü öffnen", "Optionen", ["Español", "es", "Atrás"]);
          await waitInTopPanel(p, "Este tipo de comercio (su categoría, MCC)");
          await waitInTopPanel(p, "Comercio bloqueado");
          await inTopPanel(p, "Atrás");
          await settled(p);
          const es = await text(p, ".tx-row");
          assert.ok(es.includes("45,50\u00a0€"), es);
          assert.ok(times("es-ES", BERLIN).some((t) => es.includes(t)), es);

          // Options: times in UTC (spec §9), named as such.
          await click(p, "Abrir el menú");
          await click(p, "Opciones");
          const utcSwitch = await p.waitForSelector(
            '::-p-aria([name="Horas en UTC"][role="switch"])',
          );
          await utcSwitch!.evaluate((e) => (e as HTMLElement).click());
          await p.waitForFunction(() => localStorage.getItem("qc_time_zone") === "utc");
          await inTopPanel(p, "Atrás");
          await settled(p);
          const utc = await text(p, ".tx-row");
          assert.ok(times("es-ES", "UTC").some((t) => utc.includes(t)), utc);
          assert.ok(utc.includes(" UTC"), utc);

          await search!.type("Casino");
          await waitText(p, "1 transacción encontrada");
          await mainTab(p, "Solicitudes");
          await waitText(p, "2345,60\u00a0€"); // Spanish: no group mark in 4-digit numbers
          assert.match(await text(p, ".request-row"), /\d\d\/\d\d\/\d{4}/);

          // Every main label fits at 360 px in all four languages (nothing cut or pushed out).
          const langs = [
            // Name, code; then Menu and Options in the language before, Back in the new one.
            ["Español", "es", "", "", ""],
            ["English", "en", "Abrir el menú", "Opciones", "Back"],
            ["Français", "fr", "Open menu", "Options", "Retour"],
            ["Deutsch", "de", "Ouvrir le menu", "Options", "Zurück"],
          ];
          for (const [name, code, menu, options, back] of langs) {
            if (code !== "es") await chooseLanguage(p, menu, options, [name, code, back]);
            for (
              const tab of await p.$$eval(".bottom-nav [role=tab]", (l) => l.length)
                ? [0, 1, 2]
                : []
            ) {
              await p.evaluate(
                (i) =>
                  (document.querySelectorAll(".bottom-nav [role=tab]")[i] as HTMLElement).click(),
                tab,
              );
              await settled(p);
              assert.deepEqual(await cutLabels(p), [], `${code}, tab ${tab}`);
            }
          }
        });
      } finally {
        await env.close();
      }
    },
  });
}
