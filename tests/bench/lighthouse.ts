/**
 * Bench (first load): Lighthouse 13 with its default mobile settings (a mid-range phone's
 * screen and CPU, simulated slow 4G) on the production preact build:
 *   - the PIN pad on a first visit (fresh profile: nothing cached, no service worker yet):
 *     a navigation, performance, LCP, accessibility, best practices;
 *   - the unlocked main screen of an activated device: the app has no URL for it (spec §2:
 *     no routes; a reload asks for the PIN), so a Lighthouse user flow navigates to the PIN
 *     pad without resetting storage, types the PIN in a timespan (total blocking time, layout
 *     shift of the unlock) and takes a snapshot of the main screen (accessibility, best
 *     practices). Lighthouse has no LCP or performance score for a screen reached by a tap.
 * Goals: performance ≥ 98, accessibility 100; LCP ≤ 0.9 s (median of 3 first visits), TBT
 * ≤ 100 ms and CLS ≤ 0.01 (worst of the 3; the shell paints the first screen without
 * JavaScript). The browser's version is printed first: the figures depend on it.
 *
 * Run alone: `deno run -A tests/bench/lighthouse.ts` (needs Chromium and dist/preact).
 * `LIGHTHOUSE_JSON=DIR` also writes each first visit's Lighthouse result (`pad-<n>.json`) and
 * trace (`pad-<n>.trace.json`, for the Performance panel) and the unlock flow's results
 * (`flow.json`) there: what the simulated LCP and the long tasks are made of.
 */
import lighthouse, { startFlow } from "lighthouse";
import type { Page } from "puppeteer-core";
import { activate, start, tapDigits, waitText } from "../e2e/harness.ts";

type Line = (name: string, value: string, budget?: string) => void;

/** The parts of a Lighthouse result read here. */
interface Lhr {
  categories: Record<string, { score: number | null } | undefined>;
  audits: Record<string, { numericValue?: number; score: number | null } | undefined>;
  runtimeError?: { message: string };
}

const CATEGORIES = ["performance", "accessibility", "best-practices"];
/** Where to keep the raw results, if anywhere (LIGHTHOUSE_JSON). */
const JSON_DIR = Deno.env.get("LIGHTHOUSE_JSON");
const keep = async (name: string, value: unknown) => {
  if (!JSON_DIR) return;
  await Deno.mkdir(JSON_DIR, { recursive: true });
  await Deno.writeTextFile(`${JSON_DIR}/${name}`, JSON.stringify(value));
};
const score = (lhr: Lhr, c: string) => {
  const s = lhr.categories[c]?.score;
  return s === null || s === undefined ? "n/a" : String(Math.round(s * 100));
};
const metric = (lhr: Lhr, id: string, unit: "s" | "ms" | "") => {
  const v = lhr.audits[id]?.numericValue;
  if (v === undefined) return "n/a";
  return unit === "s"
    ? `${(v / 1000).toFixed(2)} s`
    : unit === "ms"
    ? `${v.toFixed(0)} ms`
    : v.toFixed(3);
};
/** The audits of a category that did not pass, with the elements they name. */
const failing = (lhr: Lhr, category: string) =>
  Object.entries(lhr.audits)
    .filter(([, a]) => a && a.score !== null && a.score < 1)
    .map(([id]) => id)
    .filter((id) =>
      (lhr.categories[category] as { auditRefs?: { id: string }[] } | undefined)
        ?.auditRefs?.some((r) => r.id === id)
    )
    .join(", ");

export async function benchLighthouse(line: Line): Promise<void> {
  const env = await start("preact");
  try {
    // The figures depend on the browser (issue 41: Chromium 156 moved LCP by 0.2–0.3 s).
    line(
      "lighthouse browser",
      (await env.browser.version()).replace(/^(Headless)?Chrome\//, "Chromium "),
    );
    // PIN pad, first visit: three runs (fresh profiles), the median LCP's run reported.
    const runs: Lhr[] = [];
    // A run Lighthouse could not trace (NO_NAVSTART, now and then) is tried again.
    for (let i = 0; i < 5 && runs.length < 3; i++) {
      const fresh = await env.newPage();
      // Only Lighthouse's screen (412×823), not also the harness's 360×640: one run's CLS of
      // 0.247 was the whole pad moving 3 ms after the first paint, all parsing done, in a shift
      // the browser flagged as following a resize (had_recent_input), i.e. two emulations.
      await fresh.setViewport(null);
      const run = await lighthouse(
        env.url,
        {
          logLevel: "error",
          output: "json",
          onlyCategories: CATEGORIES,
        },
        undefined,
        fresh as unknown as Parameters<typeof lighthouse>[3],
      );
      const lhr = run?.lhr as unknown as Lhr | undefined;
      await keep(`pad-${i + 1}.json`, run?.lhr);
      await keep(`pad-${i + 1}.trace.json`, run?.artifacts?.Trace);
      if (!lhr || lhr.runtimeError) {
        line("lighthouse PIN pad", "failed", lhr?.runtimeError?.message ?? "no result");
      } else runs.push(lhr);
    }
    const lcpOf = (r: Lhr) => r.audits["largest-contentful-paint"]?.numericValue ?? Infinity;
    runs.sort((a, b) => lcpOf(a) - lcpOf(b));
    const pad = runs[Math.floor(runs.length / 2)];
    if (pad) {
      const perf = Number(score(pad, "performance"));
      const lcp = lcpOf(pad);
      const cls = Math.max(
        ...runs.map((r) => r.audits["cumulative-layout-shift"]?.numericValue ?? 0),
      );
      const tbtOf = (r: Lhr) => r.audits["total-blocking-time"]?.numericValue ?? 0;
      const tbt = Math.max(...runs.map(tbtOf));
      const a11y = Number(score(pad, "accessibility"));
      line(
        "lighthouse PIN pad (first visit, mobile): performance",
        score(pad, "performance"),
        `goal ≥ 98 ${perf >= 98 ? "(ok)" : "(under)"}`,
      );
      line(
        `  LCP, median of ${runs.length}`,
        metric(pad, "largest-contentful-paint", "s"),
        `goal ≤ 0.9 s ${lcp <= 900 ? "(ok)" : "(over)"}; runs ${
          runs.map((r) => (lcpOf(r) / 1000).toFixed(2)).join(", ")
        } s; FCP ${metric(pad, "first-contentful-paint", "s")}, TBT ${
          metric(pad, "total-blocking-time", "ms")
        }`,
      );
      line(
        "  TBT, worst of the runs",
        `${tbt.toFixed(0)} ms`,
        `goal ≤ 100 ms ${tbt <= 100 ? "(ok)" : "(over)"}; runs ${
          runs.map((r) => tbtOf(r).toFixed(0)).join(", ")
        } ms`,
      );
      line(
        "  CLS, worst of the runs",
        cls.toFixed(3),
        `goal ≤ 0.01 ${cls <= 0.01 ? "(ok)" : "(over)"}`,
      );
      line(
        "  accessibility",
        score(pad, "accessibility"),
        `goal 100 ${a11y === 100 ? "(ok)" : `(under: ${failing(pad, "accessibility")})`}`,
      );
      line(
        "  best practices",
        score(pad, "best-practices"),
        failing(pad, "best-practices") || "",
      );
    }

    // The unlocked main screen of an activated device.
    const page: Page = await activate(env, "employee@demo.example");
    const flow = await startFlow(page as unknown as Parameters<typeof startFlow>[0], {
      flags: { logLevel: "error", disableStorageReset: true },
    });
    await flow.navigate(env.url);
    await waitText(page, "Enter your PIN");
    await flow.startTimespan();
    await tapDigits(page, "135790");
    await waitText(page, "Hello Emma");
    await page.locator(".request-row, .empty").wait();
    await flow.endTimespan();
    await flow.snapshot();
    const flowResult = await flow.createFlowResult();
    await keep("flow.json", flowResult);
    const [nav, span, snap] = flowResult.steps.map((s) => s.lhr as unknown as Lhr);
    line(
      "lighthouse repeat start (PIN pad, cached): performance",
      score(nav, "performance"),
      `LCP ${metric(nav, "largest-contentful-paint", "s")}, FCP ${
        metric(nav, "first-contentful-paint", "s")
      }`,
    );
    line(
      "lighthouse unlock (PIN typed → main screen): TBT",
      metric(span, "total-blocking-time", "ms"),
      `CLS ${metric(span, "cumulative-layout-shift", "")}`,
    );
    const a11y = Number(score(snap, "accessibility"));
    line(
      "lighthouse main screen (unlocked): accessibility",
      score(snap, "accessibility"),
      `goal 100 ${a11y === 100 ? "(ok)" : `(under: ${failing(snap, "accessibility")})`}`,
    );
    line(
      "  best practices",
      score(snap, "best-practices"),
      failing(snap, "best-practices") || "",
    );
  } finally {
    await env.close();
  }
}

if (import.meta.main) {
  await benchLighthouse((name, value, budget = "") =>
    console.log(`${name.padEnd(52)} ${value.padStart(12)}  ${budget}`)
  );
}
