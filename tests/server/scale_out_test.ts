/**
 * Scale out on one store: two real main.ts processes on one KV file (or, with
 * QCARD_TEST_STORE=postgres, one PostgreSQL database — the PostgreSQL part of
 * `deno task test`), started
 * together on the empty store. Nothing one needs lives only in the other's memory: the store
 * is seeded once, a session made on one works on the other, the 50-concurrent-decisions race
 * and the concurrent-purchases race split across both end with one outcome, a rate limit hit
 * on one holds on the other, an idempotent write made on one replays on the other, and each
 * periodic job is run by one process at a time (its lease), handed on when that one stops.
 */
import assert from "node:assert/strict";
import type { Card } from "../../client/shared/contract/cards.ts";
import type { ApprovalRow } from "../../client/shared/contract/approvals.ts";
import type { ExpenseRequest } from "../../client/shared/contract/requests.ts";
import type { TransactionRow } from "../../client/shared/contract/transactions.ts";
import { leaseKey, type LeaseRecord } from "../../server/store/lease.ts";
import { openKv } from "../../server/store/kv.ts";
import { localEnv, type Proc, startMain } from "./main_process.ts";

/** PostgreSQL when the run asks for it (tests/run.ts), else a KV file. */
const ON_PG = Deno.env.get("QCARD_TEST_STORE") === "postgres";

const E = "/bonita/scmapi/expense";
const A = "/bonita/scmapi/approval";
const PIN = "135790";
const TRAVEL = {
  typeOid: "type-travel",
  costCenterOid: "cc-sales",
  GLOid: "gl-travel",
  projectOid: "prj-crm",
};

interface Res {
  status: number;
  json: Record<string, unknown>;
  text: string;
  headers: Headers;
}

/** One HTTP call to a process; JSON in and out. */
async function call(
  p: Proc,
  method: string,
  path: string,
  o: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Res> {
  const headers: Record<string, string> = { accept: "application/json", ...o.headers };
  if (o.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`http://127.0.0.1:${p.port}${path}`, {
    method,
    headers,
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text);
  } catch { /* not JSON: the caller asserts on status */ }
  return { status: res.status, json, text, headers: res.headers };
}

function ok(r: Res, what: string): Res {
  assert.equal(r.status, 200, `${what}: ${r.status} ${r.text}`);
  return r;
}

/** The texts of the outbox's messages to `to`, newest first (from either process). */
async function outbox(p: Proc, to: string): Promise<string[]> {
  const r = ok(await call(p, "GET", `/_outbox?to=${encodeURIComponent(to)}`), "outbox");
  return (r.json.messages as { text: string }[]).map((m) => m.text);
}

/** Activates a device for `email` on `p`; its bearer and device-id headers. */
async function login(p: Proc, email: string) {
  const [mail] = await outbox(p, email);
  const code = /activation code is (\d{5})/.exec(mail ?? "")?.[1];
  assert.ok(code, `no activation code for ${email}`);
  const device = { "device-id": `scale-${crypto.randomUUID()}` };
  const body = { verificationcode: code };
  ok(await call(p, "POST", `${E}/pwacheckvalidation`, { body, headers: device }), "check");
  const pin = await call(p, "POST", `${E}/pwaconfirmpin`, {
    body: { ...body, pin: PIN },
    headers: device,
  });
  ok(pin, "confirmpin");
  return { authorization: `Bearer ${pin.json.token}`, ...device };
}

/** A TRAVEL request of `amount` created on one process and submitted on the other. */
async function submitted(x: Proc, y: Proc, h: Record<string, string>, amount: number) {
  const c = ok(
    await call(x, "POST", `${E}/pwaexpenserequestcreate`, {
      body: { expenseRequest: { ...TRAVEL, amount, purpose: `Scale ${amount}` } },
      headers: h,
    }),
    "create",
  );
  const oid = (c.json.expenseRequest as ExpenseRequest).oid;
  ok(await call(y, "POST", `${E}/pwasubmit`, { body: { record: oid }, headers: h }), "submit");
  return oid;
}

/** The approval of request `oid`, as approver@ lists it. */
async function approvalOf(p: Proc, h: Record<string, string>, oid: string) {
  const r = ok(await call(p, "GET", `${A}/pwalistrequests`, { headers: h }), "list");
  const row = (r.json.approvallist as ApprovalRow[]).find((a) => a.sourceEntityOid === oid);
  assert.ok(row, `no approval for ${oid}`);
  return row.oid;
}

const decide = (p: Proc, h: Record<string, string>, verb: string, oid: string) =>
  call(p, "POST", `${A}/pwa${verb}`, { body: { oid, archive: false }, headers: h });

Deno.test({
  name: `[scale] two processes on one ${ON_PG ? "PostgreSQL database" : "KV file"}: one seed, ` +
    "shared sessions, races end once, limits and idempotency hold across, periodic jobs run " +
    "by one lease holder, handed on at SIGTERM",
  ignore: Deno.build.os === "windows",
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "qcard-scale-" });
    // A schema of its own on the test PostgreSQL (tests/pg.ts), dropped at the end.
    const pg = ON_PG ? await (await import("../pg.ts")).freshPgUrl() : undefined;
    const env = {
      ...localEnv(dir),
      ...(pg ? { KV_PATH: pg.url, PG_POOL_SIZE: "8" } : {}),
      ACTIVATION_CHECKS_PER_DAY: "1000",
      // Short periods, so the leases are seen taken, renewed and handed on within seconds.
      BLOB_SWEEP_MS: "200",
      MESSAGE_SWEEP_MS: "200",
      SHUTDOWN_TIMEOUT_MS: "3000",
    };
    // Both start together on the empty store: both see no users and want to seed it.
    const procs = await Promise.all([startMain(env), startMain(env)]);
    const [a, b] = procs;
    const kv = await openKv(env.KV_PATH, false, { poolSize: 2 });
    try {
      // --- One seed: one process imported, the other waited and found the users.
      const seeded = procs.filter((p) => p.lines.some((l) => l.includes("Loaded the demo org")));
      assert.equal(seeded.length, 1, "exactly one process seeded the store");
      assert.equal((await outbox(b, "employee@demo.example")).length, 1, "one activation mail");
      assert.equal((await outbox(a, "approver@demo.example")).length, 1);

      // --- Sessions in the store: each user activates on one process, works on the other.
      const emp = await login(a, "employee@demo.example");
      const fin = await login(b, "approver@demo.example");
      const del = await login(a, "delegate@demo.example");
      ok(await call(b, "GET", `${E}/pwalists`, { headers: emp }), "emp's token on b");
      ok(await call(a, "GET", `${A}/pwalistrequests`, { headers: fin }), "fin's token on a");

      // --- (a) 50 concurrent decisions on one approval, split across both processes.
      for (let run = 0; run < 2; run++) {
        const request = await submitted(a, b, emp, 300 + run);
        const oid = await approvalOf(a, fin, request);
        const rs = await Promise.all(Array.from({ length: 50 }, (_, i) => {
          const p = procs[i % 2];
          return (i >> 1) % 2 ? decide(p, del, "reject", oid) : decide(p, fin, "approve", oid);
        }));
        const wins = rs.filter((r) => r.status === 200);
        assert.equal(wins.length, 1, rs.map((r) => `${r.status} ${r.text}`).join("\n"));
        for (const r of rs) {
          if (r.status !== 200) assert.ok(r.status === 403 || r.status === 409, r.text);
        }
        const d = ok(
          await call(b, "GET", `${A}/pwagetvotes?oid=${oid}`, { headers: fin }),
          "votes",
        );
        assert.equal((d.json.voteslist as unknown[]).length, 1, "one vote recorded");
      }

      // --- (b) One card from 50 concurrent pwanewqcard, then 50 concurrent purchases of
      // 10.00 on its 100.50 (both split across the processes): 10 approved, no overspend.
      const secure = await call(a, "POST", `${E}/pwasetexpensedosecure`, {
        body: {
          record: { password: "Tr4in-2027!", countryPrefix: "+33", phoneNumber: "612345678" },
        },
        headers: emp,
      });
      ok(secure, "3-D Secure");
      const smsPin = /PIN is (\d{4})/.exec((await outbox(b, "+33612345678"))[0] ?? "")?.[1];
      assert.ok(smsPin, "no 3-D Secure PIN");
      ok(
        await call(b, "POST", `${E}/pwaexpensedosecurevalidatepin`, {
          body: { pin: smsPin },
          headers: emp,
        }),
        "validate PIN",
      );
      const request = await submitted(b, a, emp, 100.5);
      ok(await decide(a, fin, "approve", await approvalOf(b, fin, request)), "accept");
      const cards = await Promise.all(
        procs.flatMap((p) =>
          Array.from(
            { length: 25 },
            () => call(p, "POST", `${E}/pwanewqcard`, { body: { oid: request }, headers: emp }),
          )
        ),
      );
      for (const r of cards) ok(r, "pwanewqcard");
      assert.equal(new Set(cards.map((r) => (r.json.card as Card).last4)).size, 1, "one card");
      const card = cards[0].json.card as Card;
      assert.equal(card.amountAvailable, 100.5);
      const buys = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          call(procs[i % 2], "POST", "/_issuer/purchase", {
            body: {
              card: card.oid,
              amount: "10.00",
              merchantName: "Café de la Gare",
              merchantCountry: "FR",
              mcc: "5812",
              capture: true,
            },
          })),
      );
      for (const r of buys) ok(r, "purchase");
      const approved = buys.filter((r) => r.json.approved === true);
      assert.equal(approved.length, 10, "10 × 10.00 fit in 100.50, not one more");
      for (const r of buys) {
        if (r.json.approved === true) continue;
        assert.match(String(r.json.refusedReason), /over the card's available balance/);
      }
      for (const p of procs) {
        const lists = ok(await call(p, "GET", `${E}/pwalists`, { headers: emp }), "lists");
        const rows = (lists.json.transactions as { receiptslist: TransactionRow[] }).receiptslist;
        assert.equal(rows.length, 50, "every purchase recorded once, seen alike by both");
        const c = ok(
          await call(p, "GET", `${E}/pwaexpensecard?oid=${card.oid}`, { headers: emp }),
          "card",
        ).json.card as Card;
        assert.equal(c.amountAvailable, 0.5, "100.50 − 10 × 10.00");
      }

      // --- (c) A rate limit hit on one process holds on the other: 10 code checks a quarter
      // per device; the 11th, sent to the other process, is refused before it is evaluated.
      const guesser = { "device-id": `scale-guess-${crypto.randomUUID()}` };
      for (let i = 0; i < 10; i++) {
        const r = await call(a, "POST", `${E}/pwacheckvalidation`, {
          body: { verificationcode: String(10000 + i) },
          headers: guesser,
        });
        // (A guess may be some user's live code by chance: then it is answered, not refused.)
        assert.notEqual(r.status, 429, `check ${i + 1} on a: ${r.text}`);
        assert.ok(r.status < 500, r.text);
      }
      const eleventh = await call(b, "POST", `${E}/pwacheckvalidation`, {
        body: { verificationcode: "10010" },
        headers: guesser,
      });
      assert.equal(eleventh.status, 429, eleventh.text);

      // Idempotency keys are in the store too: a write made on a replays on b.
      const key = { "idempotency-key": `scale-${crypto.randomUUID()}` };
      const write = {
        body: { expenseRequest: { ...TRAVEL, amount: 42, purpose: "Once" } },
        headers: { ...emp, ...key },
      };
      const first = ok(await call(a, "POST", `${E}/pwaexpenserequestcreate`, write), "first");
      const again = ok(await call(b, "POST", `${E}/pwaexpenserequestcreate`, write), "repeat");
      assert.equal(again.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(again.json, first.json);

      // --- (d) Periodic jobs: each lease has one holder, one of the two, which keeps it and
      // renews it at every period (200 ms) while the other's ticks find it taken.
      const pids = procs.map((p) => p.child.pid);
      const holderPid = (r: LeaseRecord | null) => Number(r?.holder.split("-")[0]);
      const lease = async (name: string) => (await kv.get<LeaseRecord>(leaseKey(name))).value;
      // (Jobs — mail, SMS, push — take no lease: each attempt claims its job, server/jobs/.)
      const names = ["blob-sweep", "push-overdue"];
      const start = await Promise.all(names.map(lease));
      for (const [i, r] of start.entries()) {
        assert.ok(r && pids.includes(holderPid(r)), `${names[i]}: ${JSON.stringify(r)}`);
      }
      await new Promise((r) => setTimeout(r, 1_200));
      for (const [i, name] of names.slice(0, 1).entries()) {
        const now = await lease(name);
        assert.equal(now?.holder, start[i]!.holder, `${name} stayed with one process`);
        assert.equal(now.since, start[i]!.since);
        // 1.2 s at 200 ms: ~6 more runs by the holder.
        assert.ok(now.runs >= start[i]!.runs + 3, `${name}: ${start[i]!.runs} → ${now.runs}`);
      }
      // The blob sweep's holder stops (SIGTERM): it hands the lease on, the other takes it.
      const holder = procs.find((p) => p.child.pid === holderPid(start[0]))!;
      const other = procs.find((p) => p !== holder)!;
      holder.child.kill("SIGTERM");
      assert.equal((await holder.status).code, 0, holder.stderr());
      let moved: LeaseRecord | null = null;
      for (let i = 0; i < 40 && holderPid(moved) !== other.child.pid; i++) {
        await new Promise((r) => setTimeout(r, 100));
        moved = await lease("blob-sweep");
      }
      assert.equal(holderPid(moved), other.child.pid, "the survivor took the blob sweep over");
      ok(await call(other, "GET", `${E}/pwalists`, { headers: emp }), "the survivor serves");
    } catch (e) {
      // What the processes logged at warn and above (never secrets: see server/log.ts).
      for (const [i, p] of procs.entries()) {
        console.error(`process ${i}:`, p.lines.filter((l) => !l.includes('"info"')).join("\n"));
        console.error(p.stderr());
      }
      throw e;
    } finally {
      // Deno KV closes at once; the PostgreSQL store's close() is a promise (its pool).
      await (kv.close() as void | Promise<void>);
      for (const p of procs) {
        try {
          p.child.kill("SIGTERM");
        } catch { /* exited */ }
        await p.status;
      }
      await pg?.drop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
