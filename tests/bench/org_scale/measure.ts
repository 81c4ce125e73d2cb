/**
 * The scale curves' measurements (issue 40): each line is the p50/p95 of a few calls on the
 * seeded organisation, through the app in this process (routes: bearer, checks, JSON) or the
 * domain's entry point for what a job runs. A line whose single call takes over SLOW_MS stops
 * early (its figure stands on fewer samples, printed).
 */
import type { TestApi } from "../../helpers.ts";
import { sendActivation } from "../../../server/domain/activation.ts";
import { purchase } from "../../../server/domain/purchases.ts";
import { PurchaseInput } from "../../../server/domain/purchase_input.ts";
import { runReminders } from "../../../server/reminders/receipts.ts";
import { checkOverdue } from "../../../server/push/overdue.ts";
import { reconcileAuthorizations } from "../../../server/domain/issuer_reconcile.ts";
import { leaveUser } from "../../../server/domain/leavers.ts";
import { exportAccounting } from "../../../server/export/run.ts";
import { CHANGE_STREAM_PATH } from "../../../client/shared/contract/changes.ts";
import type { RequestRecord } from "../../../server/store/requests.ts";
import { APPROVER, BIG, SMALL, takeOpen } from "./seed.ts";
import { emailOf, USERS } from "./org.ts";

export interface Figure {
  p50: number;
  p95: number;
  n: number;
  /** What else the line says (rows exported, memory). */
  note?: string;
}
export type Figures = Record<string, Figure>;

const SLOW_MS = 20_000;
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const figure = (xs: number[], note?: string): Figure => ({
  p50: sorted(xs)[Math.floor(xs.length / 2)],
  p95: sorted(xs)[Math.max(0, Math.ceil(xs.length * 0.95) - 1)],
  n: xs.length,
  note,
});

/** `n` timed calls of `f` after `warm` untimed ones. */
async function timed(n: number, f: (i: number) => Promise<unknown>, warm = 1): Promise<number[]> {
  for (let i = 0; i < warm; i++) await f(-1 - i);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await f(i);
    out.push(performance.now() - t0);
    if (out.at(-1)! > SLOW_MS) break;
  }
  return out;
}

interface Callers {
  small: Record<string, string>;
  big: Record<string, string>;
  approver: Record<string, string>;
  finance: Record<string, string>;
}

const tokens = new Map<TestApi, Callers>();

/** Bearer headers of the four callers (activated once per app). */
async function callers(api: TestApi): Promise<Callers> {
  const have = tokens.get(api);
  if (have) return have;
  const h = async (email: string) => {
    const u = (await api.deps.store.users.byEmail(email))!;
    await sendActivation(api.deps, u);
    const { token, deviceId } = await api.activate(email);
    return { authorization: `Bearer ${token}`, "device-id": deviceId };
  };
  const c = {
    small: await h(SMALL),
    big: await h(BIG),
    approver: await h(APPROVER),
    finance: await h(emailOf(199)),
  };
  tokens.set(api, c);
  return c;
}

async function ok(
  api: TestApi,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
) {
  const r = await api.call(method, path, { headers, body });
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text.slice(0, 200)}`);
  return r;
}

const E = "/scmapi/expense";
const A = "/scmapi/approval";

export async function measureAll(api: TestApi, log: (s: string) => void): Promise<Figures> {
  const { deps } = api;
  const c = await callers(api);
  const out: Figures = {};
  const put = (name: string, xs: number[], note?: string) => {
    out[name] = figure(xs, note);
    const f = out[name];
    log(
      `    ${name.padEnd(34)} p50 ${f.p50.toFixed(1).padStart(9)} ms  p95 ${
        f.p95.toFixed(1).padStart(9)
      } ms  (${f.n})${note ? "  " + note : ""}`,
    );
  };
  put("pwalists, holder (10 own)", await timed(30, () => ok(api, "GET", `${E}/pwalists`, c.small)));
  put(
    "pwalists, holder (5,000 own)",
    await timed(20, () => ok(api, "GET", `${E}/pwalists`, c.big)),
  );
  put(
    "pwalistrequests, approver",
    await timed(10, () => ok(api, "GET", `${A}/pwalistrequests`, c.approver)),
  );
  const bigUser = (await deps.store.users.byEmail(BIG))!;
  const txs = await deps.store.transactions.byUser(bigUser.oid);
  put(
    "transaction detail",
    await timed(
      30,
      (i) => ok(api, "GET", `${E}/pwatransaction?oid=${txs[(i + 7) * 13 % txs.length].oid}`, c.big),
    ),
  );
  put(
    "approve (level 1 of 3)",
    await timed(10, async () => {
      const oid = await takeOpen(deps);
      if (!oid) throw new Error("no open approval left");
      await ok(api, "POST", `${A}/pwaapprove`, c.approver, {
        oid,
        archive: false,
        isDelegated: false,
      });
    }),
  );
  // Purchases go to a third person's card (the first of u00002… holding one), so that the two
  // callers' own data stays what their lines say.
  const { card, headers: buyer } = await buyerOf(api);
  put(
    "purchase at the issuer",
    await timed(20, (i) =>
      purchase(
        deps,
        PurchaseInput.parse({
          card: card.card!.token,
          amount: (1 + (i + 2) / 100).toFixed(2),
          merchantName: `Bench ${i}`,
          capture: true,
        }),
      )),
  );
  put("receipt reminders sweep", await timed(3, () => runReminders(deps, { push: true })));
  put("push-overdue sweep", await timed(3, () => checkOverdue(deps)));
  put("issuer reconciliation tick", await timed(5, () => reconcileAuthorizations(deps)));
  // One month of the organisation's card spend, CSV, as the finance team exports it.
  const month = new Date(deps.now() - 60 * 86_400_000).toISOString().slice(0, 7);
  const last = new Date(Date.UTC(+month.slice(0, 4), +month.slice(5, 7), 0)).toISOString().slice(
    0,
    10,
  );
  let bytes = 0, heap = 0;
  put(
    "export of one month (CSV)",
    await timed(3, async () => {
      const h0 = Deno.memoryUsage().heapUsed;
      const file = await exportAccounting(deps, {
        oid: null,
        name: "bench",
        locale: "en",
        scope: { accounts: null },
      }, { from: `${month}-01`, to: last, formats: ["csv"] });
      bytes = 0;
      for await (const b of file.body) {
        bytes += b.length;
        heap = Math.max(heap, Deno.memoryUsage().heapUsed - h0);
      }
    }, 0),
    `${(bytes / 1024).toFixed(0)} KB, heap +${(heap / 1048576).toFixed(0)} MB`,
  );
  // People sync: one leaver with cards (a different person each time).
  let pick = (await deps.store.kv.get<number>(["bench_scale", "leavers"])).value ?? 5_000;
  put(
    "people sync: one leaver",
    await timed(5, async () => {
      let u = null;
      while (!u || u.leftAt) u = await deps.store.users.byEmail(emailOf(pick++ % USERS));
      await leaveUser(deps, u.oid, undefined, () => {});
    }, 0),
  );
  await deps.store.kv.set(["bench_scale", "leavers"], pick);
  ended = 0;
  const fan = await timed(5, () => fanOut(api, buyer, card), 1);
  put("live fan-out: one change, 50 streams", fan, ended ? `${ended} stream(s) ended first` : "");
  return out;
}

const buyers = new Map<TestApi, { card: RequestRecord; headers: Record<string, string> }>();
/** The first person after the two callers who holds a card: its card and bearer headers. */
async function buyerOf(api: TestApi) {
  const have = buyers.get(api);
  if (have) return have;
  for (let i = 2; i < USERS; i++) {
    const u = await api.deps.store.users.byEmail(emailOf(i));
    const card = u && (await api.deps.store.requests.byUser(u.oid)).find((r) => r.card);
    if (!u || !card) continue;
    await sendActivation(api.deps, u);
    const { token, deviceId } = await api.activate(u.email);
    const b = { card, headers: { authorization: `Bearer ${token}`, "device-id": deviceId } };
    buyers.set(api, b);
    return b;
  }
  throw new Error("nobody holds a card");
}

/**
 * 50 open change streams of one person (in this process); one purchase on their card; the time
 * until every stream has its event.
 */
let ended = 0;
async function fanOut(api: TestApi, h: Record<string, string>, card: RequestRecord): Promise<void> {
  const streams = await Promise.all(Array.from({ length: 50 }, async () => {
    const ctl = new AbortController();
    const res = await api.app.request(`/bonita${CHANGE_STREAM_PATH}`, {
      headers: h,
      signal: ctl.signal,
    });
    if (res.status !== 200 || !res.body) throw new Error(`stream ${res.status}`);
    const reader = res.body.getReader();
    return { ctl, reader };
  }));
  // Each stream's first chunk (its hello) before the change.
  await Promise.all(streams.map((s) => s.reader.read()));
  const got = streams.map(async (s) => {
    const dec = new TextDecoder();
    for (;;) {
      const { value, done } = await s.reader.read();
      // The server ends a stream when a read of the store fails (the phone reconnects): counted.
      if (done) return void ended++;
      if (/transaction/.test(dec.decode(value))) return;
    }
  });
  await purchase(
    api.deps,
    PurchaseInput.parse({ card: card.card!.token, amount: "1.50", merchantName: "Fan-out" }),
  );
  await Promise.all(got);
  for (const s of streams) {
    s.ctl.abort();
    await s.reader.cancel().catch(() => {});
  }
}
