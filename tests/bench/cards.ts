/**
 * Bench (spec §7 pwanewqcard, pwaexpensecardreveal): pwanewqcard and pwaexpensecardreveal latency
 * through the whole app (bearer auth, request read, flags, the issuer simulator, the request's
 * update; for the reveal a one-time issuer session, the vault decrypt and the envelope for the
 * device's key), in-process on an in-memory app, next to a bare Deno.Kv get + checked atomic set in
 * the same run.
 */
import { recordDecision } from "../../server/domain/requests.ts";
import { newRevealKey } from "../../client/shared/reveal_cipher.ts";
import { DEMO, type TestApi, testApp } from "../helpers.ts";

type Line = (name: string, value: string, budget?: string) => void;

const CARDS = 200;
const WARM = 20;
const BARE = 2000;
const E = "/bonita/scmapi/expense";

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)];
const p95 = (xs: number[]) => sorted(xs)[Math.ceil(xs.length * 0.95) - 1];
const msf = (t: number) => `${t.toFixed(t < 10 ? 2 : 1)} ms`;

async function call(api: TestApi, method: string, path: string, token: string, body?: unknown) {
  const t0 = performance.now();
  const res = await api.app.request(`${E}/${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${path} ${res.status}: ${text}`);
  return { json: JSON.parse(text), ms: performance.now() - t0 };
}

/** Accepted requests of employee@, created and submitted through the API. */
async function acceptedRequests(api: TestApi, token: string, n: number): Promise<string[]> {
  const oids: string[] = [];
  for (let i = 0; i < n; i++) {
    const c = await call(api, "POST", "pwaexpenserequestcreate", token, {
      expenseRequest: {
        typeOid: "type-travel",
        amount: 100 + i % 50,
        purpose: `Bench card ${i}`,
        costCenterOid: "cc-sales",
        GLOid: "gl-travel",
        projectOid: "prj-crm",
      },
    });
    const oid = c.json.expenseRequest.oid as string;
    await call(api, "POST", "pwasubmit", token, { record: oid });
    const [a] = await api.deps.store.approvals.byRequest(oid);
    await recordDecision(api.deps, a.oid, "accepted");
    oids.push(oid);
  }
  return oids;
}

/** Reveals are limited to 30 an hour per user: the samples come from two requestors. */
const USERS = [[DEMO.employee, "612345678"], [DEMO.manager, "698765432"]] as const;
const PER_USER = 25;
const WARM_PER_USER = 5;

export async function benchCards(line: Line): Promise<void> {
  const api = await testApp({ CHECK_RESPONSES: "false" });
  try {
    const gen: number[] = [];
    const rev: number[] = [];
    for (const [email, phone] of USERS) {
      const { token } = await api.activate(email);
      await call(api, "POST", "pwasetexpensedosecure", token, {
        record: { password: "Bench-3ds", countryPrefix: "+33", phoneNumber: phone },
      });
      const [sms] = await api.deps.outbox!.list({ to: `+33${phone}`, limit: 1 });
      await call(api, "POST", "pwaexpensedosecurevalidatepin", token, {
        pin: /PIN is (\d{4})/.exec(sms.text)![1],
      });
      const oids = await acceptedRequests(api, token, CARDS / USERS.length + WARM);
      for (const [i, oid] of oids.entries()) {
        const { ms } = await call(api, "POST", "pwanewqcard", token, { oid });
        if (i >= WARM) gen.push(ms);
      }
      for (const [i, oid] of oids.slice(0, PER_USER + WARM_PER_USER).entries()) {
        const { ms } = await call(
          api,
          "GET",
          `pwaexpensecardreveal?oid=${oid}&key=${newRevealKey()}`,
          token,
        );
        if (i >= WARM_PER_USER) rev.push(ms);
      }
    }
    const kv = await Deno.openKv(":memory:");
    const bare: number[] = [];
    try {
      for (let i = 0; i < BARE; i++) {
        const t0 = performance.now();
        const cur = await kv.get(["bench", i % 50]);
        await kv.atomic().check(cur).set(["bench", i % 50], { n: i }).commit();
        bare.push(performance.now() - t0);
      }
    } finally {
      kv.close();
    }
    const b = median(bare);
    line(
      "pwanewqcard (generate a card), median",
      msf(median(gen)),
      `p95 ${msf(p95(gen))}; ${(median(gen) / b).toFixed(0)}× a bare KV checked write`,
    );
    line(
      "pwaexpensecardreveal (sealed PAN + CVC), median",
      msf(median(rev)),
      `p95 ${msf(p95(rev))}; ${(median(rev) / b).toFixed(0)}× a bare KV checked write`,
    );
    line("  bare Deno.Kv get + checked atomic set, median", msf(b), `p95 ${msf(p95(bare))}`);
  } finally {
    await api.close();
  }
}

if (import.meta.main) {
  const line: Line = (name, value, budget = "") =>
    console.log(`${name.padEnd(52)} ${value.padStart(12)}  ${budget}`);
  await benchCards(line);
}
