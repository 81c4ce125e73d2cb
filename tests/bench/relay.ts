/**
 * Bench (relay mode), relay overhead: the latency of an authenticated pwalists (employee@ with
 * REQUESTS requests) through an edge process in relay mode in front of the upstream process,
 * against the upstream called directly and against the barest fetch proxy in front of it
 * (./bare_proxy.ts: the floor any relay has here), in the same run, taking turns, with the same
 * keep-alive client. Goal: at most 10 % added at the median. All are processes on
 * 127.0.0.1; the answer is the same gzip for the client every way (the upstream compresses
 * for a trusted edge's client, X-QCard-Accept-Encoding, and the edge passes it on).
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
  let bare: Deno.ChildProcess | undefined;
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
    // The floor: the barest fetch proxy in front of the same upstream (./bare_proxy.ts), the
    // same gzip'd bytes crossing: what any relay costs here, before the edge's own work.
    bare = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-net",
        "--allow-env",
        new URL("./bare_proxy.ts", import.meta.url).pathname,
      ],
      env: { UPSTREAM: direct },
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const reader = bare.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const first = (await reader.read()).value ?? "";
    reader.releaseLock();
    const floor = `http://127.0.0.1:${JSON.parse(first).port}`;
    const h = { ...await activateThrough(direct, DEMO.employee), "accept-encoding": "gzip" };
    const once = async (base: string) => {
      const t0 = performance.now();
      const res = await fetch(`${base}${E}/pwalists`, { headers: h });
      if (res.status !== 200) throw new Error(`pwalists ${res.status} through ${base}`);
      await res.arrayBuffer();
      return performance.now() - t0;
    };
    for (let i = 0; i < 30; i++) await once(direct), await once(relayed), await once(floor);
    const d: number[] = [];
    const r: number[] = [];
    const f: number[] = [];
    const order: [string, number[]][] = [[direct, d], [relayed, r], [floor, f]];
    for (let i = 0; i < ROUNDS; i++) {
      // Taking turns, each first in its turn, so a hiccup of the machine lands on all three.
      for (let j = 0; j < 3; j++) {
        const [base, xs] = order[(i + j) % 3];
        xs.push(await once(base));
      }
    }
    const md = pct(d, 0.5);
    const mr = pct(r, 0.5);
    const mf = pct(f, 0.5);
    const added = (mr - md) / md * 100;
    const floorAdded = (mf - md) / md * 100;
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
      "relay: pwalists through a bare fetch proxy (floor)",
      `${mf.toFixed(2)} ms`,
      `median; p95 ${pct(f, 0.95).toFixed(2)} ms; +${floorAdded.toFixed(1)} % over direct`,
    );
    line(
      "relay: added at the median",
      `${added >= 0 ? "+" : ""}${added.toFixed(1)} %`,
      `goal ≤ 10 % ${added <= 10 ? "(ok)" : "(OVER)"}; ${ROUNDS} calls each, taking turns`,
    );
    line(
      "relay: the edge's own part (edge − bare proxy)",
      `${(mr - mf).toFixed(2)} ms`,
      `median; the hop itself costs ${(mf - md).toFixed(2)} ms`,
    );
  } finally {
    try {
      bare?.kill("SIGTERM");
      await bare?.status;
    } catch {
      // not started, or gone already
    }
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
