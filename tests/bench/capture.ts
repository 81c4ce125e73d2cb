/**
 * Bench (spec §5 Upload, photos prepared on the device): a 12-megapixel camera JPEG (4000×3000,
 * made in the page with paper, print and sensor noise) through the app's own preparation in
 * headless Chromium, median of 3: bytes and time without Enhance (scaled to 2000 px, JPEG
 * 0.85, preview) and with it (the same, plus the enhanced variant the person sees first).
 *
 * Run alone: `deno run -A tests/bench/part.ts capture` (needs Chromium).
 */
import * as esbuild from "esbuild";
import puppeteer from "puppeteer-core";
import { CHROME_ARGS, chromePath } from "../e2e/harness.ts";

type Line = (name: string, value: string, budget?: string) => void;
interface Figures {
  times: number[];
  bytes: number;
}

const RUNS = 3;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const KB = (n: number) => `${(n / 1024).toFixed(0)} KB`;

export async function benchCapture(line: Line): Promise<void> {
  const entry = await esbuild.build({
    entryPoints: [new URL("./capture_entry.ts", import.meta.url).pathname],
    bundle: true,
    write: false,
    format: "iife",
    minify: true,
  });
  await esbuild.stop();
  const browser = await puppeteer.launch({
    executablePath: chromePath(),
    headless: true,
    args: CHROME_ARGS,
  });
  try {
    const page = await browser.newPage();
    await page.addScriptTag({ content: entry.outputFiles[0].text });
    const r = await page.evaluate(
      (n) =>
        (globalThis as unknown as {
          qcCaptureBench: (n: number) => Promise<
            { input: number; today: Figures; plain: Figures; enhanced: Figures }
          >;
        }).qcCaptureBench(n),
      RUNS,
    );
    const ms = (f: Figures) => `(${f.times.map((t) => t.toFixed(0)).join(", ")} ms)`;
    line("photo 12 MP (4000×3000 JPEG) taken", KB(r.input));
    line(
      "photo prep without Enhance: bytes sent",
      KB(r.plain.bytes),
      `${(100 * r.plain.bytes / r.input).toFixed(0)}% of the photo`,
    );
    line(
      "photo prep without Enhance: time, median",
      `${median(r.plain.times).toFixed(0)} ms`,
      ms(r.plain),
    );
    line(
      "photo prep with Enhance: bytes sent",
      KB(r.enhanced.bytes),
      `${(100 * r.enhanced.bytes / r.input).toFixed(0)}% of the photo`,
    );
    line(
      "photo prep with Enhance (both variants): time, median",
      `${median(r.enhanced.times).toFixed(0)} ms`,
      ms(r.enhanced),
    );
    line(
      "photo prep as a chosen file (prepareImage): time",
      `${median(r.today.times).toFixed(0)} ms`,
      `${KB(r.today.bytes)} ${ms(r.today)}`,
    );
  } finally {
    await browser.close();
  }
}

if (import.meta.main) {
  const line: Line = (name, value, budget = "") =>
    console.log(`${name.padEnd(52)} ${value.padStart(12)}  ${budget}`);
  await benchCapture(line);
}
