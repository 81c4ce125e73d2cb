/**
 * Concurrent receipt uploads against a running main.ts (issue 32 §4), on either store: N
 * uploads of a ~10 MB PDF at once over HTTP, as the app sends them (multipart, bearer,
 * Idempotency-Key), one transaction each. Measured: the time until the last answer, how many
 * answered 200, the server's RSS growth (peak and after), its error log lines, and on
 * PostgreSQL the transactions the database rolled back (serialisation failures are among them;
 * the store's own blob writes roll nothing back).
 *
 * The store is prepared in this process first (the demo organisation, an activated device, a
 * card with N purchases), then main.ts is started on it with the same ISSUER_KEY. Goals (issue
 * 32 §4): all 200, PostgreSQL within 2x the KV file's time, RSS growth < 200 MB on both.
 *
 * Run alone: `deno run -A tests/bench/upload_load.ts [uploads]` (PostgreSQL from DATABASE_URL or
 * QCARD_TEST_PG_URL, else a throwaway cluster: tests/pg.ts).
 */
import postgres from "postgres";
import { UPLOAD_PATH } from "../../client/shared/contract/documents.ts";
import { newIssuerKeyText } from "../../server/issuer/mod.ts";
import { openKv } from "../../server/store/kv.ts";
import { makePdf } from "../fixtures/files.ts";
import { DEMO, testApp } from "../helpers.ts";
import { freshPgUrl } from "../pg.ts";
import { rssOf } from "../server/anonymous_load.ts";
import { localEnv, startMain } from "../server/main_process.ts";
import { buy, defineSecure, newCard } from "../server/purchase_helpers.ts";

export interface UploadLoadFigure {
  store: "kv" | "postgres";
  uploads: number;
  bytes: number;
  ms: number;
  statuses: Record<string, number>;
  rssGrowth: number;
  rssPeakGrowth: number;
  /** Server log lines at level error (an unhandled error among them). */
  errors: string[];
  /** PostgreSQL only: transactions rolled back in the database during the run. */
  rollbacks: number | null;
}

/** Prepares the store, starts main.ts on it, sends `n` uploads of `bytes` at once. */
export async function measureUploadLoad(
  store: "kv" | "postgres",
  n = 16,
  bytes = 10 * 1024 * 1024 - 200 * 1024,
): Promise<UploadLoadFigure> {
  const dir = await Deno.makeTempDir({ prefix: "qc-upload-load-" });
  const pg = store === "postgres" ? await freshPgUrl() : null;
  const path = pg ? pg.url : `${dir}/qcard.kv`;
  const issuerKey = newIssuerKeyText();
  try {
    const { headers, records } = await prepare(path, issuerKey, n);
    const proc = await startMain({ ...localEnv(dir), KV_PATH: path, ISSUER_KEY: issuerKey });
    const base = `http://127.0.0.1:${proc.port}`;
    try {
      // Settle first: start-up allocates, and that is not the uploads'.
      await new Promise((r) => setTimeout(r, 1500));
      const pid = proc.child.pid;
      const before = await rssOf(pid);
      let peak = before;
      const sampler = setInterval(() => {
        rssOf(pid).then((r) => peak = Math.max(peak, r), () => {});
      }, 50);
      const rolledBack = pg ? await rollbacks(pg.url) : 0;
      const pdf = makePdf({ padTo: bytes });
      const t0 = performance.now();
      const statuses = await Promise.all(
        records.map((record) => upload(base, headers, record, pdf)),
      );
      const ms = performance.now() - t0;
      await new Promise((r) => setTimeout(r, 500));
      clearInterval(sampler);
      const after = await rssOf(pid);
      peak = Math.max(peak, after);
      proc.child.kill("SIGTERM");
      await proc.status;
      const count: Record<string, number> = {};
      for (const s of statuses) count[s] = (count[s] ?? 0) + 1;
      return {
        store,
        uploads: n,
        bytes: pdf.length,
        ms,
        statuses: count,
        rssGrowth: after - before,
        rssPeakGrowth: peak - before,
        errors: [...proc.lines, ...proc.stderr().split("\n")].filter((l) =>
          /"level":"error"|\bfailed:|Uncaught|unhandled/i.test(l)
        ),
        // Backends count their transactions when they end: main.ts has stopped by now.
        rollbacks: pg ? (await rollbacks(pg.url)) - rolledBack : null,
      };
    } finally {
      try {
        proc.child.kill("SIGKILL");
      } catch { /* ended */ }
      await proc.status;
    }
  } finally {
    await pg?.drop().catch(() => {});
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** The demo organisation, the employee's device, a card and `n` purchases on the store. */
async function prepare(path: string, issuerKey: string, n: number) {
  const kv = await openKv(path, false);
  const api = await testApp({ ISSUER_KEY: issuerKey, CHECK_RESPONSES: "false" }, { kv });
  try {
    const { token, deviceId } = await api.activate(DEMO.employee);
    const h = { authorization: `Bearer ${token}`, "device-id": deviceId };
    await defineSecure(api, h);
    const card = await newCard(api, h);
    const records: string[] = [];
    for (let i = 0; i < n; i++) {
      records.push((await buy(api, card, { amount: "1.00" })).transactionOid);
    }
    return { headers: h, records };
  } finally {
    await api.close();
  }
}

/** One upload as the app sends it; its status ("error" when the connection failed). */
async function upload(
  base: string,
  h: Record<string, string>,
  record: string,
  pdf: Uint8Array,
): Promise<string> {
  const form = new FormData();
  form.append("record", record);
  form.append("documenttype", "receipt");
  form.append("file", new Blob([pdf as Uint8Array<ArrayBuffer>]), "receipt.pdf");
  try {
    const res = await fetch(`${base}/bonita${UPLOAD_PATH}`, {
      method: "POST",
      headers: { ...h, "idempotency-key": crypto.randomUUID() },
      body: form,
    });
    await res.arrayBuffer();
    return String(res.status);
  } catch {
    return "error";
  }
}

/** Transactions rolled back so far in the database of `url`. */
async function rollbacks(url: string): Promise<number> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, fetch_types: false });
  try {
    const [r] = await sql<{ n: string }[]>`
      SELECT xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()`;
    return Number(r.n);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

type Line = (name: string, value: string, note?: string) => void;

/** The §4 figures for both stores. */
export async function benchUploadLoad(line: Line, n = 16): Promise<void> {
  const mb = (x: number) => `${(x / 1e6).toFixed(0)} MB`;
  const kv = await measureUploadLoad("kv", n);
  const pg = await measureUploadLoad("postgres", n);
  for (const f of [kv, pg]) {
    const ok = f.statuses["200"] ?? 0;
    const name = f.store === "kv" ? "KV file" : "PostgreSQL";
    line(
      `${name}: ${n} concurrent ${mb(f.bytes)} uploads, all answered`,
      `${(f.ms / 1000).toFixed(1)} s`,
      `${ok}/${n} answered 200 ${ok === n ? "(ok)" : `(FAILED: ${JSON.stringify(f.statuses)})`}` +
        (f === pg
          ? `; ${(f.ms / kv.ms).toFixed(1)}x the KV file (goal <= 2x) ` +
            `${f.ms <= 2 * kv.ms ? "(ok)" : "(OVER)"}`
          : ""),
    );
    line(
      `${name}: server RSS growth, peak`,
      mb(f.rssPeakGrowth),
      `goal < 200 MB ${f.rssPeakGrowth < 200e6 ? "(ok)" : "(OVER)"}; after ${mb(f.rssGrowth)}; ` +
        `error lines in its log ${f.errors.length}` +
        (f.rollbacks === null
          ? ""
          : `; transactions rolled back ${f.rollbacks} (serialisation retries, refused checks)`),
    );
  }
}

if (import.meta.main) {
  await benchUploadLoad(
    (name, value, note = "") => console.log(`${name.padEnd(52)} ${value.padStart(12)}  ${note}`),
    Number(Deno.args[0] ?? 16),
  );
}
