/**
 * What runs on the main thread during the first visit (issue 41): one Lighthouse navigation as
 * `lighthouse.ts` runs it (mobile, simulated slow 4G and 4× CPU, fresh profile, production
 * preact build), then a summary of its trace:
 *   - the metrics, simulated (as scored) and observed;
 *   - every top-level task of 10 ms or more (observed; Lantern keeps only those and counts each
 *     4× as long, so one of 12.5 ms or more blocks), in time order, with what ran in it: the
 *     script evaluated or called (its URL), parsing, style and layout, garbage collection;
 *   - Lighthouse's own long-tasks and bootup-time tables.
 * The trace is written to DIR/trace.json (open it in Chrome DevTools' Performance panel).
 *
 *   deno run -A tests/bench/first_screen_profile.ts [DIR]
 */
import lighthouse from "lighthouse";
import { start } from "../e2e/harness.ts";

interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: { data?: Record<string, unknown>; [k: string]: unknown };
}
interface Table {
  details?: { items?: Record<string, unknown>[] };
  numericValue?: number;
}

const dir = Deno.args[0] ?? "/tmp/qcard-first-screen";
await Deno.mkdir(dir, { recursive: true });
const env = await start("preact");
try {
  console.log((await env.browser.version()).replace(/^(Headless)?Chrome\//, "Chromium "));
  const page = await env.newPage();
  const run = await lighthouse(
    env.url,
    { logLevel: "error", output: "json", onlyCategories: ["performance"] },
    undefined,
    page as unknown as Parameters<typeof lighthouse>[3],
  );
  if (!run) throw new Error("no Lighthouse result");
  const lhr = run.lhr as unknown as {
    audits: Record<string, Table>;
    categories: { performance: { score: number } };
  };
  const artifacts = run.artifacts as unknown as { Trace: { traceEvents: TraceEvent[] } };
  const events = artifacts.Trace.traceEvents;
  await Deno.writeTextFile(`${dir}/trace.json`, JSON.stringify({ traceEvents: events }));
  await Deno.writeTextFile(`${dir}/lhr.json`, JSON.stringify(lhr));

  const ms = (v?: number) => v === undefined ? "n/a" : `${v.toFixed(0)} ms`;
  const a = lhr.audits;
  console.log(`performance ${Math.round(lhr.categories.performance.score * 100)}`);
  for (const id of ["first-contentful-paint", "largest-contentful-paint", "total-blocking-time"]) {
    console.log(`  ${id.padEnd(26)} ${ms(a[id].numericValue)} (simulated)`);
  }
  const observed = a["metrics"]?.details?.items?.[0] ?? {};
  for (
    const k of ["observedFirstContentfulPaint", "observedLargestContentfulPaint", "observedLoad"]
  ) {
    console.log(`  ${k.padEnd(26)} ${ms(observed[k] as number)} (observed)`);
  }

  // The renderer's main thread: the one whose navigationStart loaded the app's page.
  const nav = events.find((e) =>
    e.name === "navigationStart" &&
    String(e.args?.data?.documentLoaderURL ?? "").startsWith(env.url)
  );
  if (!nav) throw new Error("no navigationStart for the app in the trace");
  const main = events.filter((e) => e.pid === nav.pid && e.tid === nav.tid);
  const t0 = nav.ts;
  const tasks = main.filter((e) =>
    e.name === "RunTask" && e.ph === "X" && (e.dur ?? 0) >= 10_000 && e.ts >= t0
  );
  console.log(`\ntop-level tasks ≥ 10 ms on the main thread (observed; ×4 when simulated)`);
  for (const task of tasks) {
    const end = task.ts + task.dur!;
    const inside = main.filter((e) => e.ph === "X" && e.ts >= task.ts && e.ts < end && e !== task);
    const parts = new Map<string, number>();
    for (const e of inside) {
      const d = e.args?.data ?? {};
      const what = e.name === "EvaluateScript" || e.name === "v8.compileModule" ||
          e.name === "v8.evaluateModule" || e.name === "FunctionCall" ||
          e.name === "TimerFire" || e.name === "FireAnimationFrame" || e.name === "EventDispatch"
        ? `${e.name} ${String(d.url ?? d.fileName ?? d.type ?? "").replace(env.url, "")}`
        : [
            "ParseHTML",
            "UpdateLayoutTree",
            "Layout",
            "Paint",
            "MajorGC",
            "MinorGC",
            "V8.GC_MC_BACKGROUND_MARKING",
            "ScheduleStyleRecalculation",
            "v8.compile",
            "ParseAuthorStyleSheet",
            "Commit",
            "PrePaint",
            "Layerize",
          ].includes(e.name)
        ? e.name
        : null;
      if (what) parts.set(what, (parts.get(what) ?? 0) + (e.dur ?? 0));
    }
    const top = [...parts].sort((x, y) => y[1] - x[1]).slice(0, 6)
      .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)}`).join("; ");
    console.log(
      `  at ${((task.ts - t0) / 1000).toFixed(0).padStart(5)} ms  ${
        (task.dur! / 1000).toFixed(1).padStart(6)
      } ms  ${top}`,
    );
  }
  for (const id of ["long-tasks", "bootup-time", "mainthread-work-breakdown"]) {
    console.log(`\n${id} (Lighthouse)`);
    for (const item of a[id]?.details?.items ?? []) {
      console.log(
        "  " +
          Object.entries(item).map(([k, v]) =>
            `${k}=${typeof v === "number" ? v.toFixed(0) : String(v).replace(env.url, "")}`
          ).join(" "),
      );
    }
  }
} finally {
  await env.close();
}
