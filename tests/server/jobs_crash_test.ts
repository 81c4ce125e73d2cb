/**
 * The jobs wing (docs/jobs.md): a job is written in the same atomic write as the change that
 * causes it. main.ts is killed (SIGKILL, by itself: QCARD_TEST_CRASH_AFTER) right after a submit
 * committed, before anything else ran in it — before the approvers' push was even made. Started
 * again on the same store, the new process finds the notify job and the approver's phone gets
 * the push (spec §1 push notifications: an approval level opening notifies its approvers).
 */
import assert from "node:assert/strict";
import type { ExpenseRequest } from "../../client/shared/contract/requests.ts";
import { DEMO } from "../helpers.ts";
import { activateThrough, localEnv, type Proc, startMain } from "./main_process.ts";
import { startReceiver } from "./push_receiver.ts";

const ON_PG = Deno.env.get("QCARD_TEST_STORE") === "postgres";
const E = "/bonita/scmapi/expense";
const SUBJECT = "mailto:push-ops@qcard.eu";

async function post(p: Proc, h: Record<string, string>, path: string, body: unknown) {
  const res = await fetch(`http://127.0.0.1:${p.port}${path}`, {
    method: "POST",
    headers: { ...h, "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

Deno.test({
  name: `[jobs] killed between a change and its push on ${ON_PG ? "PostgreSQL" : "a KV file"}: ` +
    "after a restart the push is delivered",
  ignore: Deno.build.os === "windows",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "qcard-jobs-crash-" });
    const rx = startReceiver({ subject: SUBJECT });
    const pg = ON_PG ? await (await import("../pg.ts")).freshPgUrl() : undefined;
    const env = {
      ...localEnv(dir),
      ...(pg ? { KV_PATH: pg.url } : {}),
      VAPID_SUBJECT: SUBJECT,
      PUSH_HOSTS: rx.origin,
      QCARD_TEST_CRASH_AFTER: "request.submit",
    };
    const procs: Proc[] = [];
    try {
      let p = await startMain(env);
      procs.push(p);
      const base = `http://127.0.0.1:${p.port}`;
      const init = await (await fetch(`${base}/bonita/qtservlet/initialize`)).json();
      rx.expectKey(String(init.vapidPublicKey));
      const emp = await activateThrough(base, DEMO.employee);
      const approver = await activateThrough(base, DEMO.approver);
      const sub = await rx.subscribe("approver");
      const reg = await post(p, approver, `${E}/pwaregisterpushtoken`, {
        pushToken: sub.token,
        deviceId: approver["device-id"],
        isIOS: false,
      });
      assert.equal(reg.status, 200, reg.text);
      // 300 € of travel needs Finance first: the approver (docs/people.md, the demo's rules).
      const c = await post(p, emp, `${E}/pwaexpenserequestcreate`, {
        expenseRequest: {
          typeOid: "type-travel",
          costCenterOid: "cc-sales",
          GLOid: "gl-travel",
          projectOid: "prj-crm",
          amount: 300,
          purpose: "Trade fair in Lyon",
        },
      });
      assert.equal(c.status, 200, c.text);
      const oid = (JSON.parse(c.text).expenseRequest as ExpenseRequest).oid;
      // The submit commits, then the process kills itself: no answer comes.
      const answered = await post(p, emp, `${E}/pwasubmit`, { record: oid }).then(
        (r) => r.status,
        () => null,
      );
      assert.equal(answered, null, "the process died before answering");
      assert.equal((await p.status).signal, "SIGKILL");
      assert.equal(rx.to("approver").length, 0, "nothing was pushed before the crash");

      // Started again on the same store: the submit is there, and so is its notify job.
      const { QCARD_TEST_CRASH_AFTER: _, ...again } = env;
      p = await startMain(again);
      procs.push(p);
      await rx.waitFor(1, 20_000);
      const got = rx.to("approver");
      assert.equal(got.length, 1, JSON.stringify(rx.errors));
      assert.equal(got[0].payload.title, "Approval needed");
      assert.match(got[0].payload.body, /€300\.00: Trade fair in Lyon/);
      assert.deepEqual(rx.errors, []);
      const row =
        await (await fetch(`http://127.0.0.1:${p.port}${E}/pwaexpenseentity?record=${oid}`, {
          headers: { ...emp, accept: "application/json" },
        })).json();
      assert.equal(row.expenseRequest.statusCode, "requested");
    } finally {
      for (const q of procs) {
        try {
          q.child.kill("SIGTERM");
        } catch { /* gone already */ }
        await q.status;
      }
      await rx.close();
      await pg?.drop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
