/**
 * Scale out on one store (docs/benchmarks.md): requests per second of one main.ts process against
 * two on the same KV file (the load spread round-robin over both), with the same load generator in
 * the same run. Reads: an authenticated pwalists of employee@ with REQUESTS requests (each process
 * answers from its own list cache, checked against the version key in KV). Writes:
 * pwaexpenserequestcreate, where the processes share SQLite's one write lock on the file.
 *
 * What it means on a small machine: the load generator, both servers and SQLite share the
 * cores; with 2 cores two servers cannot double anything, and the figure says how much of the
 * second core a second process turns into answers, not how a fleet on Deploy scales.
 */
import { activateThrough, localEnv, type Proc, startMain } from "../server/main_process.ts";
import { DEMO } from "../helpers.ts";
import { seedStore } from "./seed.ts";

type Measured = Awaited<ReturnType<typeof measured>>;
type Line = (name: string, value: string, note?: string) => void;

const REQUESTS = 200;
/** Concurrent client loops, each with its own keep-alive connection(s). */
const CLIENTS = 16;
const E = "/bonita/scmapi/expense";

/** Requests per second of CLIENTS loops for `seconds`, request k of loop i to urls[(i+k) % n]. */
async function load(
  bases: string[],
  make: () => { path: string; init: RequestInit },
  seconds: number,
): Promise<number> {
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  const loop = async (i: number) => {
    let n = 0;
    while (performance.now() < until) {
      const { path, init } = make();
      const res = await fetch(`${bases[(i + n) % bases.length]}${path}`, init);
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
      n++;
    }
    return n;
  };
  const counts = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => loop(i)));
  return counts.reduce((a, b) => a + b, 0) / ((performance.now() - t0) / 1000);
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); NaN elsewhere. */
function cpuSeconds(pid: number | "self"): number {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return NaN;
  }
}

/** `measure`'s requests per second, and the cores the servers and this process used meanwhile. */
async function measured(pids: number[], measure: () => Promise<number>) {
  const cpu = () => ({
    servers: pids.reduce((a, p) => a + cpuSeconds(p), 0),
    self: cpuSeconds("self"),
  });
  const c0 = cpu();
  const t0 = performance.now();
  const perS = await measure();
  const s = (performance.now() - t0) / 1000;
  const c1 = cpu();
  return { perS, servers: (c1.servers - c0.servers) / s, self: (c1.self - c0.self) / s };
}

export async function benchScale(line: Line): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "qcard-bench-scale-" });
  const env = {
    ...localEnv(dir),
    CHECK_RESPONSES: "false",
  };

  // The store is seeded here first (demo organisation and employee@'s requests), then served.
  await seedStore(env, DEMO.employee, REQUESTS);
  const procs: Proc[] = [];
  try {
    procs.push(await startMain(env));
    const bases = [`http://127.0.0.1:${procs[0].port}`];
    const h = await activateThrough(`http://127.0.0.1:${procs[0].port}`, DEMO.employee);
    const read = () => ({ path: `${E}/pwalists`, init: { headers: h } });
    let i = 0;
    const write = () => ({
      path: `${E}/pwaexpenserequestcreate`,
      init: {
        method: "POST",
        headers: { ...h, "content-type": "application/json" },
        body: JSON.stringify({
          expenseRequest: {
            typeOid: "type-travel",
            amount: 120,
            purpose: `Bench ${++i}`,
            costCenterOid: "cc-sales",
            GLOid: "gl-travel",
            projectOid: "prj-crm",
          },
        }),
      },
    });
    // Reads first for both set-ups (writes lengthen employee@'s list), then writes.
    const pids = () => procs.map((p) => p.child.pid);
    await load(bases, read, 0.5);
    const oneReads = await measured(pids(), () => load(bases, read, 3));
    procs.push(await startMain(env));
    const both = [...bases, `http://127.0.0.1:${procs[1].port}`];
    await load(both, read, 0.5);
    const twoReads = await measured(pids(), () => load(both, read, 3));
    await load(bases, write, 0.3);
    const oneWrites = await measured(pids(), () => load(bases, write, 2));
    await load(both, write, 0.3);
    const twoWrites = await measured(pids(), () => load(both, write, 2));
    const cores = navigator.hardwareConcurrency;
    const cpu = (m: { servers: number; self: number }) =>
      `servers ${m.servers.toFixed(2)} cores, load generator ${m.self.toFixed(2)} (of ${cores})`;
    const perCore = (m: { perS: number; servers: number }) => (m.perS / m.servers).toFixed(0);
    const figure = (what: string, one: Measured, two: Measured) => {
      line(`${what}, 1 process`, `${one.perS.toFixed(0)} req/s`, cpu(one));
      line(`${what}, 2 processes on one KV file`, `${two.perS.toFixed(0)} req/s`, cpu(two));
      line(
        `${what}, 2 processes / 1`,
        `${(two.perS / one.perS).toFixed(2)}×`,
        `${CLIENTS} clients; per server core-second ${perCore(one)} → ${perCore(two)} req`,
      );
    };
    figure(`scale-out: pwalists (${REQUESTS} requests)`, oneReads, twoReads);
    figure("scale-out: request creates", oneWrites, twoWrites);
  } finally {
    for (const p of procs) {
      p.child.kill("SIGTERM");
      await p.status;
    }
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) {
  await benchScale((name, value, note = "") =>
    console.log(`${name.padEnd(52)} ${value.padStart(12)}  ${note}`)
  );
}
