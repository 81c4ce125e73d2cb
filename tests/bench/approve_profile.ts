/**
 * Where approve spends its time: `deno run -A tests/bench/approve_profile.ts [n] [out]`.
 * In-process, level-1 approvals one after another; only the approvals are profiled
 * (node:inspector), written to `out` (default /tmp/approve.cpuprofile) for Chrome DevTools.
 */
import { Session } from "node:inspector/promises";
import { DEMO, testApp } from "../helpers.ts";
import { approved, submittedApprovals } from "./decisions.ts";

const n = Number(Deno.args[0] ?? 600);
const out = Deno.args[1] ?? "/tmp/approve.cpuprofile";
const api = await testApp({ CHECK_RESPONSES: "false" });
const emp = (await api.activate(DEMO.employee)).token;
const fin = (await api.activate(DEMO.approver)).token;
const oids = await submittedApprovals(api, emp, n);
for (const oid of oids.slice(0, 20)) await approved(api, fin, oid);
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.start");
const t0 = performance.now();
const times: number[] = [];
for (const oid of oids.slice(20)) times.push(await approved(api, fin, oid));
const { profile } = await session.post("Profiler.stop");
times.sort((a, b) => a - b);
console.log(
  `${times.length} approvals in ${(performance.now() - t0).toFixed(0)} ms, median ` +
    `${times[Math.floor(times.length / 2)].toFixed(2)} ms`,
);
await Deno.writeTextFile(out, JSON.stringify(profile));
await api.close();
