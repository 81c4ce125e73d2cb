/**
 * A crash mid-burst: main.ts killed with SIGKILL while a dozen clients create and submit
 * requests, on a KV file, or with QCARD_TEST_STORE=postgres (the PostgreSQL part of
 * `deno task test`) on one PostgreSQL database. After a restart on the same store nothing
 * acknowledged is lost (every create and submit answered 200 is there, as answered) and
 * nothing is half-written: each request has its owner index, each submitted one its approval
 * and that approval's indexes, each index its record — counted alike through the API and
 * in the store. Spec §4 (submit opens the approval in the same write).
 */
import assert from "node:assert/strict";
import type { ApprovalRow } from "../../client/shared/contract/approvals.ts";
import type { ExpenseRequest, ExpenseRow } from "../../client/shared/contract/requests.ts";
import type { ApprovalRecord } from "../../server/store/approvals.ts";
import type { RequestRecord } from "../../server/store/requests.ts";
import { openKv } from "../../server/store/kv.ts";
import { DEMO } from "../helpers.ts";
import { activateThrough, localEnv, type Proc, startMain } from "./main_process.ts";

const ON_PG = Deno.env.get("QCARD_TEST_STORE") === "postgres";
const E = "/bonita/scmapi/expense";
const A = "/bonita/scmapi/approval";
const TRAVEL = {
  typeOid: "type-travel",
  costCenterOid: "cc-sales",
  GLOid: "gl-travel",
  projectOid: "prj-crm",
};
/** Clients sending at once, and how many creates are answered before the kill. */
const CLIENTS = 12;
const ACKED_BEFORE_KILL = 30;

async function post(p: Proc, h: Record<string, string>, path: string, body: unknown) {
  const res = await fetch(`http://127.0.0.1:${p.port}${path}`, {
    method: "POST",
    headers: { ...h, "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

async function getJson<T>(p: Proc, h: Record<string, string>, path: string): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${p.port}${path}`, {
    headers: { ...h, accept: "application/json" },
  });
  assert.equal(res.status, 200, `${path}: ${res.status}`);
  return await res.json() as T;
}

async function all<T>(kv: Deno.Kv, prefix: Deno.KvKey): Promise<Deno.KvEntry<T>[]> {
  return await Array.fromAsync(kv.list<T>({ prefix }, { batchSize: 1000 }));
}

Deno.test({
  name: `[crash] SIGKILL mid-burst on ${ON_PG ? "PostgreSQL" : "a KV file"}: after a restart ` +
    "every acknowledged create and submit is there, no record without its indexes",
  ignore: Deno.build.os === "windows",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "qcard-crash-" });
    const pg = ON_PG ? await (await import("../pg.ts")).freshPgUrl() : undefined;
    const env = { ...localEnv(dir), ...(pg ? { KV_PATH: pg.url, PG_POOL_SIZE: "8" } : {}) };
    let p = await startMain(env);
    const procs = [p];
    try {
      const base = `http://127.0.0.1:${p.port}`;
      const emp = await activateThrough(base, DEMO.employee);
      const fin = await activateThrough(base, DEMO.approver);

      // The burst: each client creates a request, submits every other one, and goes on
      // until its connection dies with the process.
      const created = new Map<string, string>(); // oid → purpose, answered 200
      const submitted = new Set<string>(); // oids whose submit answered 200
      const refused: string[] = [];
      let next = 0, unanswered = 0;
      let reached!: () => void;
      const enough = new Promise<void>((r) => reached = r);
      const client = async () => {
        for (;;) {
          const n = next++;
          const purpose = `Burst ${n}`;
          try {
            const c = await post(p, emp, `${E}/pwaexpenserequestcreate`, {
              expenseRequest: { ...TRAVEL, amount: 20 + n, purpose },
            });
            if (c.status !== 200) {
              refused.push(`create ${c.status} ${c.text}`);
              reached(); // nothing to wait for: the assertion below says what went wrong
              return;
            }
            const oid = (JSON.parse(c.text).expenseRequest as ExpenseRequest).oid;
            created.set(oid, purpose);
            if (created.size >= ACKED_BEFORE_KILL) reached();
            if (n % 2) continue;
            const s = await post(p, emp, `${E}/pwasubmit`, { record: oid });
            if (s.status === 200) submitted.add(oid);
            else refused.push(`submit ${s.status} ${s.text}`);
          } catch {
            unanswered++; // the process died under this request: it was never acknowledged
            return;
          }
        }
      };
      const clients = Array.from({ length: CLIENTS }, client);
      // (All clients ending first would mean the process died on its own: asserted below.)
      await Promise.race([enough, Promise.all(clients)]);
      p.child.kill("SIGKILL");
      await Promise.all(clients);
      assert.equal((await p.status).signal, "SIGKILL");
      assert.deepEqual(refused, [], "nothing refused before the kill");
      assert.ok(unanswered > 0, "requests were in flight when the process died");

      // Restarted on the same store: the sessions are in it, so the same tokens work.
      p = await startMain(env);
      procs.push(p);
      const rows = (await getJson<{ expenses: { expenseslist: ExpenseRow[] } }>(
        p,
        emp,
        `${E}/pwalists`,
      )).expenses.expenseslist;
      const byOid = new Map(rows.map((r) => [r.oid, r]));
      for (const [oid, purpose] of created) {
        const row = byOid.get(oid);
        assert.ok(row, `acknowledged create ${purpose} (${oid}) is lost`);
        assert.equal(row.purpose, purpose);
        if (submitted.has(oid)) assert.equal(row.statusCode, "requested", `${purpose} submitted`);
      }
      assert.equal(new Set(rows.map((r) => r.purpose)).size, rows.length, "no create twice");
      const approvals = (await getJson<{ approvallist: ApprovalRow[] }>(
        p,
        fin,
        `${A}/pwalistrequests`,
      )).approvallist;

      // The store itself: records and their indexes, all or nothing.
      const kv = await openKv(env.KV_PATH, false, { poolSize: 2 });
      try {
        const reqs = await all<RequestRecord>(kv, ["request"]);
        const owners = await all<string>(kv, ["request_owner"]);
        const appr = await all<ApprovalRecord>(kv, ["approval"]);
        const apprByReq = await all<string>(kv, ["approval_by_request"]);
        const apprByTeam = await all<string>(kv, ["approval_by_team"]);
        assert.equal(reqs.length, rows.length, "the API lists every request the store holds");
        assert.equal(owners.length, reqs.length, "one owner index a request");
        const recs = new Map(reqs.map((e) => [e.value.oid, e.value]));
        for (const o of owners) {
          const r = recs.get(o.key[1] as string);
          assert.ok(r, `owner index ${String(o.key[1])} without its request`);
          assert.equal(o.value, r.authorOid);
        }
        const withApproval = reqs.filter((e) => e.value.approvalOid !== null);
        assert.ok(withApproval.length >= [...submitted].length);
        assert.equal(appr.length, withApproval.length, "one approval a submitted request");
        assert.equal(apprByReq.length, appr.length, "one request index an approval");
        assert.equal(approvals.length, appr.length, "the approver sees every approval");
        const teamIndexed = new Set(apprByTeam.map((e) => e.value));
        for (const { value: a } of appr) {
          const r = recs.get(a.requestOid);
          assert.ok(r, `approval ${a.oid} without its request`);
          assert.equal(r.approvalOid, a.oid);
          assert.equal(r.status, "requested");
          assert.ok(teamIndexed.has(a.oid), `approval ${a.oid} without its team index`);
          assert.ok(
            apprByReq.some((e) => e.key[1] === a.requestOid && e.value === a.oid),
            `approval ${a.oid} without its request index`,
          );
        }
        for (const e of reqs) {
          if (e.value.status === "requested") assert.ok(e.value.approvalOid, e.value.purpose);
        }
      } finally {
        await (kv.close() as void | Promise<void>);
      }
    } catch (e) {
      for (const [i, q] of procs.entries()) {
        console.error(`process ${i}:`, q.lines.filter((l) => !l.includes('"info"')).join("\n"));
        console.error(q.stderr());
      }
      throw e;
    } finally {
      for (const q of procs) {
        try {
          q.child.kill("SIGTERM");
        } catch { /* exited */ }
        await q.status;
      }
      await pg?.drop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
