/**
 * `deno task bench`: prints figures, never fails on time (speed is measured here, not in
 * timed tests). Budgets from the issues are printed beside each figure.
 */
import * as esbuild from "esbuild";
import { build } from "../../build.ts";
import { activate, click, start, tapDigits, waitText } from "../e2e/harness.ts";
import { DEMO } from "../helpers.ts";
import { benchAnonymous } from "./anonymous.ts";
import { benchCapture } from "./capture.ts";
import { benchCards } from "./cards.ts";
import { benchCreates } from "./creates.ts";
import { benchDecisions } from "./decisions.ts";
import { benchGuard } from "./guard.ts";
import { benchIssuer } from "./issuer.ts";
import { benchLighthouse } from "./lighthouse.ts";
import { benchMessages } from "./messages.ts";
import { benchOfflineQueue } from "./offline_queue.ts";
import { benchPostgres } from "./postgres.ts";
import { benchPdfFirstPage } from "./pdf_first_page.ts";
import { benchPush } from "./push.ts";
import { benchPwalists } from "./pwalists.ts";
import { benchPurchasePush } from "./purchase_push.ts";
import { benchRelay } from "./relay.ts";
import { benchReceiptCorpus } from "./receipt_corpus.ts";
import { benchReceiptReading } from "./receipt_reading.ts";
import { benchScale } from "./scale.ts";
import { benchTransactions } from "./transactions.ts";
import { benchTransactionsTab } from "./transactions_tab.ts";
import { benchUploads } from "./uploads.ts";
import { benchUploadLoad } from "./upload_load.ts";
import { seedRequests } from "./seed.ts";
import { benchWire } from "./wire.ts";

// `deno task bench scale`: the scale organisation's curves (org_scale/main.ts) and nothing else.
if (Deno.args[0] === "scale") {
  await import("./org_scale/main.ts");
  Deno.exit(0);
}

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
      ? `budget ≤ ${r.budgetGzip / 1024} KB ${
        r.firstLoadJsGzip <= r.budgetGzip ? "(ok)" : "(OVER)"
      }`
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
    await click(page, "Lock");
  }
  line("unlock in the UI: last digit → main screen, median", `${median(ui).toFixed(0)} ms`);
} finally {
  await env.close();
}

// Issue "expense requests": the Requests list of a user with 2,000 requests, shown from the
// encrypted cache (offline reload, unlock). Measured by the app's own marks, from before the
// cache read (IndexedDB + AES-GCM decrypt + parse) to after the browser painted the rows.
const REQUESTS = 2000;
const KB = (n: number) => `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} KB`;
const ms = (xs: number[]) => xs.map((t) => t.toFixed(0)).join(", ");
{
  const env = await start("preact");
  try {
    await seedRequests(env.deps, DEMO.employee, REQUESTS);
    const page = await activate(env, DEMO.employee);
    await page.locator(".request-row").wait();
    // Online activation fetched pwalists and wrote it to QCDB; wait for that write.
    const cachedJson = await page.evaluate(async () => {
      for (let i = 0; i < 300; i++) {
        const blob = await new Promise<{ ct: string } | undefined>((res, rej) => {
          const r = indexedDB.open("QCDB");
          r.onerror = () => rej(r.error);
          r.onsuccess = () => {
            const db = r.result;
            const g = db.transaction("lists").objectStore("lists").index("key").get("pwalists");
            g.onsuccess = () => (db.close(), res(g.result));
            g.onerror = () => (db.close(), rej(g.error));
          };
        });
        // base64url ciphertext = JSON bytes + 16-byte GCM tag.
        if (blob) return Math.floor(blob.ct.length * 3 / 4) - 16;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error("pwalists never reached the cache");
    });
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => {}));
    await page.setOfflineMode(true);
    const runs: { total: number; decrypt: number; render: number; rows: number }[] = [];
    try {
      for (let i = 0; i < 5; i++) {
        await page.reload();
        await waitText(page, "Enter your PIN");
        await tapDigits(page, "135790");
        const h = await page.waitForFunction(() => {
          const at = (n: string) => performance.getEntriesByName(n).map((e) => e.startTime);
          const [shown] = at("qc:lists:cache-shown");
          const painted = at("qc:requests:painted").find((t) => t > shown);
          if (shown === undefined || painted === undefined) return null;
          const [read] = at("qc:lists:cache-read");
          const mark = performance.getEntriesByName("qc:requests:painted")
            .find((e) => e.startTime === painted) as PerformanceMark;
          return {
            total: painted - read,
            decrypt: shown - read,
            render: painted - shown,
            // The rows the painted frame held (more follow right after it).
            rows: (mark.detail as { rows?: number } | null)?.rows ??
              document.querySelectorAll(".request-row").length,
          };
        });
        runs.push((await h.jsonValue())!);
      }
    } finally {
      await page.setOfflineMode(false);
    }
    const total = median(runs.map((r) => r.total));
    line(
      `requests list from cache (2,000 requests), median`,
      `${total.toFixed(0)} ms`,
      `budget ≤ 60 ms ${total <= 60 ? "(ok)" : "(OVER)"} (${ms(runs.map((r) => r.total))})`,
    );
    line(
      "  of which cache read → shown (IDB, decrypt, parse)",
      `${median(runs.map((r) => r.decrypt)).toFixed(0)} ms`,
      `(${ms(runs.map((r) => r.decrypt))})`,
    );
    line(
      "  of which shown → rows painted",
      `${median(runs.map((r) => r.render)).toFixed(0)} ms`,
      `(${ms(runs.map((r) => r.render))})`,
    );
    line(
      "  rows in the DOM at first paint",
      `${runs[0].rows} rows`,
      `of ${REQUESTS}; cached pwalists JSON ${KB(cachedJson)}`,
    );
  } finally {
    await env.close();
  }
}

// Issues "expense requests" and "API overhead": pwalists throughput for a user with 2,000
// requests and for one with nothing, against a bare Deno.serve doing the same store reads and
// JSON, and one sending the same bytes (same process, same load generator, same run).
await benchPwalists(line);

// Approval mode: approve latency and decisions per second on one approval request,
// against a bare Deno.Kv checked atomic write (same process, same run). See decisions.ts.
await benchDecisions(line);
await benchCreates(line);

// PostgreSQL as the store: approve, pwalists with 2,000 requests and 50 concurrent creates on
// KV and on PostgreSQL, and a bare PostgreSQL transaction with the same checks. See postgres.ts.
await benchPostgres(line);

// Bytes on the wire (first load before the PIN pad, pwalists). See wire.ts.
await benchWire(line);

// Messages: queued/s, delivered/s to a local SMTP server, request → inbox. See messages.ts.
await benchMessages(line);

// The connection guard (header and idle timeouts) against plain Deno.serve.
await benchGuard(line);

// Anonymous callers cannot exhaust the server: 60 anonymous upload connections: server RSS growth
// and KV records. See anonymous.ts.
await benchAnonymous(line);

// Virtual cards: the issuer simulator alone, then pwanewqcard and reveal through the app.
await benchIssuer(line);
await benchCards(line);
await benchTransactions(line);

// Card transactions: the Transactions tab from the encrypted cache with 5,000 transactions.
await benchTransactionsTab(line);

// PDF viewer: time to the first PDF page drawn (pdf.js cold, warm, reopened); first-load JS.
await benchPdfFirstPage(line);

// Uploads: a 10 MB upload through the API against raw KV chunk writes. See uploads.ts.
await benchUploads(line);
// 16 concurrent 10 MB uploads to a main.ts on a KV file and on PostgreSQL: time, answers,
// server RSS growth, rollbacks (issue 32 §4). See upload_load.ts.
await benchUploadLoad(line);
await benchCapture(line);
// Receipts read on the device: the corpus of real receipts (share read right, time per file)
// and a 12 MP photo to what was read, in Chromium (first use, after a restart, next photos).
await benchReceiptCorpus(line);
await benchReceiptReading(line);

// Web push: fan-out to a local push service (JWT checked, payload decrypted). See push.ts.
await benchPush(line);
await benchPurchasePush(line);

// The change channel: purchase → row painted, approval → Accepted painted, 500 idle streams on
// one process (RSS, CPU, which streams a change wakes), on KV and PostgreSQL. See live.ts.
await (await import("./live.ts")).benchLive(line);

// Daily use in taps and seconds (browser, both flavours): find what needs me (the Transactions
// badge to the open transaction), approve from the list and the next one. Each prints its own
// lines; see find_needs_me.ts and approve_taps.ts.
await import("./find_needs_me.ts");
await import("./approve_taps.ts");

// Scale out: one process against two on one KV file (reads and writes). See scale.ts.
await benchScale(line);

// Month end: 50,000 transactions with receipts exported (CSV + DATEV + ZIP). See export.ts.
await (await import("./export.ts")).benchExport(line);

// Relay mode: pwalists through an edge in relay mode against the upstream directly. See relay.ts.
await benchRelay(line);

// Offline queue: replay time of 100 writes queued offline, in the browser. See offline_queue.ts.
await benchOfflineQueue(line);

// First load: Lighthouse (mobile) on the PIN pad and the unlocked main screen. See lighthouse.ts.
await benchLighthouse(line);
