/**
 * `deno task bench`: prints figures, never fails on time (speed is measured here, not in
 * timed tests). Budgets from the issues are printed beside each figure.
 */
import * as esbuild from "esbuild";
import { build } from "../../build.ts";
import { activate, click, start, tapDigits, waitText } from "../e2e/harness.ts";

const root = new URL("../../", import.meta.url).pathname;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const line = (name: string, value: string, budget = "") =>
  console.log(`${name.padEnd(52)} ${value.padStart(12)}  ${budget}`);

console.log("QCard benchmarks\n");
for (const flavour of ["preact", "react"] as const) {
  const r = await build({ flavour, outDir: `${root}dist/${flavour}` });
  line(
    `first-load JS before the PIN pad (${flavour}), gzip`,
    `${(r.firstLoadJsGzip / 1024).toFixed(1)} KB`,
    flavour === "preact"
      ? `budget ≤ 45 KB ${r.firstLoadJsGzip <= 45 * 1024 ? "(ok)" : "(OVER)"}`
      : "",
  );
}
const entry = await esbuild.build({
  entryPoints: [`${root}tests/bench/unlock_entry.ts`],
  bundle: true,
  write: false,
  format: "iife",
  minify: true,
});
await esbuild.stop();

const env = await start("preact");
try {
  const page = await activate(env, "employee@demo.example");
  await page.setBypassCSP(true);
  await page.reload();
  await waitText(page, "Enter your PIN");
  await page.addScriptTag({ content: entry.outputFiles[0].text });
  const r = await page.evaluate(
    (n) =>
      (globalThis as unknown as {
        qcBench: (n: number) => Promise<{ iterations: number; times: number[] }>;
      }).qcBench(n),
    5,
  );
  line(
    `unlock: PIN → key (PBKDF2 ${r.iterations}) → token, median`,
    `${median(r.times).toFixed(0)} ms`,
    `(${r.times.map((t) => t.toFixed(0)).join(", ")})`,
  );
  // The whole unlock as a person sees it: last digit tapped → main screen shown.
  const ui: number[] = [];
  for (let i = 0; i < 3; i++) {
    await page.reload();
    await waitText(page, "Enter your PIN");
    await tapDigits(page, "13579");
    const t0 = performance.now();
    await tapDigits(page, "0");
    await waitText(page, "Hello Emma");
    ui.push(performance.now() - t0);
    await click(page, "Open menu");
    await click(page, "Log out");
  }
  line("unlock in the UI: last digit → main screen, median", `${median(ui).toFixed(0)} ms`);
} finally {
  await env.close();
}
