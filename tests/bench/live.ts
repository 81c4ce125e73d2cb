/**
 * Bench (the change channel): how soon a change reaches an open screen, and what open streams
 * cost the server.
 *
 * 1. Purchase → row painted on an open Transactions tab: headless Chromium activated as the demo
 *    employee, holding a card, on the Transactions tab; each purchase (issuer test mode, a
 *    merchant name of its own) is timed from just before its `POST /_issuer/purchase` to the
 *    frame after its row entered the DOM (a MutationObserver in the page, then
 *    requestAnimationFrame and a message: the frame that painted it). Beside the page, an HTTP
 *    client of this process reads the same user's stream over a socket: purchase → its SSE
 *    event, the server's share. 20 purchases (one before, not counted), on in-memory Deno KV and
 *    on PostgreSQL (tests/pg.ts), the app served in this process.
 * 2. Final approval → the requester's open Requests list shows it accepted: a request created
 *    and submitted over HTTP (its row shown under New by the stream first); the page then on
 *    the Accepted sub-tab, the only level's decision is recorded through the workflow's entry
 *    point (recordDecision) and timed to the frame that painted the row there with its
 *    "accepted" status, and to the SSE event. 12 requests (one before), both stores.
 * 3. 500 idle streams on one process: main.ts as a subprocess (the connection guard in front,
 *    as served) on a KV file and on PostgreSQL; 499 streams of one user and 1 of another over
 *    raw sockets. Server RSS before and after (KB per stream), the process's CPU time over
 *    10 s of idle (a heartbeat round falls in it), then a change to the lone user (only its
 *    stream may get an event) and one to the 499 (every one of them gets it: fan-out time).
 *    The per-peer connection cap (HTTP_MAX_CONNECTIONS_PER_PEER, 256) is raised for the run:
 *    every socket here comes from 127.0.0.1. Idle CPU counts as ~0 (ok) within 1 % of the
 *    same process's CPU without streams (its own timers).
 *
 * A sample that never arrives (10 s) counts as infinitely late in p50 and p95.
 *
 * Run alone: `deno run -A tests/bench/live.ts` (needs Chromium and dist/preact; PostgreSQL
 * from DATABASE_URL or QCARD_TEST_PG_URL, else a throwaway cluster).
 */
import { recordDecision } from "../../server/domain/requests.ts";
import { activate } from "../e2e/harness.ts";
import { mainTab } from "../e2e/panels.ts";
import { bearerOf, cardFor, postAs, purchase } from "../e2e/transactions_setup.ts";
import { DEMO } from "../helpers.ts";

import {
  APPROVALS,
  armPaint,
  latencyLine,
  Line,
  listen,
  now,
  paintedAt,
  PURCHASES,
  Samples,
  sleep,
  startOn,
  Store,
  storeName,
} from "./live_tools.ts";
import { streamsOn } from "./live_streams.ts";

// ---- 1 and 2: purchase → row, final approval → accepted, in the browser ----

async function browserOn(store: Store, line: Line): Promise<void> {
  const env = await startOn(store);
  const name = storeName(store);
  let events: ReturnType<typeof listen> | null = null;
  try {
    const page = await activate(env, DEMO.employee);
    await page.locator(".request-row, .empty").wait();
    const h = await bearerOf(page, () => page.locator("::-p-aria(Refresh)").click());
    const card = await cardFor(env, h, { amount: 2000 });
    events = listen(env.url, h);
    for (let i = 0; i < 100 && !events.heardAny(); i++) await sleep(50);
    await mainTab(page, "Transactions");
    await sleep(500);

    const painted = new Samples();
    const heard = new Samples();
    const tag = crypto.randomUUID().slice(0, 6);
    for (let i = 0; i <= PURCHASES; i++) {
      const merchant = `Live ${tag} ${String(i).padStart(2, "0")}`;
      await armPaint(page, ".tx-row", merchant);
      const t0 = now();
      const b = await purchase(env, { card: card.oid, amount: "1.25", merchantName: merchant });
      if (!b.approved) throw new Error(`purchase ${i} refused: ${b.refusedReason}`);
      const [p, s] = await Promise.all([paintedAt(page), events.when(b.transactionOid, t0)]);
      painted.add(i, p, t0);
      heard.add(i, s, t0);
      await sleep(300);
    }
    latencyLine(
      line,
      `purchase → row painted, Transactions tab (${name})`,
      painted.xs,
      painted.misses,
    );
    latencyLine(line, `  purchase → SSE event, HTTP client (${name})`, heard.xs, heard.misses);

    await mainTab(page, "Requests");
    await sleep(300);
    const accepted = new Samples();
    const heardA = new Samples();
    const subTab = (name: string) =>
      page.locator(`::-p-aria([name="${name}"][role="tab"])`).click();
    for (let i = 0; i <= APPROVALS; i++) {
      const purpose = `Live approval ${tag} ${String(i).padStart(2, "0")}`;
      await subTab("New");
      await armPaint(page, ".request-row", purpose);
      const { expenseRequest } = await postAs(env, h, "pwaexpenserequestcreate", {
        expenseRequest: {
          typeOid: "type-travel",
          amount: 40 + i,
          purpose,
          costCenterOid: "cc-sales",
          GLOid: "gl-travel",
          projectOid: "prj-crm",
        },
      });
      await postAs(env, h, "pwasubmit", { record: expenseRequest.oid });
      // Its row is under New (brought by the stream) before the decision is timed; the
      // requester then looks at Accepted, where the decision moves it.
      if (await paintedAt(page) === null) throw new Error(`request ${i}: no row under New`);
      const [approval] = await env.deps.store.approvals.byRequest(expenseRequest.oid);
      await subTab("Accepted");
      await sleep(300);
      await armPaint(page, ".request-row", purpose, ".status-accepted");
      const t0 = now();
      const d = await recordDecision(env.deps, approval.oid, "accepted");
      if (d?.status !== "accepted") throw new Error(`request ${i}: ${d?.status}, not accepted`);
      const [p, s] = await Promise.all([paintedAt(page), events.when(expenseRequest.oid, t0)]);
      accepted.add(i, p, t0);
      heardA.add(i, s, t0);
    }
    latencyLine(
      line,
      `approval → Requests › Accepted painted (${name})`,
      accepted.xs,
      accepted.misses,
    );
    latencyLine(
      line,
      `  approval → SSE event, HTTP client (${name})`,
      heardA.xs,
      heardA.misses,
    );
  } finally {
    await events?.close();
    await env.close();
    await env.drop();
  }
}

export async function benchLive(line: Line): Promise<void> {
  for (const store of ["kv", "postgres"] as const) await browserOn(store, line);
  for (const store of ["kv", "postgres"] as const) await streamsOn(store, line);
}

if (import.meta.main) {
  // `live.ts browser|streams|kv|postgres`: a part; `noguard`: 500 streams on a main.ts without
  // its connection guard (what the guard's sockets cost); nothing: all of it.
  const line: Line = (name, value, budget = "") =>
    console.log(`${name.padEnd(52)} ${value.padStart(12)}  ${budget}`);
  const stores: Store[] = ["kv", "postgres"];
  const part = Deno.args[0] ?? "all";
  if (part === "noguard") await streamsOn("kv", line, false);
  for (const s of stores) {
    if (part === "all" || part === "browser" || part === s) await browserOn(s, line);
  }
  for (const s of stores) {
    if (part === "all" || part === "streams" || part === s) await streamsOn(s, line);
  }
}
