/**
 * pwalists throughput (issues "expense requests" and "API overhead") for a user with 2,000
 * requests and for a user with nothing, each against two bare `Deno.serve` servers in the same
 * run, same process, same load generator:
 * - "same reads": a bare handler that performs the store reads one pwalists performs for that
 *   user (the same keys, recorded from the app's own KV calls on a warm call: token index,
 *   device, user, then the rest in one getMany) and answers the same JSON
 *   (JSON.stringify of the same answer, the Accept-Encoding the client sent ignored);
 * - "same bytes": a bare handler sending the answer's bytes, no store at all.
 * The goal: ours ≥ 0.5× the "same reads" baseline for both users.
 *
 * Run alone: `deno run -A tests/bench/part.ts pwalists`.
 */
import { DEMO, testApp } from "../helpers.ts";
import { seedRequests } from "./seed.ts";

type Line = (name: string, value: string, note?: string) => void;

const REQUESTS = 2000;
const GOAL = 0.5;
const ROUNDS = 9;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const PATH = "/bonita/scmapi/expense/pwalists";
const KB = (n: number) => `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} KB`;

/** This process's CPU time so far, ms (user + system, /proc/self/stat; 0 elsewhere). */
function cpuMs(): number {
  try {
    const f = Deno.readTextFileSync("/proc/self/stat").split(") ")[1].split(" ");
    return (Number(f[11]) + Number(f[12])) * 10; // clock ticks of 10 ms (USER_HZ 100)
  } catch {
    return 0;
  }
}

/**
 * Requests per second from 8 concurrent loops for `seconds`, and the process's CPU time per
 * request (server and load generator: both sides pay the same generator).
 */
export async function load(url: string, headers: HeadersInit, seconds: number) {
  const loop = async (until: number) => {
    let n = 0;
    while (performance.now() < until) {
      const res = await fetch(url, { headers });
      if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
      await res.arrayBuffer();
      n++;
    }
    return n;
  };
  const t0 = performance.now(), c0 = cpuMs();
  const counts = await Promise.all(Array.from({ length: 8 }, () => loop(t0 + seconds * 1000)));
  const n = counts.reduce((a, b) => a + b, 0);
  return { perS: n / ((performance.now() - t0) / 1000), cpu: (cpuMs() - c0) / n };
}

/** The keys `f` reads through `kv.get`/`getMany`/`list`, in order (patched on the instance). */
async function recordReads(kv: Deno.Kv, f: () => Promise<unknown>) {
  const gets: Deno.KvKey[] = [];
  let lists = 0;
  const self = kv as unknown as Record<string, unknown>;
  const { get, getMany, list } = kv;
  self.get = (key: Deno.KvKey, o?: unknown) => (gets.push(key), get.call(kv, key, o as never));
  self.getMany = (keys: Deno.KvKey[], o?: unknown) => (
    gets.push(...keys), getMany.call(kv, keys, o as never)
  );
  self.list = (s: Deno.KvListSelector, o?: Deno.KvListOptions) => (lists++, list.call(kv, s, o));
  try {
    await f();
  } finally {
    delete self.get, delete self.getMany, delete self.list;
  }
  return { gets, lists };
}

export async function benchPwalists(
  line: Line,
  /** `kv`: another store (the PostgreSQL one, postgres.ts), named `store` in the lines. */
  opts: { users?: string[]; kv?: Deno.Kv; store?: string } = {},
) {
  const on = opts.store ? `${opts.store}: ` : "";
  // As deployed: answers are not re-checked against the contract (a test-time guard).
  const api = await testApp({ CHECK_RESPONSES: "false" }, { kv: opts.kv });
  const kv = api.deps.store.kv;
  const servers: Deno.HttpServer[] = [];
  try {
    await seedRequests(api.deps, DEMO.employee, REQUESTS);
    const serve = (handler: Deno.ServeHandler) => {
      const s = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, handler);
      servers.push(s);
      return `http://127.0.0.1:${s.addr.port}`;
    };
    const ours = serve((req, info) => api.app.fetch(req, { remoteAddr: info.remoteAddr }));

    const pair = async (label: string, email: string) => {
      const { token } = await api.activate(email);
      // Fetch's own Accept-Encoding (gzip, br), as a browser sends.
      const headers = { authorization: `Bearer ${token}` };
      const get = () => fetch(`${ours}${PATH}`, { headers });
      await (await get()).arrayBuffer(); // the token's first use (rotation), lists cached
      let body = "";
      const { gets, lists } = await recordReads(kv, async () => {
        const res = await get();
        body = await res.text();
        if (res.status !== 200) throw new Error(`pwalists ${res.status}: ${body}`);
      });
      const answer = JSON.parse(body) as { expenses: { expenseslist: unknown[] } };
      const rows = answer.expenses.expenseslist.length;
      // The dependent chain (token → device → user) one after another, the rest at once.
      const [tokenKey, deviceKey, userKey] = gets;
      const seen = new Set(gets.slice(0, 3).map((k) => JSON.stringify(k)));
      const rest = gets.filter((k) => {
        const s = JSON.stringify(k);
        return !seen.has(s) && (seen.add(s), true);
      });
      const sameReads = serve(async () => {
        const ref = await kv.get(tokenKey);
        const device = await kv.get(deviceKey);
        const user = await kv.get(userKey);
        const others = await kv.getMany(rest);
        if (!ref.value || !device.value || !user.value || others.length !== rest.length) {
          throw new Error("a read found nothing");
        }
        return new Response(JSON.stringify(answer), {
          headers: { "content-type": "application/json" },
        });
      });
      const sameBytes = serve(() =>
        new Response(body, { headers: { "content-type": "application/json" } })
      );
      // Short rounds interleaved, so a noisy neighbour hits all three alike; medians of the
      // rounds (rates, and the ratios measured within one round).
      for (const u of [ours, sameReads, sameBytes]) await load(`${u}${PATH}`, headers, 0.5);
      const rs: { a: number; r: number; b: number; ca: number; cr: number }[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const a = await load(`${ours}${PATH}`, headers, 0.6);
        const r = await load(`${sameReads}${PATH}`, {}, 0.6);
        const b = await load(`${sameBytes}${PATH}`, {}, 0.6);
        rs.push({ a: a.perS, r: r.perS, b: b.perS, ca: a.cpu, cr: r.cpu });
      }
      const med = (f: (x: typeof rs[number]) => number) => median(rs.map(f));
      const a = med((x) => x.a), r = med((x) => x.r), b = med((x) => x.b);
      const ratio = med((x) => x.a / x.r);
      line(
        `${on}pwalists, ${label}`,
        `${a.toFixed(0)} req/s`,
        `${rows} rows, ${KB(new TextEncoder().encode(body).length)}; ours/bare same bytes ` +
          `${med((x) => x.a / x.b).toFixed(2)} (bare ${b.toFixed(0)} req/s); CPU a request ` +
          `${med((x) => x.ca).toFixed(2)} ms (bare same reads ${med((x) => x.cr).toFixed(2)} ms)`,
      );
      line(
        `  bare Deno.serve, same ${gets.length} store reads + JSON`,
        `${r.toFixed(0)} req/s`,
        `ours/bare ${ratio.toFixed(2)} (${
          rs.map((x) => (x.a / x.r).toFixed(2)).join(" ")
        }), goal ≥ ${GOAL} ${ratio >= GOAL ? "(ok)" : "(UNDER)"}; ` +
          `${gets.length} gets (${rest.length + 3} distinct keys), ${lists} list reads`,
      );
    };
    const users = opts.users ?? ["employee", "approver"];
    if (users.includes("employee")) await pair("employee, 2,000 requests", DEMO.employee);
    if (users.includes("approver")) {
      await pair("approver, no requests (small answer)", DEMO.approver);
    }
  } finally {
    for (const s of servers) await s.shutdown();
    await api.close();
  }
}
