/**
 * Issue 14, relay overhead: the latency of an authenticated pwalists (employee@ with REQUESTS
 * requests) through an edge process in relay mode in front of the upstream process, against
 * the upstream called directly, in the same run, alternating, with the same keep-alive client.
 * Goal: at most 10 % added at the median. Both are main.ts processes on 127.0.0.1; the answer
 * is gzip for the client either way (the upstream compresses when called directly, the edge
 * when relaying: it asks the upstream for identity).
 */
import { activateThrough, localEnv, type Proc, startMain } from "../server/main_process.ts";
import { DEMO } from "../helpers.ts";
import { seedStore } from "./seed.ts";

type Line = (name: string, value: string, note?: string) => void;

const REQUESTS = 200;
const ROUNDS = 300;
const E = "/bonita/scmapi/expense";

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

export async function benchRelay(line: Line): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "qcard-bench-relay-" });
  const env = {
    ...localEnv(dir),
    CHECK_RESPONSES: "false",
    LOG_LEVEL: "warn",
  };

  await seedStore(env, DEMO.employee, REQUESTS);
  const procs: Proc[] = [];
  try {
    const upstream = await startMain({ ...env, LOG_LEVEL: "info", TRUSTED_PROXIES: "127.0.0.1" });
    procs.push(upstream);
    const direct = `http://127.0.0.1:${upstream.port}`;
    const edge = await startMain({
      ...env,
      LOG_LEVEL: "info",
      KV_PATH: `${dir}/edge.kv`,
      UPSTREAM_URL: direct,
    });
    procs.push(edge);
    const relayed = `http://127.0.0.1:${edge.port}`;
    const h = { ...await activateThrough(direct, DEMO.employee), "accept-encoding": "gzip" };
    const once = async (base: string) => {
      const t0 = performance.now();
      const res = await fetch(`${base}${E}/pwalists`, { headers: h });
      if (res.status !== 200) throw new Error(`pwalists ${res.status} through ${base}`);
      await res.arrayBuffer();
      return performance.now() - t0;
    };
    for (let i = 0; i < 30; i++) await once(direct), await once(relayed);
    const d: number[] = [];
    const r: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      // Alternating, so a hiccup of the machine lands on both.
      if (i % 2) d.push(await once(direct)), r.push(await once(relayed));
      else r.push(await once(relayed)), d.push(await once(direct));
    }
    const md = pct(d, 0.5);
    const mr = pct(r, 0.5);
    const added = (mr - md) / md * 100;
    line(
      `relay: pwalists (${REQUESTS} requests), upstream direct`,
      `${md.toFixed(2)} ms`,
      `median; p95 ${pct(d, 0.95).toFixed(2)} ms`,
    );
    line(
      `relay: pwalists through the edge`,
      `${mr.toFixed(2)} ms`,
      `median; p95 ${pct(r, 0.95).toFixed(2)} ms`,
    );
    line(
      "relay: added at the median",
      `${added >= 0 ? "+" : ""}${added.toFixed(1)} %`,
      `goal ≤ 10 % ${added <= 10 ? "(ok)" : "(OVER)"}; ${ROUNDS} calls each, alternating`,
    );
  } finally {
    for (const p of procs) {
      p.child.kill("SIGTERM");
      await p.status;
    }
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) {
  await benchRelay((name, value, note = "") =>
    console.log(`${name.padEnd(52)} ${value.padStart(12)}  ${note}`)
  );
}
