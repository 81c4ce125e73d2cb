/**
 * The accounting export at month-end size (docs/benchmarks.md, issue: month end): 50,000
 * captured transactions of 500 card holders, each with a receipt (a 3 KB file), written
 * straight into a KV file; then one main.ts process exports the month as CSV + DATEV + the
 * receipts' ZIP over HTTP (what the Export screen asks), the client counting the bytes as they
 * come. The server runs with its JavaScript heap capped at 128 MB, under the file's size, so an
 * export that held its file or its rows would fail here. Printed: seconds, megabytes,
 * transactions a second, and the server's memory: its anonymous resident memory (heap, SQLite's
 * page cache) before and at its peak, the mapped store file's share, and VmHWM.
 *
 * `deno run -A tests/bench/export.ts [N]` runs it alone.
 */
import { makeDeps, seedIfEmpty } from "../../server/app/boot.ts";
import { parseConfig } from "../../server/config.ts";
import { exportAccounting } from "../../server/export/run.ts";
import type { DocumentRecord } from "../../server/store/documents.ts";
import type { RequestRecord } from "../../server/store/requests.ts";
import { activateThrough, localEnv, startMain } from "../server/main_process.ts";
import { transactionRecord } from "../server/transaction_records.ts";

type Line = (name: string, value: string, note?: string) => void;

const HOLDERS = 500;
const RECEIPT = 3 * 1024;
const DAY = 86_400_000;
const BATCH = 50;
/** The server's heap limit in this bench (MB). */
const HEAP_MB = 128;

/** 50,000 transactions over the last 30 days with one receipt each, straight into the store. */
export async function seed(
  env: Record<string, string>,
  n: number,
): Promise<{ from: string; to: string }> {
  const deps = await makeDeps(parseConfig(env), undefined, { log: () => {} });
  await seedIfEmpty(deps);
  const { store } = deps;
  const now = Date.now();
  const bytes = new Uint8Array(RECEIPT).map((_, i) => (i * 31) & 0xff);
  bytes.set([0x25, 0x50, 0x44, 0x46]); // "%PDF"
  const requests: RequestRecord[] = [];
  for (let h = 0; h < HOLDERS; h++) {
    const userOid = `bench-holder-${h}`;
    await store.users.put(store.kv.atomic(), {
      oid: userOid,
      email: `holder${h}@bench.example`,
      fname: "Holder",
      lname: String(h),
      locale: "en",
      canRequest: true,
      isApprover: false,
      teams: [],
      secret: { questionOid: "q1", answer: { salt: "", hash: "" } as never },
    }).commit();
    const r = {
      oid: `bench-req-${h}`,
      id: `B${String(h).padStart(6, "0")}`,
      authorOid: userOid,
      accountOid: "acc-eur",
      typeOid: "type-travel",
      purpose: `Travel card ${h}`,
      status: "accepted",
      issueDate: now - 40 * DAY,
      costCenterOid: "cc-sales",
      costCenter: "Sales",
      GLOid: "gl-travel",
      GLCode: "Travel and accommodation",
      projectOid: "prj-crm",
      projectCode: "CRM rollout",
      vendor: "",
      url: "",
      amount: 5000,
      currency: "EUR",
      budgetPlan: null,
      budget: [],
      approvalOid: null,
      hasCard: true,
      openCard: true,
      cardStatusCode: "Active",
      approverNote: null,
      archive: false,
      updatedAt: now,
    } as RequestRecord;
    await store.requests.put(store.kv.atomic(), r).commit();
    requests.push(r);
  }
  for (let i = 0; i < n; i += BATCH) {
    const op = store.kv.atomic();
    for (let j = i; j < Math.min(n, i + BATCH); j++) {
      const r = requests[j % HOLDERS];
      const at = now - 29 * DAY + Math.floor((j / n) * 28 * DAY);
      const amount = 1000 + (j * 37) % 20000;
      const t = transactionRecord(r.authorOid, {
        oid: `bench-tx-${String(j).padStart(6, "0")}`,
        expenseOid: r.oid,
        cardOid: r.oid,
        cardId: r.id,
        cardToken: `tok-${r.oid}`,
        authorizationId: `iauth_bench_${j}`,
        createdAt: at,
        capturedAt: at,
        updatedAt: at,
        merchantname: `Merchant ${j % 997}`,
        merchantcity: "Berlin",
        merchantcountry: "DE",
        amount,
        originalAmount: amount,
        amountAuthorized: amount,
        amountCaptured: amount,
        originalPurpose: r.purpose,
        nbReceipts: 1,
        collectVatFlag: true,
        vat: {
          vat1Oid: "vat-de-19",
          vat2Oid: null,
          vat3Oid: null,
          vat1Amount: Math.round(amount * 19 / 119) / 100,
          vat2Amount: null,
          vat3Amount: null,
        },
      });
      store.transactions.put(op, t);
      const blobId = `bench-blob-${j}`;
      const doc: DocumentRecord = {
        v: 1,
        oid: `bench-doc-${j}`,
        userOid: t.userOid,
        authorizationId: t.authorizationId,
        transactionOid: t.oid,
        documentType: "receipt",
        name: `receipt-${j}.pdf`,
        mimeType: "application/pdf",
        size: RECEIPT,
        blob: { id: blobId, size: RECEIPT, chunks: 1 },
        preview: null,
        advancedSecurity: false,
        note: "",
        createdAt: at,
        updatedAt: at,
        archive: false,
      };
      store.documents.put(op, doc);
      op.set([...store.blobs.chunkPrefix, blobId, 0], bytes);
    }
    const res = await op.commit();
    if (!res.ok) throw new Error(`seeding failed at ${i}`);
  }
  store.kv.close();
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { from: day(now - 30 * DAY), to: day(now) };
}

/** The process's peak and current resident set (kB), from /proc. */
async function memory(pid: number) {
  const s = await Deno.readTextFile(`/proc/${pid}/status`);
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? NaN);
  return { peak: kb("VmHWM"), now: kb("VmRSS"), anon: kb("RssAnon"), file: kb("RssFile") };
}

export async function benchExport(line: Line, n = 50_000): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "qcard-bench-export-" });
  const env = localEnv(dir);
  try {
    const t0 = performance.now();
    const { from, to } = await seed(env, n);
    line(
      `export: seeded ${n} transactions + receipts`,
      `${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    // The server's JavaScript heap is capped well under the file's size: an export that held
    // its file (or its rows) would die of it, not just look big.
    const proc = await startMain(env, {
      args: ["-A", `--v8-flags=--max-old-space-size=${HEAP_MB}`],
    });
    try {
      const base = `http://127.0.0.1:${proc.port}`;
      const h = await activateThrough(base, "approver@demo.example");
      const before = await memory(proc.child.pid);
      const t1 = performance.now();
      const res = await fetch(`${base}/bonita/scmapi/expense/pwaexport`, {
        method: "POST",
        headers: { ...h, "content-type": "application/json" },
        body: JSON.stringify({ from, to, formats: ["csv", "datev", "zip"] }),
      });
      if (res.status !== 200) throw new Error(`export: ${res.status} ${await res.text()}`);
      let size = 0, peakAnon = before.anon, peakFile = before.file;
      const sampler = setInterval(async () => {
        const m = await memory(proc.child.pid).catch(() => null);
        if (m) (peakAnon = Math.max(peakAnon, m.anon), peakFile = Math.max(peakFile, m.file));
      }, 50);
      try {
        for await (const chunk of res.body!) size += chunk.length;
      } catch (e) {
        throw new Error(`export broke after ${size} bytes: ${e}\n${proc.stderr().slice(-3000)}`);
      } finally {
        clearInterval(sampler);
      }
      const s = (performance.now() - t1) / 1000;
      const after = await memory(proc.child.pid);
      line(
        `export: ${n} transactions, CSV + DATEV + ${n} receipts (ZIP)`,
        `${s.toFixed(1)} s`,
        `${(size / 1e6).toFixed(0)} MB, ${
          Math.round(n / s)
        } transactions/s, server heap capped at ${HEAP_MB} MB`,
      );
      // Sampled while it runs: the anonymous part (the heap; the file-backed part is SQLite's
      // mapped store file, which the kernel drops at will).
      line(
        "export: server resident memory, anonymous (heap) before → peak",
        `${Math.round(before.anon / 1024)} → ${Math.round(peakAnon / 1024)} MB`,
        `file-backed (the mapped KV file) peak ${Math.round(peakFile / 1024)} MB`,
      );
      line(
        "export: server peak memory (VmHWM) before → after",
        `${Math.round(before.peak / 1024)} → ${Math.round(after.peak / 1024)} MB`,
        `resident now ${Math.round(after.now / 1024)} MB; the file is ${
          (size / 1e6).toFixed(0)
        } MB: not held`,
      );
    } finally {
      proc.child.kill("SIGTERM");
      await proc.status;
    }
    // What the export itself keeps alive, measured after full collections in a process of its own.
    await Deno.writeTextFile(`${dir}/env.json`, JSON.stringify(env));
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--v8-flags=--expose-gc",
        import.meta.filename!,
        "--retained",
        dir,
        from,
        to,
      ],
      stdout: "piped",
      stderr: "inherit",
    }).output();
    const r = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").pop()!);
    line(
      "export: JavaScript heap kept alive (after GC) before → peak",
      `${(r.before / 1e6).toFixed(0)} → ${(r.peak / 1e6).toFixed(0)} MB`,
      "measured in-process on the same store, every 2,000 chunks",
    );
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/**
 * In a process of its own with --expose-gc (below): the export run in-process on the seeded store,
 * the heap measured after a full collection every 2,000 chunks: what the export keeps alive.
 */
async function retainedHeap(env: Record<string, string>, from: string, to: string) {
  const gc = (globalThis as { gc?: () => void }).gc!;
  const deps = await makeDeps(parseConfig(env), undefined, { log: () => {} });
  const heap = () => (gc(), Deno.memoryUsage().heapUsed);
  const before = heap();
  let peak = before, chunks = 0;
  const file = await exportAccounting(deps, {
    oid: null,
    name: "bench",
    locale: "en",
    scope: { accounts: null },
  }, { from, to, formats: ["csv", "datev", "zip"] });
  for await (const _ of file.body) if (++chunks % 2000 === 0) peak = Math.max(peak, heap());
  deps.store.kv.close();
  console.log(JSON.stringify({ before, peak }));
}

if (import.meta.main && Deno.args[0] === "--retained") {
  const [, dir, from, to] = Deno.args;
  await retainedHeap(JSON.parse(await Deno.readTextFile(`${dir}/env.json`)), from, to);
  Deno.exit(0);
}

if (import.meta.main) {
  const n = Number(Deno.args[0] ?? 50_000);
  await benchExport(
    (name, value, note = "") => console.log(`${name.padEnd(52)} ${value.padStart(12)}  ${note}`),
    n,
  );
}
