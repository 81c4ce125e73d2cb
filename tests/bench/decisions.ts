/**
 * Bench (spec §4 approval actions): approve latency and decisions per second on one approval
 * request, against a bare Deno.Kv atomic write with a version check in the same run. In-process
 * (`app.request`, no sockets) on an in-memory app with the demo organisation; the expense requests
 * are created and submitted through the API, as employee@ would.
 */
import { DEMO, type TestApi, testApp } from "../helpers.ts";

type Line = (name: string, value: string, note?: string) => void;

const WARM = 20;
/** Fresh approvals for the latency samples (approved at level 1, then at level 2). */
const SAMPLES = 200;
/** Approvals shared by the concurrent callers, each deciding a different one. */
const SPREAD = 400;
const CALLERS = 8;
/** Contention: runs, each firing CONTENDERS approve/reject calls at one fresh approval. */
const RUNS = 20;
const CONTENDERS = 50;
const BARE = 2000;

const A = "/bonita/scmapi/approval";
const E = "/bonita/scmapi/expense";
/** TRAVEL above 250: Finance (approver@, delegate@ through Finance Delegates) decides level 1,
 * Management (manager@) level 2, the last one; no reject note needed. */
const TRAVEL = {
  typeOid: "type-travel",
  amount: 300,
  purpose: "Train to Lyon",
  costCenterOid: "cc-sales",
  GLOid: "gl-travel",
  projectOid: "prj-crm",
};

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)];
const p95 = (xs: number[]) => sorted(xs)[Math.ceil(xs.length * 0.95) - 1];
const msf = (t: number) => `${t.toFixed(t < 10 ? 2 : 1)} ms`;
const times = (x: number) => `${x.toFixed(x < 10 ? 1 : 0)}×`;
const perS = (n: number, ms: number) => n / (ms / 1000);

/** One call through the app, body read; status, text and the time it took. */
async function call(api: TestApi, path: string, token: string, body: unknown) {
  const t0 = performance.now();
  const res = await api.app.request(path, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, ms: performance.now() - t0 };
}

const decision = (api: TestApi, token: string, verb: "approve" | "reject", oid: string) =>
  call(api, `${A}/pwa${verb}`, token, { oid, archive: false });

export async function approved(api: TestApi, token: string, oid: string) {
  const r = await decision(api, token, "approve", oid);
  if (r.status !== 200) throw new Error(`pwaapprove ${r.status}: ${r.text}`);
  return r.ms;
}

/** `n` submitted TRAVEL requests of employee@; the oids of their approvals (level 1 open). */
export async function submittedApprovals(api: TestApi, token: string, n: number) {
  const oids: string[] = [];
  for (let i = 0; i < n; i++) {
    const c = await call(api, `${E}/pwaexpenserequestcreate`, token, {
      expenseRequest: { ...TRAVEL, purpose: `${TRAVEL.purpose} #${i + 1}` },
    });
    if (c.status !== 200) throw new Error(`create ${c.status}: ${c.text}`);
    const record = (JSON.parse(c.text) as { expenseRequest: { oid: string } }).expenseRequest.oid;
    const s = await call(api, `${E}/pwasubmit`, token, { record });
    if (s.status !== 200) throw new Error(`submit ${s.status}: ${s.text}`);
    const [a] = await api.deps.store.approvals.byRequest(record);
    if (!a) throw new Error(`no approval for ${record}`);
    oids.push(a.oid);
  }
  return oids;
}

/** Prints the approval figures, then the bare KV baseline and the ratios between them. */
export async function benchDecisions(line: Line) {
  const ours = await approvals(line);
  const bare = await bareKv(line, ours.approval);
  line(
    "approve / bare KV checked write",
    times(ours.median / bare.median),
    `median latency; decisions/s one after another ${ours.perS.toFixed(0)} vs writes/s ` +
      `${bare.perS.toFixed(0)} (bare ${times(bare.perS / ours.perS)})`,
  );
}

async function approvals(line: Line) {
  // As deployed: answers are not re-checked against the contract (a test-time guard).
  const api = await testApp({ CHECK_RESPONSES: "false" });
  try {
    const emp = (await api.activate(DEMO.employee)).token;
    const fin = (await api.activate(DEMO.approver)).token;
    const mgr = (await api.activate(DEMO.manager)).token;
    const del = (await api.activate(DEMO.delegate)).token;
    const all = await submittedApprovals(api, emp, WARM + SAMPLES + SPREAD + RUNS);
    const warm = all.slice(0, WARM);
    const fresh = all.slice(WARM, WARM + SAMPLES);
    const spread = all.slice(WARM + SAMPLES, WARM + SAMPLES + SPREAD);
    const contended = all.slice(WARM + SAMPLES + SPREAD);

    for (const oid of warm) await approved(api, fin, oid);
    for (const oid of warm) await approved(api, mgr, oid);

    // 1. Latency, one call at a time, each on a fresh approval: level 1, then the last level.
    const l1: number[] = [];
    let w0 = performance.now();
    for (const oid of fresh) l1.push(await approved(api, fin, oid));
    const l1Wall = performance.now() - w0;
    const l2: number[] = [];
    w0 = performance.now();
    for (const oid of fresh) l2.push(await approved(api, mgr, oid));
    const l2Wall = performance.now() - w0;
    const approval = (await api.deps.store.approvals.get(fresh[0])).value;
    line(
      "approve, level 1 of 2 (approver@), median",
      msf(median(l1)),
      `p95 ${msf(p95(l1))}, ${SAMPLES} calls, a fresh approval each`,
    );
    line(
      "approve, last level (manager@), median",
      msf(median(l2)),
      `p95 ${msf(p95(l2))}, ${SAMPLES} calls; request accepted in the same atomic op`,
    );

    // 2a. Throughput: decisions one after another, and from concurrent callers.
    const seq = perS(2 * SAMPLES, l1Wall + l2Wall);
    line(
      "decisions, one after another",
      `${seq.toFixed(0)} /s`,
      `level 1 ${perS(SAMPLES, l1Wall).toFixed(0)}/s, last level ` +
        `${perS(SAMPLES, l2Wall).toFixed(0)}/s (${2 * SAMPLES} decisions)`,
    );
    const queue = [...spread];
    const loop = async () => {
      for (let oid = queue.pop(); oid; oid = queue.pop()) await approved(api, fin, oid);
    };
    w0 = performance.now();
    await Promise.all(Array.from({ length: CALLERS }, loop));
    const spreadWall = performance.now() - w0;
    line(
      `decisions, ${CALLERS} concurrent callers, different approvals`,
      `${perS(SPREAD, spreadWall).toFixed(0)} /s`,
      `${SPREAD} level-1 approvals in ${spreadWall.toFixed(0)} ms`,
    );

    // 2b. Contention on ONE approval: half approve (approver@), half reject (delegate@, via
    // Finance Delegates), all at once. Exactly one may win; the others are refused.
    const walls: number[] = [];
    const counts = { ok: 0, refused: 0, conflict: 0 };
    for (const oid of contended) {
      const c0 = performance.now();
      const rs = await Promise.all(
        Array.from(
          { length: CONTENDERS },
          (_, i) => i % 2 ? decision(api, del, "reject", oid) : decision(api, fin, "approve", oid),
        ),
      );
      walls.push(performance.now() - c0);
      const wins = rs.filter((r) => r.status === 200).length;
      const odd = rs.find((r) => ![200, 403, 409].includes(r.status));
      if (wins !== 1 || odd) {
        throw new Error(`contention: ${wins} accepted; ${odd?.status ?? ""} ${odd?.text ?? ""}`);
      }
      counts.ok += wins;
      counts.refused += rs.filter((r) => r.status === 403).length;
      counts.conflict += rs.filter((r) => r.status === 409).length;
    }
    const cw = median(walls);
    const answers = perS(CONTENDERS, cw).toFixed(0);
    line(
      `one approval, ${CONTENDERS} concurrent approve/reject, wall`,
      msf(cw),
      `median, p95 ${msf(p95(walls))}; ${counts.ok} accepted, ${counts.refused} refused (403), ` +
        `${counts.conflict} gave up (409) in ${RUNS} runs; ${answers} answers/s`,
    );
    return { approval, median: median(l1), perS: perS(SAMPLES, l1Wall) };
  } finally {
    api.close();
  }
}

async function bareKv(line: Line, approval: unknown) {
  // 3. Baseline: a bare in-memory Deno.Kv, one record (the stored approval above) read and
  // written back with a version check, one at a time, then contended like the approval.
  const kv = await Deno.openKv(":memory:");
  try {
    const key = ["bench", "approval"];
    await kv.set(key, approval);
    const write = async (n: number) => {
      const t0 = performance.now();
      const e = await kv.get<Record<string, unknown>>(key);
      const r = await kv.atomic().check(e).set(key, { ...e.value, n }).commit();
      return { ok: r.ok, ms: performance.now() - t0 };
    };
    for (let i = 0; i < 200; i++) await write(i);
    const times: number[] = [];
    const w0 = performance.now();
    for (let i = 0; i < BARE; i++) {
      const r = await write(i);
      if (!r.ok) throw new Error("bare KV write lost its version check, alone");
      times.push(r.ms);
    }
    const bareWall = performance.now() - w0;
    const bareMedian = median(times);
    line(
      "bare Deno.Kv get + checked atomic set, median",
      msf(bareMedian),
      `p95 ${msf(p95(times))}, ${perS(BARE, bareWall).toFixed(0)} writes/s one after another`,
    );
    const walls: number[] = [];
    let wins = 0;
    for (let run = 0; run < RUNS; run++) {
      const c0 = performance.now();
      const rs = await Promise.all(Array.from({ length: CONTENDERS }, (_, i) => write(i)));
      walls.push(performance.now() - c0);
      wins += rs.filter((r) => r.ok).length;
    }
    line(
      `bare Deno.Kv, ${CONTENDERS} concurrent checked writes, one key`,
      msf(median(walls)),
      `median wall, ${wins} of ${RUNS * CONTENDERS} committed in ${RUNS} runs`,
    );
    return { median: bareMedian, perS: perS(BARE, bareWall) };
  } finally {
    kv.close();
  }
}
