/**
 * Bench (card transactions): the Transactions tab of a user with 5,000 card transactions, shown
 * from the encrypted cache (offline reload, unlock, the tab named by the address '#transactions').
 * Measured like the Requests list from cache (tests/bench/run.ts), by the app's own marks: from
 * before the cache read (IndexedDB + AES-GCM decrypt + parse) to after the browser painted the
 * tab's rows (grouping, search filter, first rows rendered).
 *
 * Run alone: `deno run -A tests/bench/transactions_tab.ts` (after `deno task build`).
 */
import { activate, start, tapDigits, waitText } from "../e2e/harness.ts";
import { DEMO } from "../helpers.ts";
import { transactionRecord } from "../server/transaction_records.ts";
import { seedRequests } from "./seed.ts";

type Line = (name: string, value: string, budget?: string) => void;

const TRANSACTIONS = 5_000;
const STATUSES = ["Captured", "Captured", "Captured", "Authorised", "Refused", "Moved"];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (xs: number[]) => xs.map((t) => t.toFixed(0)).join(", ");
const KB = (n: number) => `${(n / 1024).toFixed(0)} KB`;

export async function benchTransactionsTab(line: Line): Promise<void> {
  const env = await start("preact");
  try {
    const reqs = await seedRequests(env.deps, DEMO.employee, 200);
    const user = (await env.deps.store.users.byEmail(DEMO.employee))!;
    const { transactions, kv } = env.deps.store;
    const now = Date.now();
    // Spread over about 7 months, an hour apart: every group (Today … Older) is filled.
    for (let i = 0; i < TRANSACTIONS; i += 100) {
      const op = kv.atomic();
      for (let j = i; j < i + 100; j++) {
        const r = reqs[j % reqs.length];
        const status = STATUSES[j % STATUSES.length];
        const at = now - j * 3_600_000;
        const foreign = j % 5 === 0;
        transactions.put(
          op,
          transactionRecord(user.oid, {
            expenseOid: r.oid,
            cardOid: r.oid,
            cardId: r.id,
            transactionStatus: status,
            createdAt: at,
            capturedAt: status === "Captured" ? at : null,
            merchantname: `Merchant ${j % 97}`,
            amount: 100 + (j * 37) % 50_000,
            originalAmount: foreign ? 120 + (j * 37) % 60_000 : 100 + (j * 37) % 50_000,
            originalCurrency: foreign ? "USD" : "EUR",
            nbReceipts: j % 3 ? 1 : 0,
            refusedReason: status === "Refused" ? "MCC blocked/not allowed on this card" : null,
          }),
        );
      }
      if (!(await op.commit()).ok) throw new Error("seeding transactions failed");
    }
    const page = await activate(env, DEMO.employee);
    await page.locator(".request-row").wait();
    // Online activation fetched pwalists and wrote it to QCDB; wait for that write.
    // Online activation fetched pwalists and cached it: its requests under 'pwalists', the
    // transactions under 'transactions:head' and 'transactions'; wait for those writes.
    const cachedJson = await page.evaluate(async () => {
      const size = (key: string) =>
        new Promise<number | null>((res, rej) => {
          const r = indexedDB.open("QCDB");
          r.onerror = () => rej(r.error);
          r.onsuccess = () => {
            const db = r.result;
            const g = db.transaction("lists").objectStore("lists").index("key").get(key);
            // base64url ciphertext = JSON bytes + 16-byte GCM tag.
            g.onsuccess = () => (
              db.close(), res(g.result ? Math.floor(g.result.ct.length * 3 / 4) - 16 : null)
            );
            g.onerror = () => (db.close(), rej(g.error));
          };
        });
      for (let i = 0; i < 300; i++) {
        const [lists, head, all] = await Promise.all(
          ["pwalists", "transactions:head", "transactions"].map(size),
        );
        if (lists && head && all) return { lists, head, all };
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error("pwalists never reached the cache");
    });
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => {}));
    // The address names the tab shown after unlock.
    await page.evaluate(() => (location.hash = "transactions"));
    await page.setOfflineMode(true);
    const runs: { total: number; decrypt: number; render: number; rows: number; all: number }[] =
      [];
    try {
      for (let i = 0; i < 5; i++) {
        await page.reload();
        await waitText(page, "Enter your PIN");
        await tapDigits(page, "135790");
        const h = await page.waitForFunction(() => {
          const at = (n: string) => performance.getEntriesByName(n).map((e) => e.startTime);
          const [shown] = at("qc:lists:cache-shown");
          const painted = at("qc:transactions:painted").find((t) => t > shown);
          if (shown === undefined || painted === undefined) return null;
          const [read] = at("qc:lists:cache-read");
          return {
            total: painted - read,
            decrypt: shown - read,
            render: painted - shown,
            rows: document.querySelectorAll(".tx-row").length,
          };
        }, { timeout: 30_000 });
        const first = (await h.jsonValue())!;
        // Then every cached transaction (scrolling and search), read after the first paint.
        const all = await page.waitForFunction(() => {
          const at = (n: string) => performance.getEntriesByName(n).map((e) => e.startTime);
          const [done] = at("qc:transactions:all-shown");
          return done === undefined ? null : done - at("qc:lists:cache-read")[0];
        }, { timeout: 30_000 });
        runs.push({ ...first, all: (await all.jsonValue())! });
      }
    } finally {
      await page.setOfflineMode(false);
    }
    const total = median(runs.map((r) => r.total));
    line(
      `transactions tab from cache (${TRANSACTIONS.toLocaleString("en")} transactions), median`,
      `${total.toFixed(0)} ms`,
      `budget ≤ 150 ms ${total <= 150 ? "(ok)" : "(OVER)"} (${ms(runs.map((r) => r.total))})`,
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
      `of ${TRANSACTIONS} (Moved hidden); cached JSON: requests ${KB(cachedJson.lists)}, ` +
        `newest transactions ${KB(cachedJson.head)}, all ${KB(cachedJson.all)}`,
    );
    line(
      `  all ${TRANSACTIONS.toLocaleString("en")} in the tab (after the first paint), median`,
      `${median(runs.map((r) => r.all)).toFixed(0)} ms`,
      `(${ms(runs.map((r) => r.all))})`,
    );
  } finally {
    await env.close();
  }
}

if (import.meta.main) {
  await benchTransactionsTab((name, value, budget = "") =>
    console.log(`${name.padEnd(52)} ${value.padStart(12)}  ${budget}`)
  );
}
