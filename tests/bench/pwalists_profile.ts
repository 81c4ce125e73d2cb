/**
 * Where pwalists spends its time: `deno run -A --cpu-prof --cpu-prof-dir=/tmp/prof
 * tests/bench/pwalists_profile.ts [employee|approver] [seconds]`, then open the .cpuprofile
 * (Chrome DevTools) or summarise it. In-process (`app.request`), the Accept-Encoding a browser
 * sends, 8 concurrent callers.
 */
import { DEMO, testApp } from "../helpers.ts";
import { seedRequests } from "./seed.ts";

const who = Deno.args[0] ?? "approver";
const seconds = Number(Deno.args[1] ?? 5);
const api = await testApp({ CHECK_RESPONSES: "false" });
await seedRequests(api.deps, DEMO.employee, 2000);
const { token } = await api.activate(who === "employee" ? DEMO.employee : DEMO.approver);
const headers = { authorization: `Bearer ${token}`, "accept-encoding": "gzip, deflate, br" };
const until = performance.now() + seconds * 1000;
let n = 0;
await Promise.all(Array.from({ length: 8 }, async () => {
  while (performance.now() < until) {
    const res = await api.app.request("/bonita/scmapi/expense/pwalists", { headers });
    await res.arrayBuffer();
    n++;
  }
}));
console.log(`${who}: ${(n / seconds).toFixed(0)} req/s in-process`);
await api.close();
