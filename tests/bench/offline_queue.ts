/**
 * Bench (spec §1 offline): how long the offline write queue takes to replay 100 writes. In the
 * browser (preact build) against the real server: 100 comments are written on a card
 * transaction with the network off (each queued, encrypted, in QCDB), then the network
 * returns and the clock runs from `setOfflineMode(false)` until the server holds all 100
 * and the page shows nothing waiting. Replay is in order, one write after the other, each
 * with its idempotency key (the server stores each answer in KV).
 *
 * Run alone: `deno run -A tests/bench/offline_queue.ts` (after `deno task build`).
 */
import type { Page } from "puppeteer-core";
import { activate, click, dumpOnFailure, start, waitText } from "../e2e/harness.ts";
import { fill, tap } from "../e2e/panels.ts";
import { bearerOf, cardFor, purchase } from "../e2e/transactions_setup.ts";
import { DEMO } from "../helpers.ts";

type Line = (name: string, value: string, budget?: string) => void;

const WRITES = 100;

/** Writes one comment in the open transaction's box and waits until it shows as pending. */
async function comment(p: Page, text: string): Promise<void> {
  // The box is cleared once the previous comment is queued: typing before that loses letters.
  await p.waitForFunction(() =>
    (document.querySelector(".side-panel.open .comment-box textarea") as HTMLTextAreaElement | null)
      ?.value === ""
  );
  await fill(p, "Add a comment", text);
  await tap(p, "Send");
  await p.waitForFunction(
    (t) =>
      [...document.querySelectorAll(".side-panel.open .comment.pending p")].some((e) =>
        e.textContent === t
      ),
    {},
    text,
  );
}

export async function benchOfflineQueue(line: Line): Promise<void> {
  const env = await start("preact");
  try {
    const p = await activate(env, DEMO.employee);
    const h = await bearerOf(p, () => click(p, "Refresh"));
    const card = await cardFor(env, h);
    const tx = await purchase(env, { card: card.oid, amount: "25", merchantName: "Bench Cafe" });
    await click(p, "Refresh");
    await p.locator(`::-p-aria([name="Transactions"][role="tab"])`).click();
    await p.waitForFunction(() =>
      [...document.querySelectorAll(".transactions-tab .tx-row")].some((e) =>
        e.textContent?.includes("Bench Cafe")
      )
    );
    await p.evaluate(() => {
      const row = [...document.querySelectorAll(".transactions-tab .tx-row")].find((e) =>
        e.textContent?.includes("Bench Cafe")
      );
      (row as HTMLElement).click();
    });
    await p.waitForSelector(".side-panel.open .comment-box textarea");

    await p.setOfflineMode(true);
    const q0 = performance.now();
    for (let i = 1; i <= WRITES; i++) {
      await dumpOnFailure(p, () => comment(p, `Bench comment ${i}`));
    }
    const queueMs = performance.now() - q0;
    await waitText(p, `Changes waiting to be sent: ${WRITES}`, 30_000).catch(() => {});

    const count = async () => (await env.deps.store.comments.bySource(tx.transactionOid)).length;
    const t0 = performance.now();
    await p.setOfflineMode(false);
    for (;;) {
      const done = (await count()) === WRITES &&
        await p.evaluate(() => !document.querySelector(".failed-writes"));
      if (done) break;
      if (performance.now() - t0 > 120_000) throw new Error(`replay stuck at ${await count()}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    const replayMs = performance.now() - t0;
    const kept = await env.deps.store.comments.bySource(tx.transactionOid);
    const texts = new Set(kept.map((c) => c.text));
    line(
      `offline queue: replay of ${WRITES} queued comments`,
      `${replayMs.toFixed(0)} ms`,
      `${(replayMs / WRITES).toFixed(1)} ms a write; ${kept.length} on the server, ` +
        `${texts.size} distinct (queued offline in ${
          (queueMs / 1000).toFixed(1)
        } s through the UI)`,
    );
  } finally {
    await env.close();
  }
}

if (import.meta.main) {
  await benchOfflineQueue((name, value, budget = "") =>
    console.log(`${name.padEnd(52)} ${value.padStart(12)}  ${budget}`)
  );
}
