/**
 * Bench (card transactions): (1) authorization decisions of the issuer simulator — latency one at a
 * time (median, p95) and decisions per second with 50 concurrent callers, on 50 cards and all on
 * one card (every decision a checked write on that card) — next to a bare Deno.Kv get + checked
 * atomic set in the same run, and a purchase through the app's test mode (decision + the app's
 * transaction); (2) pwalists for a user with 2,000 requests and 5,000 transactions against a bare
 * Deno.serve sending the same bytes, uncompressed and gzip; (3) the time a first start spends
 * seeding the lived-in demo (DEMO_HISTORY).
 *
 * Run alone: `deno run -A tests/bench/transactions.ts`.
 */
import { gzipSync } from "node:zlib";
import { createIssuer, type Issuer, loadIssuerKey } from "../../server/issuer/mod.ts";
import { DEMO, testApp } from "../helpers.ts";
import { transactionRecord } from "../server/transaction_records.ts";
import { load as loadFor } from "./pwalists.ts";
import { seedRequests } from "./seed.ts";

type Line = (name: string, value: string, budget?: string) => void;

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)];
const p95 = (xs: number[]) => sorted(xs)[Math.ceil(xs.length * 0.95) - 1];
const msf = (t: number) => `${t.toFixed(t < 10 ? 3 : 1)} ms`;
const KB = (n: number) => `${(n / 1024).toFixed(0)} KB`;
const SHOP = { name: "Bench shop", city: "Lyon", country: "FR", mcc: "5812" };

async function card(issuer: Issuer, i: number, amount = 1_000_000_000) {
  return await issuer.createCard({
    idempotencyKey: `bench-${i}`,
    cardholderName: "Bench Holder",
    brand: "visa",
    currency: "EUR",
    amount,
    validUntil: "2099-12-31",
    metadata: {},
  });
}

async function decisions(line: Line) {
  const kv = await Deno.openKv(":memory:");
  const key = await loadIssuerKey({ APP_ENV: "development", KV_PATH: ":memory:", onDeploy: false });
  const issuer = createIssuer("simulator", { kv, key, now: Date.now });
  try {
    const one = await card(issuer, 0);
    const buy = (token: string) =>
      issuer.authorize({ token, amount: 100, currency: "USD", merchant: SHOP, capture: true });
    const lat: number[] = [];
    for (let i = 0; i < 1_100; i++) {
      const t0 = performance.now();
      await buy(one.token);
      if (i >= 100) lat.push(performance.now() - t0);
    }
    const cards = await Promise.all(Array.from({ length: 50 }, (_, i) => card(issuer, i + 1)));
    const rate = async (tokens: string[], each: number) => {
      const t0 = performance.now();
      await Promise.all(tokens.map(async (t) => {
        for (let i = 0; i < each; i++) await buy(t);
      }));
      return (tokens.length * each) / ((performance.now() - t0) / 1000);
    };
    await rate(cards.slice(0, 10).map((c) => c.token), 10); // warm-up
    const spread = await rate(cards.map((c) => c.token), 40);
    const hot = await rate(Array(50).fill(one.token), 10);
    const bare: number[] = [];
    for (let i = 0; i < 2_000; i++) {
      const t0 = performance.now();
      const cur = await kv.get(["bench", i % 50]);
      await kv.atomic().check(cur).set(["bench", i % 50], { n: i }).commit();
      bare.push(performance.now() - t0);
    }
    const b = median(bare);
    line(
      "authorization decision (issuer simulator), median",
      msf(median(lat)),
      `p95 ${msf(p95(lat))}; ${(median(lat) / b).toFixed(1)}× a bare KV checked write; ` +
        `${(1000 / median(lat)).toFixed(0)}/s one at a time`,
    );
    line(
      "  decisions/s, 50 callers on 50 cards",
      `${spread.toFixed(0)} /s`,
      `bare KV checked writes one at a time ${(1000 / b).toFixed(0)}/s`,
    );
    line("  decisions/s, 50 callers on one card (contended)", `${hot.toFixed(0)} /s`);
    line("  bare Deno.Kv get + checked atomic set, median", msf(b), `p95 ${msf(p95(bare))}`);
  } finally {
    kv.close();
  }
}

/** A purchase through /_issuer: the decision and the app's transaction record. */
async function purchases(line: Line) {
  const api = await testApp({ CHECK_RESPONSES: "false" });
  try {
    const [r] = await seedRequests(api.deps, DEMO.employee, 1);
    const c = await api.deps.issuer.createCard({
      idempotencyKey: `request:${r.oid}`,
      cardholderName: "Emma Laurent",
      brand: "visa",
      currency: "EUR",
      amount: 1_000_000_000,
      validUntil: "2099-12-31",
      metadata: { requestOid: r.oid, requestId: r.id, userOid: r.authorOid },
    });
    const lat: number[] = [];
    for (let i = 0; i < 330; i++) {
      const t0 = performance.now();
      const res = await api.app.request("/_issuer/purchase", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({
          card: c.last4,
          amount: "1.50",
          merchantName: "Bench",
          capture: true,
        }),
      }, { remoteAddr: { hostname: "127.0.0.1" } });
      if (res.status !== 200) throw new Error(`purchase ${res.status}: ${await res.text()}`);
      await res.body?.cancel();
      if (i >= 30) lat.push(performance.now() - t0);
    }
    line(
      "purchase through /_issuer (decision + app record), median",
      msf(median(lat)),
      `p95 ${msf(p95(lat))}`,
    );
  } finally {
    await api.close();
  }
}

const STATUSES = ["Captured", "Captured", "Captured", "Authorised", "Refused", "Moved"];

/** pwalists of a user with 2,000 requests and 5,000 transactions vs bare Deno.serve. */
async function lists(line: Line) {
  const api = await testApp({ CHECK_RESPONSES: "false" });
  const servers: Deno.HttpServer[] = [];
  try {
    const reqs = await seedRequests(api.deps, DEMO.employee, 2_000);
    const user = (await api.deps.store.users.byEmail(DEMO.employee))!;
    const { transactions, kv } = api.deps.store;
    const now = Date.now();
    for (let i = 0; i < 5_000; i += 100) {
      const op = kv.atomic();
      for (let j = i; j < i + 100; j++) {
        const r = reqs[j % 200];
        const status = STATUSES[j % STATUSES.length];
        const at = now - j * 3_600_000;
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
            originalAmount: 100 + (j * 37) % 50_000,
            nbReceipts: j % 3 ? 1 : 0,
            refusedReason: status === "Refused" ? "MCC blocked/not allowed on this card" : null,
          }),
        );
      }
      if (!(await op.commit()).ok) throw new Error("seeding transactions failed");
    }
    const serve = (handler: Deno.ServeHandler) => {
      const s = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, handler);
      servers.push(s);
      return `http://127.0.0.1:${s.addr.port}`;
    };
    const ours = serve((req, info) => api.app.fetch(req, { remoteAddr: info.remoteAddr }));
    const path = "/bonita/scmapi/expense/pwalists";
    const { token } = await api.activate(DEMO.employee);
    // Requests per second from 8 concurrent loops (pwalists.ts), after half a second of warm-up.
    const load = async (url: string, headers: HeadersInit, seconds = 3) => {
      await loadFor(url, headers, 0.5);
      return (await loadFor(url, headers, seconds)).perS;
    };
    const auth = { authorization: `Bearer ${token}` };
    const first = await fetch(`${ours}${path}`, {
      headers: { ...auth, "accept-encoding": "identity" },
    });
    const body = new Uint8Array(await first.arrayBuffer());
    const parsed = JSON.parse(new TextDecoder().decode(body));
    const count = `${parsed.expenses.expenseslist.length} requests, ` +
      `${parsed.transactions.receiptslist.length} transactions`;
    const packed = gzipSync(body, { level: 6 });
    const json = { "content-type": "application/json" };
    const bare = serve(() => new Response(body, { headers: json }));
    const bareGz = serve(() =>
      new Response(packed, { headers: { ...json, "content-encoding": "gzip" } })
    );
    const a = await load(`${ours}${path}`, { ...auth, "accept-encoding": "identity" });
    const b = await load(`${bare}${path}`, { "accept-encoding": "identity" });
    line(
      "pwalists, 2,000 requests + 5,000 transactions",
      `${a.toFixed(1)} req/s`,
      `bare Deno.serve ${b.toFixed(1)} req/s, ours/bare ${(a / b).toFixed(2)} (${count}, ` +
        `${KB(body.length)} uncompressed)`,
    );
    const g = await load(`${ours}${path}`, { ...auth, "accept-encoding": "gzip" });
    const h = await load(`${bareGz}${path}`, { "accept-encoding": "gzip" });
    line(
      "  the same, gzip (as browsers ask)",
      `${g.toFixed(1)} req/s`,
      `bare Deno.serve ${h.toFixed(1)} req/s with the same gzip bytes, ours/bare ` +
        `${(g / h).toFixed(2)} (${KB(packed.length)} on the wire)`,
    );
  } finally {
    for (const s of servers) await s.shutdown();
    await api.close();
  }
}

/** The lived-in demo (DEMO_HISTORY): how long a first start spends seeding it. */
async function demoHistory(line: Line) {
  const took: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const api = await testApp({ DEMO_HISTORY: "true", CHECK_RESPONSES: "false" });
    took.push(performance.now() - t0);
    await api.close();
  }
  line("demo history: app + seeded history, first start", msf(median(took)), "median of 5");
}

export async function benchTransactions(line: Line): Promise<void> {
  await decisions(line);
  await purchases(line);
  await lists(line);
  await demoHistory(line);
}

if (import.meta.main) {
  const line: Line = (name, value, budget = "") =>
    console.log(`${name.padEnd(52)} ${value.padStart(12)}  ${budget}`);
  await benchTransactions(line);
}
