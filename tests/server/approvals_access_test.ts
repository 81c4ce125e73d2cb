/**
 * This file: imports, delegates, malformed and unauthenticated calls (the same subject goes on in
 * approvals_refusals_test.ts).
 *
 * Who may decide (spec §4 approval actions, §6 roles and delegation, §7 Approvals, §8): users
 * are refused when they may not decide, act through a delegating team, and malformed or
 * unauthenticated calls are refused. In-process, no sockets.
 */
import assert from "node:assert/strict";
import { withApp } from "../helpers.ts";
import { importOrg } from "../../server/org_sync/import.ts";
import { loadDemoOrg } from "../../server/app/boot.ts";
import { assertError, assertOk, type Headers } from "./api.ts";
import {
  A,
  approvalComments,
  approve,
  decided,
  details,
  everyone,
  flags,
  getA,
  levelStatuses,
  postA,
  rowOf,
  submitted,
  votes,
} from "./approvals_fixture.ts";

// ---------------------------------------------------------------------------------------------
// Refusals

// ---------------------------------------------------------------------------------------------
// Delegation

Deno.test(
  "[approvals] who may decide follows a new import of the organisation at once (kept teams)",
  withApp(async (api) => {
    const { emp, del } = await everyone(api);
    const a = await submitted(api, emp.h);
    const b = await submitted(api, emp.h);
    // delegate@ acts for Finance: the organisation is read (and kept) for this decision.
    await decided(approve(api, del.h, a.oid));
    // Finance no longer delegates: the next decision must see it, not a kept copy.
    const org = await loadDemoOrg();
    const teams = org.teams.map((t) => ({ ...t, delegatingTeamOid: undefined }));
    await importOrg(api.deps.store, { ...org, teams }, 1000);
    assertError(await approve(api, del.h, b.oid), 404, "not_found");
    assert.equal(await rowOf(api, del.h, b.oid), undefined);
  }),
);

Deno.test(
  "[approvals] delegate@ acts for Finance through Finance Delegates: isDelegated in his list and on his vote",
  withApp(async (api) => {
    const { emp, fin, del } = await everyone(api);
    const { oid } = await submitted(api, emp.h);
    const row = await rowOf(api, del.h, oid);
    assert.ok(row, "delegate@ does not see Finance's approval");
    assert.deepEqual(flags(row), {
      canApprove: true,
      canReject: true,
      canReview: false,
      isDelegated: true,
    });
    assert.equal((await rowOf(api, fin.h, oid))!.isDelegated, false);
    const d = await details(api, del.h, oid);
    assert.equal(d.isDelegated, true);
    assert.equal(d.pollLevels[0].pollTeams[0].delegatingTeamName, "Finance Delegates");

    // The server decides who is delegated, whatever the client claims.
    const done = await decided(approve(api, del.h, oid, { isDelegated: false }));
    assert.deepEqual(levelStatuses(done), [[1, "approved"], [2, "open"]]);
    assert.deepEqual(done.votes, [{
      userFullName: "Daniel Peeters",
      statusCode: "approved",
      createdate: done.votes[0].createdate,
      level: 1,
      isDelegated: true,
    }]);
    assert.deepEqual((await votes(api, fin.h, oid)).map((v) => v.isDelegated), [true]);
    assert.deepEqual(flags((await rowOf(api, del.h, oid))!), {
      canApprove: false,
      canReject: false,
      canReview: true,
      isDelegated: false,
    });

    const other = await submitted(api, emp.h);
    const byMember = await decided(approve(api, fin.h, other.oid, { isDelegated: true }));
    assert.deepEqual(byMember.votes.map((v) => v.isDelegated), [false]);
  }),
);

// ---------------------------------------------------------------------------------------------
// Malformed input, authentication

Deno.test(
  "[approvals] malformed bodies and queries are 400 and decide nothing",
  withApp(async (api) => {
    const { emp, fin } = await everyone(api);
    const { oid } = await submitted(api, emp.h);
    const json = { ...fin.h, "content-type": "application/json" };
    for (const p of ["pwaapprove", "pwareject", "pwacomments"]) {
      for (const raw of ["{", '{"oid": ']) {
        assertError(
          await api.call("POST", `${A}/${p}`, { raw, headers: json }),
          400,
          "malformed_json",
        );
      }
      for (const raw of ["", "{}", "[]", "null", "42", '"text"']) {
        assertError(
          await api.call("POST", `${A}/${p}`, { raw, headers: json }),
          400,
          "invalid_body",
        );
      }
      const bad: unknown[] = [
        { oid: 5 },
        { oid: "" },
        { oid: "x".repeat(65) },
        { record: oid },
        { oid, archive: "no" },
      ];
      if (p !== "pwacomments") bad.push({ oid, isDelegated: "yes" });
      for (const body of bad) {
        const b = p === "pwacomments" ? { comment: "hi", ...(body as object) } : body;
        assertError(await postA(api, fin.h, p, b), 400, "invalid_body");
      }
    }
    for (
      const body of [
        { oid },
        { oid, comment: "" },
        { oid, comment: "   " },
        { oid, comment: 12 },
        { oid, comment: "c".repeat(1001) },
      ]
    ) {
      assertError(await postA(api, fin.h, "pwacomments", body), 400, "invalid_body");
    }
    for (
      const q of [
        "pwagetapprovaldetails",
        "pwagetapprovaldetails?record=",
        `pwagetapprovaldetails?oid=${oid}`,
        `pwagetapprovaldetails?record=${oid}&archive=yes`,
        `pwagetapprovaldetails?record=${"x".repeat(65)}`,
        "pwagetvotes",
        `pwagetvotes?record=${oid}`,
        `pwagetvotes?oid=${oid}&archive=2`,
        "pwagetComments",
        `pwagetComments?oid=${oid}`,
        "pwateamusers",
        "pwateamusers?teamOid=",
      ]
    ) {
      assertError(await getA(api, fin.h, q), 400, "invalid_query");
    }
    // archive=0/1/true/false are accepted forms.
    assertOk(await getA(api, fin.h, `pwagetapprovaldetails?record=${oid}&archive=0`));
    assertOk(await getA(api, fin.h, `pwagetvotes?oid=${oid}&archive=true`));
    const d = await details(api, fin.h, oid);
    assert.equal(d.statusCode, "new");
    assert.deepEqual(d.votes, []);
    assert.deepEqual(await approvalComments(api, fin.h, oid), []);
  }),
);

Deno.test(
  "[approvals] every approval call is 401 without a bearer token or with a garbage one",
  withApp(async (api) => {
    const { emp, fin } = await everyone(api);
    const { oid } = await submitted(api, emp.h);
    const token = fin.h.authorization.slice("Bearer ".length);
    const calls: [string, string, unknown?][] = [
      ["GET", "pwalistrequests"],
      ["GET", `pwagetapprovaldetails?record=${oid}`],
      ["GET", `pwagetvotes?oid=${oid}`],
      ["POST", "pwaapprove", { oid, archive: false, isDelegated: false }],
      ["POST", "pwareject", { oid, archive: false, isDelegated: false }],
      ["GET", `pwagetComments?foreignentityoid=${oid}`],
      ["POST", "pwacomments", { oid, comment: "hi" }],
      ["GET", "pwaoverviewteams"],
      ["GET", "pwateamusers?teamOid=team-finance"],
    ];
    const bad: Headers[] = [
      {},
      { authorization: "" },
      { authorization: "Bearer" },
      { authorization: "Bearer garbage" },
      { authorization: `Bearer ${token}x` },
      { authorization: token },
    ];
    for (const [method, path, body] of calls) {
      for (const headers of bad) {
        const r = await api.call(method, `${A}/${path}`, { body, headers });
        assertError(r, 401, "unauthorized");
      }
    }
    const d = await details(api, fin.h, oid);
    assert.equal(d.statusCode, "new");
    assert.deepEqual(d.votes, []);
    assert.deepEqual(await approvalComments(api, fin.h, oid), []);
  }),
);
