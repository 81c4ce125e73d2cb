/**
 * The PostgreSQL store beside Deno KV, in one run (docs/benchmarks.md, "PostgreSQL against
 * Deno KV"): the same app (in-process, `app.request`, demo organisation) on in-memory Deno KV
 * and on the test PostgreSQL (tests/pg.ts: DATABASE_URL, else a throwaway local cluster), then
 * bare baselines — a Deno.Kv get + checked set, and a bare PostgreSQL transaction doing the
 * same checks (read the record and its version, write it back only if the version is
 * unchanged, SERIALIZABLE).
 * The goal: approve on PostgreSQL within 3× that bare transaction. Every figure is printed,
 * within its goal or not; nothing here fails on time.
 */
import postgres from "postgres";
import { serialize } from "node:v8";
import { openPgKv } from "../../server/store/pg_kv.ts";
import { DEMO, type TestApi, testApp } from "../helpers.ts";
import { freshPgUrl } from "../pg.ts";
import { CALLERS, EACH, round } from "./creates.ts";
import { approved, submittedApprovals } from "./decisions.ts";
import { benchPwalists } from "./pwalists.ts";
import { seedRequests } from "./seed.ts";

type Line = (name: string, value: string, note?: string) => void;

const REQUESTS = 2000;
const WARM = 10;
const SAMPLES = 100;
const CREATE_ROUNDS = 3;
const BARE = 1000;
const GOAL = 3;

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)];
const p95 = (xs: number[]) => sorted(xs)[Math.ceil(xs.length * 0.95) - 1];
const msf = (t: number) => `${t.toFixed(t < 10 ? 2 : 1)} ms`;
const times = (x: number) => `${x.toFixed(x < 10 ? 1 : 0)}×`;

async function timed<T>(f: () => Promise<T>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

/** pwalists of a user with 2,000 requests, approve latency, 50 concurrent creates. */
async function onStore(label: string, kv: Deno.Kv, line: Line) {
  const api = await testApp({ CHECK_RESPONSES: "false" }, { kv });
  try {
    await seedRequests(api.deps, DEMO.employee, REQUESTS);
    const emp = (await api.activate(DEMO.employee)).token;
    const fin = (await api.activate(DEMO.approver)).token;
    const mgr = (await api.activate(DEMO.manager)).token;
    await pwalists(label, api, emp, line);

    const oids = await submittedApprovals(api, emp, WARM + SAMPLES);
    for (const oid of oids.slice(0, WARM)) await approved(api, fin, oid);
    const l1: number[] = [];
    for (const oid of oids.slice(WARM)) l1.push(await approved(api, fin, oid));
    line(
      `${label}: approve (level 1 of 2), median`,
      msf(median(l1)),
      `p95 ${msf(p95(l1))}, ${SAMPLES} calls, a fresh approval each`,
    );
    const approval = (await api.deps.store.approvals.get(oids[WARM])).value;

    const tokens = [emp, mgr];
    await round(api, tokens); // warm-up
    const rates: number[] = [];
    const failures: string[] = [];
    for (let r = 0; r < CREATE_ROUNDS; r++) {
      const x = await round(api, tokens);
      rates.push(x.perS);
      failures.push(...x.failures);
    }
    line(
      `${label}: creates, ${CALLERS} concurrent callers`,
      `${median(rates).toFixed(0)} /s`,
      `median of ${CREATE_ROUNDS} rounds of ${CALLERS * EACH}; failed ${failures.length} ` +
        `${failures.length === 0 ? "(ok)" : `(FAILED: ${failures[0]})`}`,
    );
    return { approve: median(l1), p95: p95(l1), approval };
  } finally {
    await api.close();
  }
}

/** pwalists cold (the list read from the store), warm (cache checked), and 8 callers. */
async function pwalists(label: string, api: TestApi, token: string, line: Line) {
  const path = "/bonita/scmapi/expense/pwalists";
  const headers = { authorization: `Bearer ${token}` };
  const get = async () => {
    const res = await api.app.request(path, { headers });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`pwalists ${res.status}: ${body}`);
    return body;
  };
  const rows = (JSON.parse(await get()) as { expenses: { expenseslist: unknown[] } }).expenses
    .expenseslist.length;
  const owner = (await api.deps.store.users.byEmail(DEMO.employee))!.oid;
  const cold: number[] = [];
  for (let i = 0; i < 10; i++) {
    // A write of the list elsewhere: the next read finds a new version and reads it again.
    await api.deps.store.kv.atomic().sum(["request_version", owner], 1n).commit();
    cold.push(await timed(get));
  }
  const warm: number[] = [];
  for (let i = 0; i < 50; i++) warm.push(await timed(get));
  const until = performance.now() + 2_000;
  let n = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (performance.now() < until) {
      await get();
      n++;
    }
  }));
  const rate = n / ((performance.now() - t0) / 1000);
  line(
    `${label}: pwalists, ${rows} requests, list read, median`,
    msf(median(cold)),
    `p95 ${msf(p95(cold))}; cached (version checked) ${msf(median(warm))}; ` +
      `8 callers ${rate.toFixed(0)} req/s`,
  );
}

/** A Deno.Kv get + checked atomic set of one record, BARE times one after another. */
async function kvChecked(kv: Deno.Kv, record: unknown) {
  const key = ["bench", "approval"];
  await kv.set(key, record);
  const once = async (n: number) => {
    const e = await kv.get<Record<string, unknown>>(key);
    const r = await kv.atomic().check(e).set(key, { ...e.value, n }).commit();
    if (!r.ok) throw new Error("a checked write alone lost its check");
  };
  for (let i = 0; i < 100; i++) await once(i);
  const ts: number[] = [];
  for (let i = 0; i < BARE; i++) ts.push(await timed(() => once(i)));
  return ts;
}

/**
 * The bare PostgreSQL transaction: the same checks as the KV baseline, in SQL — read the
 * record and its version, write the changed record back only if the version is still the one
 * read, in a SERIALIZABLE transaction (what makes the store's checks hold under concurrency).
 */
async function pgChecked(url: string, record: unknown) {
  const sql = postgres(url, { max: 1, onnotice: () => {}, fetch_types: false });
  try {
    await sql`CREATE TABLE bench_bare (k text PRIMARY KEY, v bytea NOT NULL, vs bigint NOT NULL)`;
    await sql`INSERT INTO bench_bare VALUES ('approval', ${serialize(record)}, 1)`;
    const once = (n: number) =>
      sql.begin("isolation level serializable", async (tx) => {
        const [r] = await tx<{ v: Uint8Array; vs: string }[]>`
          SELECT v, vs FROM bench_bare WHERE k = 'approval'`;
        const next = serialize({ ...(record as Record<string, unknown>), n });
        const w = await tx`UPDATE bench_bare SET v = ${next}, vs = vs + 1
          WHERE k = 'approval' AND vs = ${r.vs}`;
        if (w.count !== 1) throw new Error("a checked write alone lost its check");
      });
    for (let i = 0; i < 100; i++) await once(i);
    const ts: number[] = [];
    for (let i = 0; i < BARE; i++) ts.push(await timed(() => once(i)));
    return ts;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export async function benchPostgres(line: Line) {
  const kvSide = await onStore("KV", await Deno.openKv(":memory:"), line);
  const pg = await freshPgUrl();
  try {
    const pgSide = await onStore("PostgreSQL", await openPgKv(pg.url, { poolSize: 10 }), line);
    // API overhead on PostgreSQL: pwalists against a bare server doing the same store reads
    // (its own schema: the same demo organisation, seeded afresh).
    const pg2 = await freshPgUrl();
    try {
      const kv = await openPgKv(pg2.url, { poolSize: 10 });
      await benchPwalists(line, { kv, store: "PostgreSQL" });
    } finally {
      await pg2.drop();
    }
    const kv = await Deno.openKv(":memory:");
    const bareKv = await kvChecked(kv, kvSide.approval).finally(() => kv.close());
    const pgKv = await openPgKv(pg.url, { poolSize: 2 });
    const onPgKv = await kvChecked(pgKv, pgSide.approval).finally(() => pgKv.close());
    const barePg = await pgChecked(pg.url, pgSide.approval);
    line(
      "bare Deno.Kv get + checked set, median",
      msf(median(bareKv)),
      `p95 ${msf(p95(bareKv))}, ${BARE} one after another`,
    );
    line(
      "the same on the PostgreSQL store (pg_kv.ts), median",
      msf(median(onPgKv)),
      `p95 ${msf(p95(onPgKv))}`,
    );
    line(
      "bare PostgreSQL transaction, same checks, median",
      msf(median(barePg)),
      `p95 ${msf(p95(barePg))}; SERIALIZABLE: SELECT v, vs; UPDATE … WHERE vs = read`,
    );
    const ratio = pgSide.approve / median(barePg);
    line(
      "approve on PostgreSQL / bare PostgreSQL transaction",
      times(ratio),
      `goal ≤ ${GOAL}× ${ratio <= GOAL ? "(ok)" : "(OVER)"}; on KV approve / bare KV ` +
        `${times(kvSide.approve / median(bareKv))}; on PostgreSQL / the checked write on its ` +
        `store ${times(pgSide.approve / median(onPgKv))}; PostgreSQL / KV approve ` +
        `${times(pgSide.approve / kvSide.approve)}`,
    );
  } finally {
    await pg.drop();
  }
}
