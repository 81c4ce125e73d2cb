/**
 * This file: submit and its approval (the same subject goes on in requests_edit_test.ts).
 *
 * Expense request submit and edit (spec §4 request statuses and submit flow, §5 edit rules, §7
 * writes): submit and its approval, edit with reissue. In-process, no sockets.
 */
import assert from "node:assert/strict";
import type { ApprovalTeam } from "../../client/shared/contract/requests.ts";
import { decide } from "../../server/domain/approvals.ts";
import { DEMO, withApp } from "../helpers.ts";
import { assertError, assertOk, login } from "./api.ts";
import {
  at,
  create,
  entity,
  FINANCE,
  get,
  MANAGEMENT,
  MSG,
  post,
  sortUsers,
  submit,
} from "./requests_fixture.ts";

// ---------------------------------------------------------------------------------------------
// Submit and approvals

Deno.test(
  "[requests] pwasubmit moves new → requested and opens one Finance level for TRAVEL ≤ 250",
  withApp(async (api) => {
    const { h, oid: me } = await login(api, DEMO.employee);
    const x = await create(api, h, { amount: 250 });
    const s = await submit(api, h, x.oid);
    assert.equal(s.statusCode, "requested");
    assert.equal(s.canSubmit, false);
    assert.equal(s.canEdit, true);
    assert.equal(s.canCancel, true);
    assert.equal(s.canClose, false);
    assert.equal(s.needsAttention, false);
    assert.deepEqual(sortUsers(s.approvals), [at(FINANCE, "open")]);
    assert.equal((await entity(api, h, x.oid)).statusCode, "requested");

    const aps = await api.deps.store.approvals.byRequest(x.oid);
    assert.equal(aps.length, 1);
    const a = aps[0];
    assert.equal(a.id, "AP000001.1");
    assert.equal(a.statusCode, "new");
    assert.equal(a.requestOid, x.oid);
    assert.equal(a.authorOid, me);
    assert.equal(a.amount, 250);
    assert.equal(a.currency, "EUR");
    assert.equal(a.typeOid, "type-travel");
    assert.equal(a.costCenterOid, "cc-sales");
    assert.deepEqual(a.votes, []);
    assert.equal(a.levels.length, 1);
    const { openedAt, ...l1 } = a.levels[0];
    assert.equal(typeof openedAt, "number");
    assert.deepEqual(l1, {
      level: 1,
      actionDescription: "Finance approval",
      teamOids: ["team-finance"],
      quota: 1,
      statusCode: "open",
    });
    const ap = await get(api, h, `pwaapprovals?oid=${x.oid}`);
    assertOk(ap);
    assert.deepEqual(sortUsers(ap.json.approvals as ApprovalTeam[]), [at(FINANCE, "open")]);
  }),
);

Deno.test(
  "[requests] TRAVEL above 250 is approved by Finance then Management, shown by pwaapprovals with members",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const x = await create(api, h, { amount: 250.01 });
    await submit(api, h, x.oid);
    const [a] = await api.deps.store.approvals.byRequest(x.oid);
    assert.deepEqual(
      a.levels.map((l) => [l.level, l.actionDescription, l.teamOids, l.statusCode, l.openedAt]),
      [
        [1, "Finance approval", ["team-finance"], "open", a.levels[0].openedAt],
        [2, "Management approval", ["team-management"], "pending", null],
      ],
    );
    assert.equal(typeof a.levels[0].openedAt, "number");
    const ap = await get(api, h, `pwaapprovals?oid=${x.oid}&archive=0`);
    assertOk(ap);
    const submitted = [at(FINANCE, "open"), at(MANAGEMENT, "pending")];
    assert.deepEqual(sortUsers(ap.json.approvals as ApprovalTeam[]), submitted);
    assert.deepEqual(sortUsers((await entity(api, h, x.oid)).approvals), submitted);

    // The timeline: Finance's decision (who, what, when), then Management open.
    const fin = (await api.deps.store.users.byEmail(DEMO.approver))!;
    const before = api.deps.now();
    await decide(api.deps, fin, a.oid, "approved");
    const done = api.deps.now();
    const after = sortUsers((await entity(api, h, x.oid)).approvals);
    assert.deepEqual(after.map((t) => [t.teamName, t.levelStatus]), [
      ["Finance", "approved"],
      ["Management", "open"],
    ]);
    const [d] = after[0].decisions!;
    assert.deepEqual({ ...d, at: undefined }, {
      name: "Adam Fischer",
      statusCode: "approved",
      at: undefined,
      delegated: false,
    });
    assert.ok(Date.parse(d.at) >= before && Date.parse(d.at) <= done, d.at);
    assert.deepEqual(after[1].decisions, []);
  }),
);

Deno.test(
  "[requests] pwaapprovals of an unsubmitted request previews who will approve it",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const small = await create(api, h, { amount: 40 });
    const big = await create(api, h, { amount: 4000 });
    const s = await get(api, h, `pwaapprovals?oid=${small.oid}`);
    const b = await get(api, h, `pwaapprovals?oid=${big.oid}`);
    assert.deepEqual(sortUsers(s.json.approvals as ApprovalTeam[]), [FINANCE]);
    assert.deepEqual(sortUsers(b.json.approvals as ApprovalTeam[]), [FINANCE, MANAGEMENT]);
    assert.deepEqual(await api.deps.store.approvals.byRequest(big.oid), []);
  }),
);

Deno.test(
  "[requests] create and submit publish request.created, request.submitted and approval.opened",
  withApp(async (api) => {
    const { h, oid: me } = await login(api, DEMO.employee);
    const x = await create(api, h, { amount: 300 });
    await submit(api, h, x.oid);
    const [a] = await api.deps.store.approvals.byRequest(x.oid);
    const evs = api.deps.events.recent.filter((e) => "requestOid" in e && e.requestOid === x.oid);
    assert.deepEqual(evs, [
      { type: "request.created", userOid: me, requestOid: x.oid },
      { type: "request.submitted", userOid: me, requestOid: x.oid, approvalOid: a.oid },
      {
        type: "approval.opened",
        approvalOid: a.oid,
        requestOid: x.oid,
        level: 1,
        teamOids: ["team-finance"],
      },
    ]);
  }),
);

Deno.test(
  "[requests] submitting twice is 403, also when both submits race: one approval only",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const x = await create(api, h);
    await submit(api, h, x.oid);
    assertError(
      await post(api, h, "pwasubmit", { record: x.oid }),
      403,
      "not_allowed",
      MSG.notAllowed,
    );
    assert.equal((await api.deps.store.approvals.byRequest(x.oid)).length, 1);

    const y = await create(api, h);
    const rs = await Promise.all([1, 2, 3].map(() => post(api, h, "pwasubmit", { record: y.oid })));
    assert.deepEqual(rs.map((r) => r.status).sort(), [200, 403, 403]);
    rs.filter((r) => r.status !== 200).forEach((r) => assertError(r, 403, "not_allowed"));
    const aps = await api.deps.store.approvals.byRequest(y.oid);
    assert.equal(aps.length, 1);
    assert.equal((await entity(api, h, y.oid)).statusCode, "requested");
  }),
);
