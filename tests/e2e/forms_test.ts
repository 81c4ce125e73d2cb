/**
 * Forms and panels at 360×640, both flavours: create request shows every spec §5 message at
 * once, each under its field (aria-invalid, aria-describedby), the first field focused; the
 * keyboard focus stays inside the open side panel and goes back to its opener on close.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { activate, click, dumpOnFailure, FLAVOURS, start, waitText } from "./harness.ts";
import { fill, opts, pick, settled, tap } from "./panels.ts";
import { expectAccessible, expectNoSideScroll } from "./a11y.ts";

/** Each field marked invalid, its message (aria-describedby) and whether it sits under it. */
function inlineErrors(p: Page) {
  return p.evaluate(() => {
    const panels = document.querySelectorAll(".side-panel.open");
    const root = panels[panels.length - 1];
    return [...root.querySelectorAll("[aria-invalid=true]")].map((field) => {
      const msg = document.getElementById(field.getAttribute("aria-describedby") ?? "");
      const f = field.getBoundingClientRect();
      const m = msg?.getBoundingClientRect();
      return {
        field: field.id,
        message: msg?.textContent ?? "",
        under: !!m && m.top >= f.bottom - 1 && m.top - f.bottom < 48,
      };
    });
  });
}

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] forms: create request shows all §5 messages at once under their fields, first one focused; the panel traps focus and returns it on close`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      let page: Page | null = null;
      try {
        page = await activate(env, "employee@demo.example");
        const p = page;
        await dumpOnFailure(p, async () => {
          await waitText(p, "No requests here");
          await expectAccessible(p, "requests (empty)");
          await tap(p, "New request");
          await p.waitForFunction(() => document.querySelectorAll(".side-panel.open").length === 1);
          await settled(p);

          // Focus trap: Tab and Shift+Tab never leave the panel.
          for (let i = 0; i < 25; i++) {
            await p.keyboard.press("Tab");
            assert.ok(
              await p.evaluate(() => !!document.activeElement?.closest(".side-panel.open")),
              `Tab ${i + 1} left the panel`,
            );
          }
          for (let i = 0; i < 5; i++) {
            await p.keyboard.down("Shift");
            await p.keyboard.press("Tab");
            await p.keyboard.up("Shift");
            assert.ok(
              await p.evaluate(() => !!document.activeElement?.closest(".side-panel.open")),
              `Shift+Tab ${i + 1} left the panel`,
            );
          }

          // Nothing filled: every message at once, each under its field; Type focused.
          await tap(p, "Submit");
          await p.waitForFunction(() =>
            document.querySelectorAll(".side-panel.open [aria-invalid=true]").length === 3
          );
          assert.deepEqual(await inlineErrors(p), [
            { field: "create-type", message: "Please choose a type", under: true },
            { field: "create-amount", message: "Please enter an amount", under: true },
            { field: "purpose", message: "Please enter a purpose", under: true },
          ]);
          // Focused once the form has drawn them (Preact runs effects after the paint).
          await p.waitForFunction(() => document.activeElement?.id === "create-type");
          await expectAccessible(p, "create request with errors");
          await expectNoSideScroll(p, "create request with errors");

          // A type and a low amount: the range message under Amount, which gets the focus.
          await pick(p, "Type", "Travel");
          await fill(p, "Amount", "10");
          await tap(p, "Submit");
          await p.waitForFunction(() =>
            document.querySelector(".side-panel.open input[inputmode=decimal]")
              ?.getAttribute("aria-invalid") === "true"
          );
          const errors = await inlineErrors(p);
          assert.deepEqual(errors.map((e) => e.message), [
            "Amount must be between €20.00 and €5,000.00",
            "Please enter a purpose",
          ]);
          assert.ok(errors.every((e) => e.under), JSON.stringify(errors));
          await p.waitForFunction(() => document.activeElement?.id === "create-amount");
          // Fixing a field takes its message away.
          await fill(p, "Amount", "320.5");
          await p.waitForFunction(() => !document.getElementById("create-amount-error"));
          // Two frames: whatever the form does after drawing has been done.
          await p.evaluate(() =>
            new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)))
          );
          assert.equal(
            await p.evaluate(() => document.activeElement?.id),
            "create-amount",
            "fixing the amount kept the focus there",
          );
          await fill(p, "Purpose", "Client visit");
          await p.waitForFunction(() => !document.getElementById("purpose-error"));
          // Fixing fields never moves the focus: what was typed is where it was typed.
          assert.deepEqual(
            await p.evaluate(() => ({
              focused: document.activeElement?.id,
              amount: (document.getElementById("create-amount") as HTMLInputElement).value,
              purpose: (document.getElementById("purpose") as HTMLTextAreaElement).value,
            })),
            { focused: "purpose", amount: "320.5", purpose: "Client visit" },
          );

          // The Submit bar is below the scrolling body, never over it: each field scrolled to
          // the body's bottom edge still takes a tap there (a tap on the GL code field once
          // opened the Submit confirm).
          const underBar = await p.evaluate(() => {
            const panel = [...document.querySelectorAll(".side-panel.open")].pop()!;
            const body = panel.querySelector(".panel-body") as HTMLElement;
            const bar = panel.querySelector(".panel-footer")!.getBoundingClientRect();
            const out: string[] = [];
            if (bar.height < 40 || bar.top < body.getBoundingClientRect().bottom - 0.5) {
              out.push(`bar ${JSON.stringify(bar)} overlaps the body`);
            }
            const fields = body.querySelectorAll<HTMLElement>(
              "input, select, textarea, button, [role=button]",
            );
            for (const f of fields) {
              if (!f.getClientRects().length) continue;
              f.scrollIntoView({ block: "end" });
              const r = f.getBoundingClientRect();
              const hit = document.elementFromPoint(r.left + r.width / 2, r.bottom - 2);
              if (!hit || hit.closest(".panel-footer")) out.push(f.id || f.textContent || "?");
            }
            return out;
          });
          assert.deepEqual(underBar, [], "fields under the Submit bar");
          await p.locator(".side-panel.open ::-p-aria(Vendor website (optional))").click();
          await p.waitForFunction(() =>
            document.activeElement?.getAttribute("inputmode") === "url"
          );
          assert.equal(await p.$(".confirm"), null, "a tap on a field is not a Submit");

          // Escape closes the panel; the focus goes back to "New request".
          await p.keyboard.press("Escape");
          await p.waitForFunction(() => !document.querySelector(".side-panel.open"));
          await p.waitForFunction(() =>
            document.activeElement?.getAttribute("aria-label") === "New request"
          );
        });
      } finally {
        await env.close();
      }
    },
  });
}

for (const flavour of FLAVOURS) {
  Deno.test({
    name: `[e2e:${flavour}] forms: the offline banner goes by itself once the network is back`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      let page: Page | null = null;
      try {
        page = await activate(env, "employee@demo.example");
        const p = page;
        await dumpOnFailure(p, async () => {
          await waitText(p, "No requests here");
          await p.setOfflineMode(true);
          await click(p, "Refresh");
          await waitText(p, "You are offline: showing saved data");
          await expectAccessible(p, "offline banner");
          await p.setOfflineMode(false);
          // No tap: the app reads its lists again when the browser is back online.
          await p.waitForFunction(() =>
            !document.body.innerText.includes("You are offline: showing saved data")
          );
        });
      } finally {
        await env.close();
      }
    },
  });
}
