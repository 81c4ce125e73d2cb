/**
 * This file: non-members, authors, strangers, decided, double votes (the same subject goes on in
 * approvals_access_test.ts).
 *
 * Who may decide (spec §4 approval actions, §6 roles and delegation, §7 Approvals, §8): users
 * are refused when they may not decide, act through a delegating team, and malformed or
 * unauthenticated calls are refused. In-process, no sockets.
 */
import assert from "node:assert/strict";
import { fr } from "../../client/shared/i18n/locales/fr.ts";
import { withApp } from "../helpers.ts";
import { assertError, assertOk, type Headers, type Res } from "./api.ts";
import {
  approvalComments,
  approve,
  decided,
  details,
  entity,
  everyone,
  flags,
  getA,
  levelStatuses,
  list,
  MSG,
  NO_FLAGS,
  postA,
  reject,
  rowOf,
  submitted,
  votes,
} from "./approvals_fixture.ts";

// ---------------------------------------------------------------------------------------------
// Refusals

Deno.test(
  "[approvals] a non-member of the open level, or a user of another team, is refused with 403 not_allowed",
  withApp(async (api) => {
    const { emp, fin, mgr, del, dir } = await everyone(api);
    const { request: x, oid } = await submitted(api, emp.h);

    // Level 1 is Finance's: Management members may only review.
    assertError(await approve(api, mgr.h, oid), 403, "not_allowed", MSG.notAllowed);
    assertError(await reject(api, mgr.h, oid), 403, "not_allowed", MSG.notAllowed);
    assertError(await approve(api, dir.h, oid), 403, "not_allowed", fr["approval.notAllowed"]);
    assertError(await reject(api, dir.h, oid), 403, "not_allowed", fr["approval.notAllowed"]);
    const d0 = await details(api, fin.h, oid);
    assert.deepEqual(d0.votes, []);
    assert.deepEqual(levelStatuses(d0), [[1, "open"], [2, "pending"]]);

    await decided(approve(api, fin.h, oid));
    // Level 2 is Management's: Finance and its delegates are another team now.
    for (const h of [fin.h, del.h]) {
      assertError(await approve(api, h, oid), 403, "not_allowed", MSG.notAllowed);
      assertError(await reject(api, h, oid), 403, "not_allowed", MSG.notAllowed);
    }
    const d1 = await details(api, fin.h, oid);
    assert.equal(d1.statusCode, "new");
    assert.deepEqual(d1.votes.map((v) => [v.userFullName, v.level]), [["Adam Fischer", 1]]);
    assert.deepEqual(levelStatuses(d1), [[1, "approved"], [2, "open"]]);
    assert.equal((await entity(api, emp.h, x.oid)).statusCode, "requested");
    assert.deepEqual(flags((await rowOf(api, del.h, oid))!), {
      canApprove: false,
      canReject: false,
      canReview: true,
      isDelegated: false,
    });
  }),
);

Deno.test(
  "[approvals] the author never decides on his own request, even in the level's team, nor lists it",
  withApp(async (api) => {
    const { emp, fin, mgr, dir } = await everyone(api);
    const other = await submitted(api, emp.h, { purpose: "Someone else's trip" });
    const { request: x, oid } = await submitted(api, mgr.h, {
      amount: 400,
      purpose: "Client visit in Ghent",
    });
    const mine = await details(api, mgr.h, oid);
    assert.deepEqual(flags(mine), NO_FLAGS);
    assert.equal(mine.author, "Maria Jansen");
    assertError(await approve(api, mgr.h, oid), 403, "not_allowed", MSG.notAllowed);

    await decided(approve(api, fin.h, oid));
    // Level 2 is Management's, and he is in Management: still refused.
    assert.deepEqual(flags(await details(api, mgr.h, oid)), NO_FLAGS);
    assertError(await approve(api, mgr.h, oid), 403, "not_allowed", MSG.notAllowed);
    assertError(await reject(api, mgr.h, oid), 403, "not_allowed", MSG.notAllowed);
    assert.deepEqual(
      (await details(api, fin.h, oid)).votes.map((v) => v.userFullName),
      ["Adam Fischer"],
    );
    // His list shows the employee's approval, never his own.
    const rows = await list(api, mgr.h);
    assert.ok(!rows.some((r) => r.oid === oid || r.authorOid === mgr.oid), "own approval listed");
    assert.deepEqual(rows.map((r) => r.oid), [other.oid]);

    // The other Management member decides it.
    const dirRow = await rowOf(api, dir.h, oid);
    assert.ok(dirRow);
    assert.equal(dirRow.author, "Maria Jansen");
    assert.equal(dirRow.canApprove, true);
    const done = await decided(approve(api, dir.h, oid));
    assert.equal(done.statusCode, "approved");
    assert.equal((await entity(api, mgr.h, x.oid)).statusCode, "accepted");
  }),
);

Deno.test(
  "[approvals] a user in none of the levels' teams gets 404 on every call, exactly like a random oid",
  withApp(async (api) => {
    const { emp, fin, mgr, dir } = await everyone(api);
    const big = await submitted(api, emp.h); // Finance + Management
    const small = await submitted(api, emp.h, { amount: 100 }); // Finance only
    assertOk(await postA(api, fin.h, "pwacomments", { oid: small.oid, comment: "checking" }));

    const calls = (h: Headers, oid: string): [string, () => Promise<Res>][] => [
      ["details", () => getA(api, h, `pwagetapprovaldetails?record=${oid}`)],
      ["votes", () => getA(api, h, `pwagetvotes?oid=${oid}`)],
      ["comments", () => getA(api, h, `pwagetComments?foreignentityoid=${oid}`)],
      ["comment", () => postA(api, h, "pwacomments", { oid, comment: "hello" })],
      ["approve", () => approve(api, h, oid)],
      ["reject", () => reject(api, h, oid)],
    ];
    const cases: [string, Headers, string][] = [
      ["the author (employee)", emp.h, big.oid],
      ["the author (employee)", emp.h, small.oid],
      ["manager@ on a Finance-only approval", mgr.h, small.oid],
      ["director@ on a Finance-only approval", dir.h, small.oid],
    ];
    for (const [who, h, oid] of cases) {
      const foreign = calls(h, oid);
      const random = calls(h, crypto.randomUUID());
      for (let i = 0; i < foreign.length; i++) {
        const [name, call] = foreign[i];
        const f = await call();
        const r = await random[i][1]();
        assertError(f, 404, "not_found");
        assertError(r, 404, "not_found");
        assert.equal(f.text, r.text, `${who} ${name}: foreign and random answers differ`);
      }
    }
    // Nothing changed, and those lists do not show them.
    for (const oid of [big.oid, small.oid]) {
      const d = await details(api, fin.h, oid);
      assert.equal(d.statusCode, "new");
      assert.deepEqual(d.votes, []);
    }
    assert.deepEqual(
      (await approvalComments(api, fin.h, small.oid)).map((c) => c.comment.text),
      ["checking"],
    );
    assert.deepEqual(await approvalComments(api, fin.h, big.oid), []);
    assert.deepEqual(await list(api, emp.h), []);
    assert.deepEqual((await list(api, mgr.h)).map((r) => r.oid), [big.oid]);
    assert.deepEqual((await list(api, dir.h)).map((r) => r.oid), [big.oid]);
  }),
);

Deno.test(
  "[approvals] deciding or commenting after the outcome is 403 decided",
  withApp(async (api) => {
    const { emp, fin, mgr, del } = await everyone(api);
    const ok = await submitted(api, emp.h, { amount: 100 });
    await decided(approve(api, fin.h, ok.oid));
    const no = await submitted(api, emp.h);
    await decided(reject(api, del.h, no.oid));

    for (const oid of [ok.oid, no.oid]) {
      for (const h of [fin.h, del.h]) {
        assertError(await approve(api, h, oid), 403, "decided", MSG.decided);
        assertError(await reject(api, h, oid), 403, "decided", MSG.decided);
        assertError(
          await postA(api, h, "pwacomments", { oid, comment: "too late" }),
          403,
          "decided",
          MSG.decided,
        );
      }
    }
    assertError(await approve(api, mgr.h, no.oid), 403, "decided", MSG.decided);
    assert.equal((await votes(api, fin.h, ok.oid)).length, 1);
    assert.equal((await votes(api, fin.h, no.oid)).length, 1);
    assert.equal((await details(api, fin.h, ok.oid)).statusCode, "approved");
    assert.equal((await details(api, fin.h, no.oid)).statusCode, "rejected");
    assert.deepEqual(await approvalComments(api, fin.h, ok.oid), []);
    assert.equal((await entity(api, emp.h, ok.request.oid)).statusCode, "accepted");
    assert.equal((await entity(api, emp.h, no.request.oid)).statusCode, "rejected");
  }),
);

Deno.test(
  "[approvals] nobody votes twice on one level: refused after a vote, also with a quota of 2 and concurrently",
  withApp(async (api) => {
    const { emp, fin, del } = await everyone(api);

    // Quota 1: the level closes with the vote; the voter cannot vote again.
    const a = await submitted(api, emp.h);
    await decided(approve(api, fin.h, a.oid));
    assertError(await approve(api, fin.h, a.oid), 403, "not_allowed", MSG.notAllowed);
    assertError(await reject(api, fin.h, a.oid), 403, "not_allowed", MSG.notAllowed);
    assert.equal((await votes(api, fin.h, a.oid)).length, 1);

    // Quota 2 (the demo policies have none: set on the stored record): level 1 stays open.
    const b = await submitted(api, emp.h);
    const entry = await api.deps.store.approvals.get(b.oid);
    const twice = {
      ...entry.value!,
      levels: entry.value!.levels.map((l) => (l.level === 1 ? { ...l, quota: 2 } : l)),
    };
    assert.ok(
      (await api.deps.store.approvals.put(api.kv.atomic().check(entry), twice).commit()).ok,
    );

    const rs = await Promise.all(Array.from({ length: 10 }, () => approve(api, fin.h, b.oid)));
    assert.deepEqual(
      rs.map((r) => r.status).sort(),
      [200, ...Array(9).fill(403)],
      rs.map((r) => r.text).join("\n"),
    );
    for (const r of rs.filter((r) => r.status !== 200)) {
      assertError(r, 403, "not_allowed", MSG.notAllowed);
    }
    const one = await details(api, fin.h, b.oid);
    assert.deepEqual(levelStatuses(one), [[1, "open"], [2, "pending"]]);
    assert.equal(one.votes.length, 1);
    assert.deepEqual(flags(one), {
      canApprove: false,
      canReject: false,
      canReview: true,
      isDelegated: false,
    });
    assertError(await approve(api, fin.h, b.oid), 403, "not_allowed", MSG.notAllowed);
    assertError(await reject(api, fin.h, b.oid), 403, "not_allowed", MSG.notAllowed);

    // A second person completes the quota.
    const two = await decided(approve(api, del.h, b.oid));
    assert.deepEqual(levelStatuses(two), [[1, "approved"], [2, "open"]]);
    assert.deepEqual(two.votes.map((v) => [v.userFullName, v.level, v.isDelegated]), [
      ["Adam Fischer", 1, false],
      ["Daniel Peeters", 1, true],
    ]);
  }),
);
