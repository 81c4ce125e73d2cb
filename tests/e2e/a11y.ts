/**
 * Accessibility checks the browser tests run on the screens they visit: axe-core (the npm
 * package, its axe.min.js injected into the page) with the WCAG 2.0/2.1 A and AA rules must
 * find nothing, and no screen may be wider than the 360 px viewport.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";

let source: string | null = null;
async function axeSource(): Promise<string> {
  source ??= await Deno.readTextFile(
    new URL("../../node_modules/axe-core/axe.min.js", import.meta.url),
  );
  return source;
}

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/**
 * Runs axe (WCAG 2.1 AA) on the page as it is now; fails with every violation listed.
 * Panels sliding are waited for first (a half-moved panel overlaps what is beneath it), and
 * transitions and animations are held at their end while axe reads the page: a notice fading
 * in or out while axe runs (a second or more on a busy machine) would read as too little
 * contrast, which no user sees for more than a fifth of a second.
 */
export async function expectAccessible(page: Page, where: string): Promise<void> {
  // A constructed style sheet (CSSOM, which the app's style-src policy does not refuse).
  const still = await page.evaluateHandle(() => {
    const s = new CSSStyleSheet();
    s.replaceSync("*,*::before,*::after{transition:none!important;animation:none!important}");
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, s];
    return s;
  });
  try {
    await checkAxe(page, where);
  } finally {
    await page.evaluate((s) => {
      document.adoptedStyleSheets = document.adoptedStyleSheets.filter((x) => x !== s);
    }, still).catch(() => {});
    await still.dispose().catch(() => {});
  }
}

async function checkAxe(page: Page, where: string): Promise<void> {
  await page.waitForFunction(() =>
    [...document.querySelectorAll(".side-panel")].every((e) => {
      const m = getComputedStyle(e).transform;
      return !e.classList.contains("open") || m === "none" || m === "matrix(1, 0, 0, 1, 0, 0)";
    })
  );
  if (!(await page.evaluate(() => "axe" in globalThis))) {
    await page.evaluate(await axeSource());
  }
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as {
      axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: Violation[] }> };
    }).axe;
    const r = await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
      resultTypes: ["violations"],
    });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => ({
        target: n.target,
        failureSummary: n.failureSummary,
      })),
    }));
  });
  assert.deepEqual(
    violations,
    [],
    `axe on ${where}:\n${
      violations.map((v) =>
        `${v.id} (${v.impact}): ${v.help}\n${
          v.nodes.map((n) => `  ${n.target.join(" ")}: ${n.failureSummary ?? ""}`).join("\n")
        }`
      ).join("\n")
    }`,
  );
}

/**
 * Nothing scrolls sideways at the viewport's width: not the page, not a panel or any box
 * that scrolls (its content wider than itself).
 */
export async function expectNoSideScroll(page: Page, where: string): Promise<void> {
  const wide = await page.evaluate(() => {
    const name = (e: Element) => `${e.tagName.toLowerCase()}.${e.className}`;
    const root = document.documentElement;
    const out = root.scrollWidth > root.clientWidth ? [`page ${root.scrollWidth}px`] : [];
    for (const e of document.querySelectorAll("body *")) {
      const x = getComputedStyle(e).overflowX;
      if ((x === "auto" || x === "scroll") && e.scrollWidth > e.clientWidth + 1) {
        out.push(`${name(e)} ${e.scrollWidth}px > ${e.clientWidth}px`);
      }
    }
    return out.slice(0, 5);
  });
  assert.deepEqual(wide, [], `${where} is wider than the viewport`);
}
