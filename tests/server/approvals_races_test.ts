/**
 * Approval races (spec §4 approval actions, §7 Approvals): users deciding, commenting and
 * cancelling at once, and a cancelled request's approval. In-process, no sockets.
 */
import assert from "node:assert/strict";
import type { ApprovalRequest } from "../../client/shared/contract/approvals.ts";
import { type TestApi, withApp } from "../helpers.ts";
import { assertError, assertOk, type Res } from "./api.ts";
import {
  approvalComments,
  approve,
  decided,
  details,
  entity,
  everyone,
  flags,
  levelStatuses,
  MSG,
  NO_FLAGS,
  postA,
  postE,
  reject,
  rowOf,
  submitted,
  votes,
} from "./approvals_fixture.ts";

// ---------------------------------------------------------------------------------------------
// Races

Deno.test(
  "[approvals] 50 concurrent approve/reject calls on one approval: exactly one wins, consistently (5 times)",
  withApp(async (api) => {
    const { emp, fin, del } = await everyone(api);
    for (let run = 0; run < 5; run++) {
      const { request: x, oid } = await submitted(api, emp.h, { purpose: `Race ${run}` });
      // A reject reads more than an approve before committing: on odd runs the approvals
      // start a few milliseconds later, so that both outcomes usually occur.
      const tick = () => new Promise((r) => setTimeout(r, 8));
      const rs = await Promise.all(
        Array.from(
          { length: 50 },
          (_, i) =>
            i % 2 === 0
              ? (run % 2 ? tick() : Promise.resolve()).then(() => approve(api, fin.h, oid))
              : reject(api, del.h, oid),
        ),
      );
      const wins = rs.filter((r) => r.status === 200);
      assert.equal(wins.length, 1, rs.map((r) => `${r.status} ${r.text}`).join("\n"));
      const d = await details(api, fin.h, oid);
      assert.equal(d.votes.length, 1);
      assert.equal(d.votes[0].level, 1);
      // Losers see the winner's state: level 2 is not theirs, or the approval is decided.
      const refusal = d.votes[0].statusCode === "approved" ? "not_allowed" : "decided";
      for (const r of rs) {
        if (r.status === 200) continue;
        assert.ok(r.status === 403 || r.status === 409, `${r.status} ${r.text}`);
        assertError(r, r.status, r.status === 403 ? refusal : "conflict");
      }
      const req = await entity(api, emp.h, x.oid);
      const evs = api.deps.events.recent.filter((e) => "requestOid" in e && e.requestOid === x.oid);
      if (d.votes[0].statusCode === "approved") {
        assert.equal(d.votes[0].userFullName, "Adam Fischer");
        assert.equal(d.statusCode, "new");
        assert.deepEqual(levelStatuses(d), [[1, "approved"], [2, "open"]]);
        assert.equal(req.statusCode, "requested");
        assert.equal(evs.filter((e) => e.type === "approval.opened" && e.level === 2).length, 1);
        assert.equal(evs.filter((e) => e.type === "request.decided").length, 0);
      } else {
        assert.equal(d.votes[0].statusCode, "rejected");
        assert.equal(d.votes[0].userFullName, "Daniel Peeters");
        assert.equal(d.votes[0].isDelegated, true);
        assert.equal(d.statusCode, "rejected");
        assert.deepEqual(levelStatuses(d), [[1, "rejected"], [2, "cancelled"]]);
        assert.equal(req.statusCode, "rejected");
        assert.equal(evs.filter((e) => e.type === "approval.opened" && e.level === 2).length, 0);
        assert.equal(evs.filter((e) => e.type === "request.decided").length, 1);
      }
      // The returned entity is the winner's view of the final state.
      const winner = (wins[0].json.approvalentity as ApprovalRequest[])[0];
      assert.equal(winner.statusCode, d.statusCode);
      assert.deepEqual(levelStatuses(winner), levelStatuses(d));
    }
  }),
);

/**
 * Runs `meanwhile` once, after the next comment write on `oid` was prepared (its rule read
 * and checked) and before it commits: a race decided the same way every time.
 */
function beforeCommentCommit(api: TestApi, oid: string, meanwhile: () => Promise<Res>) {
  const repo = api.deps.store.comments;
  const put = repo.put;
  const ran: Res[] = [];
  repo.put = (op, c) => {
    const out = put.call(repo, op, c);
    if (ran.length || c.sourceOid !== oid) return out;
    const commit = out.commit.bind(out);
    out.commit = async () => {
      ran.push(await meanwhile());
      return await commit();
    };
    return out;
  };
  return { ran, restore: () => void (repo.put = put) };
}

Deno.test(
  "[approvals] a comment racing the decision is checked against the approval's version",
  withApp(async (api) => {
    const { emp, fin, mgr, del } = await everyone(api);

    // Decided between the comment's check and its write: refused, like any late comment.
    const small = await submitted(api, emp.h, { amount: 100 });
    const race = beforeCommentCommit(api, small.oid, () => reject(api, del.h, small.oid));
    try {
      const r = await postA(api, fin.h, "pwacomments", { oid: small.oid, comment: "Wait!" });
      assert.equal(race.ran.length, 1, "the decision did not run inside the comment");
      assertOk(race.ran[0]);
      assertError(r, 403, "decided", MSG.decided);
    } finally {
      race.restore();
    }
    assert.equal((await details(api, fin.h, small.oid)).statusCode, "rejected");
    assert.deepEqual(await approvalComments(api, fin.h, small.oid), []);
    assert.equal(
      api.deps.events.recent.filter((e) => e.type === "comment.added").length,
      0,
      "a refused comment was announced",
    );

    // Changed but still open (level 1 approved, level 2 opens): re-read, re-decided, written.
    const big = await submitted(api, emp.h, { amount: 300 });
    const open = beforeCommentCommit(api, big.oid, () => approve(api, fin.h, big.oid));
    try {
      const r = await postA(api, mgr.h, "pwacomments", { oid: big.oid, comment: "Which train?" });
      assertOk(open.ran[0]);
      assertOk(r);
    } finally {
      open.restore();
    }
    const d = await details(api, mgr.h, big.oid);
    assert.deepEqual(levelStatuses(d), [[1, "approved"], [2, "open"]]);
    assert.deepEqual(
      (await approvalComments(api, mgr.h, big.oid)).map((c) => c.comment.text),
      ["Which train?"],
    );
  }),
);

Deno.test(
  "[approvals] pwacancel racing the final pwaapprove: the approval is either cancelled or approved, never both",
  withApp(async (api) => {
    const { emp, fin } = await everyone(api);
    for (let run = 0; run < 5; run++) {
      const { request: x, oid } = await submitted(api, emp.h, { amount: 80 });
      const calls = [
        () => postE(api, emp.h, "pwacancel", { oid: x.oid }),
        () => approve(api, fin.h, oid),
      ];
      if (run % 2) calls.reverse();
      const rs = await Promise.all(calls.map((c) => c()));
      const [cancel, appr] = run % 2 ? [rs[1], rs[0]] : rs;
      // An accepted request without a card can still be cancelled: cancel always succeeds.
      assertOk(cancel);
      assert.equal((await entity(api, emp.h, x.oid)).statusCode, "cancelled");
      const d = await details(api, fin.h, oid);
      if (appr.status === 200) {
        assert.equal(d.statusCode, "approved");
        assert.deepEqual(levelStatuses(d), [[1, "approved"]]);
        assert.equal(d.votes.length, 1);
      } else {
        assertError(appr, 403, "decided", MSG.decided);
        assert.equal(d.statusCode, "cancelled");
        assert.deepEqual(levelStatuses(d), [[1, "cancelled"]]);
        assert.deepEqual(d.votes, []);
      }
    }
  }),
);

Deno.test(
  "[approvals] cancelling the request cancels its approval: approvers then get 403 decided",
  withApp(async (api) => {
    const { emp, fin, mgr, del } = await everyone(api);
    const { request: x, oid } = await submitted(api, emp.h);
    await decided(approve(api, fin.h, oid));
    assertOk(await postE(api, emp.h, "pwacancel", { oid: x.oid }));
    assert.equal((await entity(api, emp.h, x.oid)).statusCode, "cancelled");

    const d = await details(api, fin.h, oid);
    assert.equal(d.statusCode, "cancelled");
    assert.deepEqual(levelStatuses(d), [[1, "approved"], [2, "cancelled"]]);
    assert.deepEqual(flags(d), NO_FLAGS);
    for (const h of [mgr.h, fin.h, del.h]) {
      assertError(await approve(api, h, oid), 403, "decided", MSG.decided);
      assertError(await reject(api, h, oid), 403, "decided", MSG.decided);
    }
    const row = (await rowOf(api, mgr.h, oid))!;
    assert.equal(row.statusCode, "cancelled");
    assert.deepEqual(flags(row), NO_FLAGS);
    assert.equal((await votes(api, fin.h, oid)).length, 1);
    assert.ok(
      api.deps.events.recent.some((e) =>
        e.type === "approval.cancelled" && e.approvalOid === oid && e.requestOid === x.oid
      ),
    );
    assert.ok(!api.deps.events.recent.some((e) => e.type === "request.decided"));
  }),
);
