/**
 * Helpers for the main screen's stacked side panels (shared by the browser tests). Controls
 * are found in the top open panel: the panels beneath have fields of the same names.
 */
import type { ElementHandle, Page } from "puppeteer-core";
import { click, waitText } from "./harness.ts";

export const opts = { sanitizeOps: false, sanitizeResources: false };

/** Waits until every side panel has slid away (spec §9: 300 ms). */
export async function panelsClosed(page: Page, count = 0): Promise<void> {
  await page.waitForFunction(
    (n) => document.querySelectorAll(".side-panel").length === n,
    {},
    count,
  );
}

/**
 * Fills a field of the top panel (the ones beneath may have fields of the same name) as a
 * person would: select what is there, delete it, type. Setting the DOM value directly is
 * undone by the next render of a controlled input, and the typed text would be appended to
 * the old value.
 */
export async function fill(page: Page, name: string, value: string): Promise<void> {
  const el = await named(page, name);
  await el.focus();
  await el.evaluate((e) => (e as HTMLInputElement).select());
  await page.keyboard.press("Backspace");
  await el.type(value);
}

/** Opens a field selector by its label and picks an option by its label. */
export async function pick(page: Page, field: string, option: string): Promise<void> {
  const before = await page.$$eval(".side-panel", (l) => l.length);
  await tap(page, field);
  await page.waitForFunction(
    (n) => document.querySelectorAll(".side-panel.open").length > n,
    {},
    before,
  );
  await inTopPanel(page, option);
  await panelsClosed(page, before);
}

/**
 * Waits until no panel is sliding (its transform is back to none) and "Back online" has gone:
 * the offline strip lets the screen back up when it goes (3 s after the network returns), and
 * a tap aimed before that move would land beside its target (on the row under a panel's Back).
 */
export async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    if (document.querySelector(".offline-strip.back")) return false;
    return [...document.querySelectorAll(".side-panel")].every((e) => {
      const m = getComputedStyle(e).transform;
      return e.classList.contains("open") && (m === "none" || m === "matrix(1, 0, 0, 1, 0, 0)");
    });
  });
}

/**
 * The control named `name` in the top panel: a button or link by its aria-label or text, a
 * field by its label (or aria-label), a field selector row by its label. Searched in the DOM: Chromium's accessibility tree
 * lags behind a panel that has just closed over another (aria-modal).
 */
export async function named(page: Page, name: string) {
  await settled(page);
  const handle = await page.waitForFunction(
    (n) => {
      const panels = document.querySelectorAll(".side-panel.open");
      const root = panels[panels.length - 1];
      if (!root) return null;
      const label = [...root.querySelectorAll("label")].find((l) =>
        (l.querySelector("span")?.textContent ?? l.textContent)?.trim() === n
      );
      const field = label?.querySelector("input, textarea");
      if (field) return field;
      // A field selector row is named by its label and its value: found by its label.
      const row = [...root.querySelectorAll(".field-button")].find((b) =>
        b.querySelector(".field-label")?.textContent?.trim() === n
      );
      if (row) return row;
      return [...root.querySelectorAll("button, a, input, textarea, [role=option]")].find((e) =>
        (e.getAttribute("aria-label") ?? (e as HTMLElement).innerText?.trim()) === n
      ) ?? null;
    },
    {},
    name,
  );
  return handle.asElement() as ElementHandle<Element>;
}

/**
 * Taps a control of the top panel by its accessible name. A handle found while the panel
 * re-renders (a list reloaded after an upload) may be replaced before the tap lands: then it
 * has no box ("not clickable") or is detached, and the control is looked up again. The
 * control is scrolled to the middle first, out from under the sticky action bar.
 */
export async function inTopPanel(page: Page, name: string): Promise<void> {
  for (let round = 1;; round++) {
    try {
      const el = await named(page, name);
      // Centred first: a sticky action bar at the panel's foot must not take the tap.
      await el.evaluate((e) => e.scrollIntoView({ block: "center" }));
      await el.click();
      return;
    } catch (err) {
      const replaced = /not clickable|detached|not an Element/i.test(String(err));
      if (round >= 5 || !replaced) throw err;
      await new Promise((ok) => setTimeout(ok, 200));
    }
  }
}

/**
 * Taps the top panel's Back until the panel has gone. A tap that lands while the panel is
 * re-rendered (its card or list refreshed by the change channel after a write) can be lost; a
 * person taps again, and so does this, saying so in the output (at most 3 taps).
 */
export async function backOut(page: Page): Promise<void> {
  const before = await page.$$eval(".side-panel.open", (l) => l.length);
  for (let tap = 1;; tap++) {
    await inTopPanel(page, "Back");
    const closed = await page.waitForFunction(
      (n) => document.querySelectorAll(".side-panel.open").length < n,
      { timeout: 4_000 },
      before,
    ).then(() => true, () => false);
    if (closed) return;
    if (tap >= 3) throw new Error(`Back tapped ${tap} times, the panel stayed`);
    console.log(`  Back did not take (tap ${tap}); tapping again`);
  }
}

/**
 * Taps a control by its accessible name in the top panel, or on the main screen when no
 * panel is open: the panels beneath have labels of the same name at other places.
 */
export async function tap(page: Page, name: string): Promise<void> {
  if ((await page.$$(".side-panel.open")).length) await inTopPanel(page, name);
  else await click(page, name);
}

/** Confirms with the confirm's button, named by its verb (never a bare "Yes"). */
export async function confirmYes(page: Page, message: string, verb: string): Promise<void> {
  await waitText(page, message);
  await page.locator(`.confirm ::-p-aria(${verb})`).click();
}

export async function rowTexts(page: Page): Promise<string[]> {
  return await page.$$eval(".request-row", (l) => l.map((e) => (e as HTMLElement).innerText));
}

/** The text of the top open panel. */
export const topPanelText = (p: Page) =>
  p.evaluate(() => {
    const l = document.querySelectorAll(".side-panel.open");
    return (l[l.length - 1] as HTMLElement | undefined)?.innerText ?? "";
  });

/** Waits until the top open panel shows `text`. */
export async function waitInTopPanel(p: Page, text: string, timeout = 15_000): Promise<void> {
  await p.waitForFunction(
    (t) => {
      const l = document.querySelectorAll(".side-panel.open");
      return (l[l.length - 1] as HTMLElement | undefined)?.innerText.includes(t) ?? false;
    },
    { timeout },
    text,
  );
}

/** Goes back out of every open panel. */
export async function closeAll(p: Page): Promise<void> {
  while ((await p.$$(".side-panel.open")).length) {
    await inTopPanel(p, "Back").catch(() => {});
    await new Promise((r) => setTimeout(r, 350));
  }
  await panelsClosed(p);
}

/**
 * Taps the first `selector` row whose text shows `text` (waiting for it; found and tapped in
 * one step, so a re-render between cannot hand over another row) and waits for a panel.
 */
export async function openRow(p: Page, selector: string, text: string): Promise<void> {
  await p.waitForFunction(
    (s, t) =>
      [...document.querySelectorAll(s)].some((e) => (e as HTMLElement).innerText.includes(t)),
    {},
    selector,
    text,
  );
  await p.evaluate(
    (s, t) => {
      const row = [...document.querySelectorAll(s)].find((e) =>
        (e as HTMLElement).innerText.includes(t)
      );
      (row as HTMLElement).click();
    },
    selector,
    text,
  );
  await p.waitForFunction(() => document.querySelectorAll(".side-panel.open").length > 0);
}

/** Selects a tab of the main screen by its name. */
export async function mainTab(p: Page, name: string): Promise<void> {
  await p.locator(`::-p-aria([name="${name}"][role="tab"])`).click();
}

/** The file input inside the top panel's label `label` (a chooser styled as a button). */
export async function fileInput(p: Page, label: string): Promise<ElementHandle<HTMLInputElement>> {
  const h = await p.waitForFunction(
    (n) => {
      const panels = document.querySelectorAll(".side-panel.open");
      const root = panels[panels.length - 1];
      const l = [...(root?.querySelectorAll("label") ?? [])].find((x) =>
        x.textContent?.trim() === n
      );
      return l?.querySelector("input[type=file]") ?? null;
    },
    {},
    label,
  );
  return h.asElement() as ElementHandle<HTMLInputElement>;
}
