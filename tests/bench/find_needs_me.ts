/**
 * Bench "find what needs me" (spec §2 Transactions badge, §5 missing receipts): a card holder
 * with 80 card transactions over a month, every one with its receipt but one bought 3 days ago
 * (not yet due, so no block and no overdue mark). From the unlocked main screen (Requests tab,
 * after the PIN), the taps and seconds until that transaction's detail is open: tap the
 * Transactions tab with the badge, tap the first row of "Needs a receipt". Five rounds, median
 * printed; taps counted as the puppeteer clicks made.
 *
 * Run alone: `deno run -A tests/bench/find_needs_me.ts` (after `deno task build`).
 */
import type { Page } from "puppeteer-core";
import { activate, start, tapDigits } from "../e2e/harness.ts";
import { DEMO } from "../helpers.ts";
import { transactionRecord } from "../server/transaction_records.ts";

const HOUR = 3_600_000;
const ROUNDS = 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function unlocked(p: Page): Promise<void> {
  await p.reload();
  await p.waitForSelector(".pin-keys");
  await tapDigits(p, "135790");
  await p.locator("::-p-aria(Open menu)").wait();
  await p.waitForSelector("#nav-tab-transactions .badge");
}

for (const flavour of ["preact", "react"] as const) {
  const env = await start(flavour);
  try {
    const p = await activate(env, DEMO.employee);
    const user = (await env.deps.store.users.byEmail(DEMO.employee))!;
    const { transactions, kv } = env.deps.store;
    const now = Date.now();
    for (let i = 0; i < 80; i++) {
      const at = now - (i + 1) * 9 * HOUR;
      const needs = i === 8; // 3 days ago: under "Last week" by date
      const t = transactionRecord(user.oid, {
        createdAt: at,
        capturedAt: at,
        updatedAt: at,
        merchantname: needs ? "Needs Me Bistro" : `Shop ${i}`,
        nbReceipts: needs ? 0 : 1,
      });
      await transactions.put(kv.atomic(), t).commit();
    }
    const taps: number[] = [];
    const seconds: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await unlocked(p);
      let n = 0;
      const t0 = performance.now();
      await p.locator('::-p-aria([name="Transactions"][role="tab"])').click();
      n++;
      await p.locator(".tx-needs-receipt .tx-row").click();
      n++;
      await p.waitForFunction(() =>
        [...document.querySelectorAll(".side-panel.open")].some((e) =>
          (e as HTMLElement).innerText.includes("Needs Me Bistro") &&
          (e as HTMLElement).innerText.includes("Receipt due")
        )
      );
      seconds.push((performance.now() - t0) / 1000);
      taps.push(n);
    }
    console.log(
      `[${flavour}] find what needs me: ${median(taps)} taps, ${
        median(seconds).toFixed(2)
      } s median (${seconds.map((s) => s.toFixed(2)).join(", ")}) from the unlocked main ` +
        `screen to the open transaction that needs a receipt (80 transactions, 1 needing one)`,
    );
  } finally {
    await env.close();
  }
}
