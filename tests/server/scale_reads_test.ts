/**
 * Bounded reads (issue 40, docs/benchmarks.md "Scale"): what a call or a sweep reads follows
 * the caller's own data or the work due, not the organisation's size. Each test counts the
 * entries the store hands out (get, getMany, list — patched on the KV instance) for a prefix,
 * then grows what must not matter and counts again. Runs on Deno KV and on PostgreSQL.
 */
import assert from "node:assert/strict";
import { DEMO, type TestApi, withApp } from "../helpers.ts";
import { newApproval } from "../../server/domain/workflow.ts";
import { APPROVAL_HISTORY, listApprovals } from "../../server/domain/approvals.ts";
import { runReminders } from "../../server/reminders/receipts.ts";
import { checkOverdue } from "../../server/push/overdue.ts";
import { approvalTeams } from "../../server/domain/request_views.ts";
import type { RequestRecord } from "../../server/store/requests.ts";
import type { ApprovalRecord } from "../../server/store/approvals.ts";
import { MISSING } from "../../server/store/transactions.ts";
import { transactionRecord } from "./transaction_records.ts";

const DAY = 86_400_000;

/** Counts the entries read per first key part while `f` runs. */
async function reads(api: TestApi, f: () => Promise<unknown>): Promise<Map<string, number>> {
  const kv = api.kv as unknown as Record<string, unknown>;
  const saved = { get: kv.get, getMany: kv.getMany, list: kv.list };
  const n = new Map<string, number>();
  const count = (key: Deno.KvKey) => n.set(String(key[0]), (n.get(String(key[0])) ?? 0) + 1);
  const self = api.kv;
  kv.get = (key: Deno.KvKey, o?: unknown) => {
    count(key);
    return (saved.get as typeof self.get).call(self, key, o as never);
  };
  kv.getMany = (keys: Deno.KvKey[], o?: unknown) => {
    keys.forEach(count);
    return (saved.getMany as typeof self.getMany).call(self, keys, o as never);
  };
  kv.list = (sel: Deno.KvListSelector, o?: Deno.KvListOptions) => {
    const it = (saved.list as typeof self.list).call(self, sel, o);
    return {
      async *[Symbol.asyncIterator]() {
        for await (const e of it) {
          count(e.key);
          yield e;
        }
      },
    } as unknown as Deno.KvListIterator<unknown>;
  };
  try {
    await f();
  } finally {
    Object.assign(kv, saved);
  }
  return n;
}

const total = (m: Map<string, number>, ...prefixes: string[]) =>
  prefixes.reduce((s, p) => s + (m.get(p) ?? 0), 0);

function request(authorOid: string, i: number): RequestRecord {
  return {
    oid: crypto.randomUUID(),
    id: `R${String(900_000 + i)}`,
    authorOid,
    accountOid: "acc-eur",
    typeOid: "type-travel",
    purpose: `History ${i}`,
    status: "accepted",
    issueDate: Date.now() - i * 1000,
    costCenterOid: null,
    costCenter: "",
    GLOid: null,
    GLCode: "",
    projectOid: null,
    projectCode: "",
    vendor: "",
    url: "",
    amount: 100,
    currency: "EUR",
    budgetPlan: null,
    budget: [],
    approvalOid: null,
    hasCard: false,
    openCard: false,
    cardStatusCode: null,
    approverNote: null,
    archive: false,
    updatedAt: Date.now(),
  };
}

const POLICY = {
  approvalPolicy: [{
    levels: [{ level: 1, actionDescription: "Finance", teamOids: ["team-finance"], quota: 1 }],
  }],
};

/** `n` approvals of the finance team by the employee: decided, or open. */
async function approvals(api: TestApi, n: number, open: boolean, from = 0) {
  const emp = (await api.deps.store.users.byEmail(DEMO.employee))!;
  for (let i = 0; i < n; i += 20) {
    const op = api.kv.atomic();
    for (let j = i; j < Math.min(n, i + 20); j++) {
      const r = request(emp.oid, from + j);
      const a = newApproval(r, POLICY, Date.UTC(2026, 0, 1) + (from + j) * 60_000, 1);
      const rec: ApprovalRecord = open ? a : { ...a, statusCode: "approved" };
      api.deps.store.requests.put(op, { ...r, approvalOid: a.oid });
      api.deps.store.approvals.put(op, rec);
    }
    assert.ok((await op.commit()).ok);
  }
}

Deno.test(
  "[scale] the approvers' list reads every open approval and a bounded history, not the team's past",
  withApp(async (api) => {
    const fin = (await api.deps.store.users.byEmail(DEMO.approver))!;
    await approvals(api, 3, true);
    await approvals(api, APPROVAL_HISTORY + 50, false, 10);
    let rows = await listApprovals(api.deps, fin);
    const first = await reads(api, async () => rows = await listApprovals(api.deps, fin));
    // Every open one, and the newest APPROVAL_HISTORY of the rest (open ones are the oldest).
    assert.equal(rows.filter((r) => r.statusCode === "new").length, 3);
    assert.equal(rows.length, APPROVAL_HISTORY + 3);
    // Twice the history: the same reads.
    await approvals(api, 2 * APPROVAL_HISTORY, false, 10_000);
    const second = await reads(api, () => listApprovals(api.deps, fin));
    const approvalReads = (m: Map<string, number>) =>
      total(m, "approval", "approval_by_team", "approval_team_at", "approval_team_open");
    assert.ok(
      approvalReads(second) <= approvalReads(first) + 3,
      `approval reads ${approvalReads(first)} → ${approvalReads(second)}`,
    );
    assert.equal(second.get("approval_by_team") ?? 0, 0, "the whole-history index is not read");
  }),
);

Deno.test(
  "[scale] approval indexes written before they existed are built once, then used",
  withApp(async (api) => {
    const fin = (await api.deps.store.users.byEmail(DEMO.approver))!;
    await approvals(api, 2, true);
    await approvals(api, 4, false, 10);
    // A store from before: no time-ordered nor open index, no marker.
    for (const p of ["approval_team_at", "approval_team_open", "approval_team_ready"]) {
      for await (const e of api.kv.list({ prefix: [p] })) await api.kv.delete(e.key);
    }
    const { ApprovalRepo } = await import("../../server/store/approvals.ts");
    api.deps.store.approvals = new ApprovalRepo(api.kv);
    const rows = await listApprovals(api.deps, fin);
    assert.equal(rows.length, 6);
    assert.equal(rows.filter((r) => r.statusCode === "new").length, 2);
    assert.equal((await api.kv.get(["approval_team_ready"])).value, true);
  }),
);

Deno.test(
  "[scale] receipt sweeps read what fell due (the missing-receipt index), not every transaction",
  withApp(async (api) => {
    const emp = (await api.deps.store.users.byEmail(DEMO.employee))!;
    const now = Date.UTC(2026, 10, 18, 12);
    api.deps.now = () => now;
    const put = async (n: number, over: Parameters<typeof transactionRecord>[1]) => {
      for (let i = 0; i < n; i += 50) {
        const op = api.kv.atomic();
        for (let j = i; j < Math.min(n, i + 50); j++) {
          api.deps.store.transactions.put(op, transactionRecord(emp.oid, over));
        }
        assert.ok((await op.commit()).ok);
      }
    };
    // Old purchases with receipts: nothing is due.
    await put(200, { nbReceipts: 1, capturedAt: now - 40 * DAY, createdAt: now - 40 * DAY });
    const sweep = () => Promise.all([runReminders(api.deps), checkOverdue(api.deps)]);
    await sweep();
    const idle = await reads(api, sweep);
    assert.equal(idle.get("transaction") ?? 0, 0, "no transaction record read when nothing is due");
    // One missing receipt, due: read, and its digest sent.
    await put(1, { nbReceipts: 0, capturedAt: now - 3 * DAY, createdAt: now - 3 * DAY });
    let sent = { pushed: 0, mailed: 0 };
    const due = await reads(api, async () => sent = await runReminders(api.deps));
    assert.equal(sent.mailed, 1);
    assert.ok((due.get("transaction") ?? 0) <= 2, `${due.get("transaction")} transaction reads`);
    // Its receipt arrives: out of the index.
    const [t] = (await api.deps.store.transactions.byUser(emp.oid)).filter((t) => !t.nbReceipts);
    assert.ok(
      (await api.deps.store.transactions.put(api.kv.atomic(), { ...t, nbReceipts: 1 })
        .commit()).ok,
    );
    const left = await Array.fromAsync(api.kv.list({ prefix: [...MISSING] }));
    assert.equal(left.length, 0);
  }),
);

Deno.test(
  "[scale] pwalists asks the issuer once for every open card, and a request's teams read no user list",
  withApp(async (api) => {
    const { deps } = api;
    const emp = (await deps.store.users.byEmail(DEMO.employee))!;
    // Three open cards.
    for (let i = 0; i < 3; i++) {
      const r = request(emp.oid, i);
      const card = await deps.issuer.createCard({
        idempotencyKey: `request:${r.oid}`,
        cardholderName: "Emma Laurent",
        brand: "visa",
        currency: "EUR",
        amount: 10_000,
        validUntil: new Date(Date.now() + 30 * DAY).toISOString().slice(0, 10),
        metadata: { requestOid: r.oid, requestId: r.id, userOid: emp.oid },
      });
      const { cardRecorded } = await import("../../server/domain/cards.ts");
      assert.ok(
        (await deps.store.requests.put(
          api.kv.atomic(),
          cardRecorded(r, card, "Emma Laurent", Date.now()),
        ).commit()).ok,
      );
    }
    const calls = { one: 0, many: 0 };
    const issuer = deps.issuer as unknown as Record<string, (...a: unknown[]) => unknown>;
    const [one, many] = [issuer.getCard, issuer.getCards];
    issuer.getCard = (...a) => (calls.one++, one.apply(deps.issuer, a));
    issuer.getCards = (...a) => (calls.many++, many.apply(deps.issuer, a));
    const { token, deviceId } = await api.activate(DEMO.employee);
    const res = await api.call("GET", "/scmapi/expense/pwalists", {
      headers: { authorization: `Bearer ${token}`, "device-id": deviceId },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(calls, { one: 0, many: 1 });
    const text = JSON.stringify(res.json);
    assert.ok(text.includes('"cardAvailable":100'), "each open card's balance is shown");
    // A request's approvers come from the kept organisation, not a scan of every user.
    const r = (await deps.store.requests.byUser(emp.oid))[0];
    await approvalTeams(deps, r);
    const m = await reads(api, () => approvalTeams(deps, r));
    assert.equal(m.get("user") ?? 0, 0, `${m.get("user")} user records read`);
  }),
);
