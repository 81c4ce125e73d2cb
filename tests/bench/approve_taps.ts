/**
 * Bench "approve from the list" (spec §2 Approvals, approval detail): an approver with five
 * waiting approvals, unlocked on the approvals list. Counted from the first tap until the
 * server holds the decision and the app says so: tap the row, tap Approve in the action bar,
 * tap Approve in the confirm (which names the request). Then "Next" after a decision: one tap
 * to the next waiting approval, and the same two taps to approve it. Taps counted as the
 * puppeteer clicks made; medians printed, both flavours.
 *
 * Run alone: `deno run -A tests/bench/approve_taps.ts` (after `deno task build`).
 */
import type { Page } from "puppeteer-core";
import { activate, click, start, waitText } from "../e2e/harness.ts";
import { bearerOf, postAs } from "../e2e/transactions_setup.ts";
import { DEMO } from "../helpers.ts";

const ROUNDS = 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Approves the open approval: Approve, then the confirm's Approve; until the notice. */
async function approveOpen(p: Page): Promise<number> {
  await p.locator(".side-panel.open .action-bar ::-p-aria(Approve)").click();
  await p.locator(".confirm ::-p-aria(Approve)").click();
  await p.waitForFunction(() =>
    [...document.querySelectorAll(".notice")].some((e) =>
      (e.textContent ?? "").startsWith("Approved:")
    )
  );
  return 2;
}

for (const flavour of ["preact", "react"] as const) {
  const env = await start(flavour);
  try {
    const emp = await activate(env, DEMO.employee);
    await waitText(emp, "No requests here");
    const h = await bearerOf(emp, () => click(emp, "Refresh"));
    for (let i = 0; i < ROUNDS * 2; i++) {
      const { expenseRequest } = await postAs(env, h, "pwaexpenserequestcreate", {
        expenseRequest: {
          typeOid: "type-travel",
          amount: 40 + i,
          purpose: `Taxi ${i + 1}`,
          costCenterOid: "cc-sales",
        },
      });
      await postAs(env, h, "pwasubmit", { record: expenseRequest.oid });
    }
    await emp.close();
    const p = await activate(env, DEMO.approver);
    await p.waitForFunction(() => document.documentElement.dataset.mode === "approval");
    const fromList: number[] = [], fromListTaps: number[] = [];
    const viaNext: number[] = [], viaNextTaps: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await p.waitForSelector(".request-row");
      await p.evaluate(() => new Promise((ok) => setTimeout(ok, 300)));
      let taps = 0;
      const t0 = performance.now();
      await p.locator(".request-row").click();
      taps++;
      taps += await approveOpen(p);
      fromList.push((performance.now() - t0) / 1000);
      fromListTaps.push(taps);
      // Next: the following waiting approval in the same panel.
      await p.locator(".side-panel.open .next-bar ::-p-aria(Next)").wait();
      await p.evaluate(() => new Promise((ok) => setTimeout(ok, 300)));
      taps = 0;
      const t1 = performance.now();
      await p.locator(".side-panel.open .next-bar ::-p-aria(Next)").click();
      taps++;
      await p.locator(".side-panel.open .action-bar ::-p-aria(Approve)").wait();
      taps += await approveOpen(p);
      viaNext.push((performance.now() - t1) / 1000);
      viaNextTaps.push(taps);
      // Back to the list for the next round.
      await p.locator(".side-panel.open .next-bar").wait();
      await p.locator(".side-panel.open ::-p-aria(Back)").click();
      await p.waitForFunction(() => !document.querySelector(".side-panel"));
    }
    const fmt = (xs: number[]) => xs.map((s) => s.toFixed(2)).join(", ");
    console.log(
      `[${flavour}] approve from the list: ${median(fromListTaps)} taps, ${
        median(fromList).toFixed(2)
      } s median (${fmt(fromList)}), row → Approve → confirm, until the app says it is approved`,
    );
    console.log(
      `[${flavour}] approve the next one: ${median(viaNextTaps)} taps, ${
        median(viaNext).toFixed(2)
      } s median (${fmt(viaNext)}), Next → Approve → confirm`,
    );
  } finally {
    await env.close();
  }
}
