/**
 * This file: multi-level policies and votes (the same subject goes on in approvals_reject_test.ts,
 * approvals_lists_test.ts).
 *
 * Approval policies (spec §3 approval request, poll level and vote, §4 approval actions, §7
 * Approvals): the demo organisation's users walk multi-level policies and reject (with the
 * reject-note rule), and read lists and teams. In-process, no sockets.
 */
import assert from "node:assert/strict";
import { withApp } from "../helpers.ts";
import {
  ADAM,
  approve,
  DAVID,
  decided,
  details,
  entity,
  everyone,
  flags,
  iso,
  levelStatuses,
  MARIA,
  NO_FLAGS,
  people,
  rowOf,
  submitted,
  votes,
} from "./approvals_fixture.ts";

// ---------------------------------------------------------------------------------------------
// Policies walked through

Deno.test(
  "[approvals] TRAVEL 300: Finance approves level 1, Management level 2, the request is accepted",
  withApp(async (api) => {
    const { emp, fin, mgr } = await everyone(api);
    const t0 = Date.UTC(2028, 2, 1, 8, 0, 0);
    api.deps.now = () => t0;
    const { request: x, oid } = await submitted(api, emp.h);

    // approver@ (Finance) may decide level 1.
    const finRow = await rowOf(api, fin.h, oid);
    assert.ok(finRow, "approver@ does not see the approval");
    assert.deepEqual(finRow, {
      oid,
      id: "AP000001.1",
      archive: false,
      statusCode: "new",
      issueDate: iso(t0),
      costCenter: "Sales",
      description: "Travel: Train to Lyon [300.00 EUR]",
      amount: 300,
      pricingCurrency: "EUR",
      purpose: "Train to Lyon",
      author: "Emma Laurent",
      authorOid: emp.oid,
      sourceEntityId: x.id,
      sourceEntityOid: x.oid,
      typeOid: "type-travel",
      type: "Travel",
      costCenterOid: "cc-sales",
      GLOid: "gl-travel",
      GLCode: "Travel and accommodation",
      projectOid: "prj-crm",
      projectCode: "CRM rollout",
      canApprove: true,
      canReject: true,
      canReview: false,
      isDelegated: false,
      canEdit: true,
      myVote: null,
    });
    // manager@ (Management) sees it too, but only reviews while level 1 is open.
    const mgrRow = await rowOf(api, mgr.h, oid);
    assert.ok(mgrRow, "manager@ does not see the approval");
    assert.deepEqual(flags(mgrRow), {
      canApprove: false,
      canReject: false,
      canReview: true,
      isDelegated: false,
    });
    assert.equal(mgrRow.description, "Travel: Train to Lyon [300.00 EUR]");

    api.deps.now = () => t0 + 60_000;
    const after1 = await decided(approve(api, fin.h, oid));
    assert.equal(after1.statusCode, "new");
    assert.deepEqual(levelStatuses(after1), [[1, "approved"], [2, "open"]]);

    const d = await details(api, fin.h, oid);
    assert.deepEqual(d, after1);
    assert.deepEqual({ ...d, teamUsers: {}, pollLevels: [], votes: [] }, {
      ...finRow,
      canApprove: false,
      canReject: false,
      canReview: true,
      canEdit: false,
      myVote: "approved",
      fullamount: "300",
      fractionamount: "00",
      approvalAccount: "Operating account (EUR)",
      subType: {
        rowId: 1,
        id: "TRAVEL",
        description: "Travel",
        minAmount: 20,
        maxAmount: 5000,
        isRecurring: false,
        requireRejectNote: false,
      },
      teamUsers: {},
      pollLevels: [],
      votes: [],
      hasRejectNote: false,
      // What the approver sees beside it: no budget lines, the account's own currency, and
      // why Finance cannot decide it any more (tests/server/approvals_view_test.ts).
      budget: [],
      accountAmount: null,
      readOnly: {
        code: "voted",
        mine: 1,
        level: 2,
        levelName: "Management approval",
        at: iso(t0 + 60_000),
      },
    });
    assert.deepEqual(d.pollLevels, [
      {
        level: 1,
        actionDescription: "Finance approval",
        statusCode: "approved",
        quota: 1,
        pollTeams: [{
          teamName: "Finance",
          teamOid: "team-finance",
          delegatingTeamName: "Finance Delegates",
          createdate: iso(t0),
        }],
      },
      {
        level: 2,
        actionDescription: "Management approval",
        statusCode: "open",
        quota: 1,
        pollTeams: [{
          teamName: "Management",
          teamOid: "team-management",
          delegatingTeamName: null,
          createdate: iso(t0 + 60_000),
        }],
      },
    ]);
    assert.deepEqual(Object.keys(d.teamUsers).sort(), ["team-finance", "team-management"]);
    assert.deepEqual(people(d.teamUsers["team-finance"]), [ADAM]);
    assert.deepEqual(people(d.teamUsers["team-management"]), [DAVID, MARIA]);
    assert.deepEqual(d.votes, [{
      userFullName: "Adam Fischer",
      statusCode: "approved",
      createdate: iso(t0 + 60_000),
      level: 1,
      isDelegated: false,
    }]);
    assert.equal((await entity(api, emp.h, x.oid)).statusCode, "requested");

    // Level 2 is now manager@'s to decide; approver@ only reviews.
    assert.deepEqual(flags((await rowOf(api, mgr.h, oid))!), {
      canApprove: true,
      canReject: true,
      canReview: false,
      isDelegated: false,
    });
    assert.deepEqual(flags((await rowOf(api, fin.h, oid))!), {
      canApprove: false,
      canReject: false,
      canReview: true,
      isDelegated: false,
    });

    api.deps.now = () => t0 + 120_000;
    const done = await decided(approve(api, mgr.h, oid));
    assert.equal(done.statusCode, "approved");
    assert.deepEqual(levelStatuses(done), [[1, "approved"], [2, "approved"]]);
    assert.deepEqual(flags(done), NO_FLAGS);
    const req = await entity(api, emp.h, x.oid);
    assert.equal(req.statusCode, "accepted");
    assert.equal(req.approverNote, null);

    const vs = await votes(api, fin.h, oid);
    assert.deepEqual(vs, [
      {
        userFullName: "Adam Fischer",
        statusCode: "approved",
        createdate: iso(t0 + 60_000),
        level: 1,
        isDelegated: false,
      },
      {
        userFullName: "Maria Jansen",
        statusCode: "approved",
        createdate: iso(t0 + 120_000),
        level: 2,
        isDelegated: false,
      },
    ]);
    assert.deepEqual(await votes(api, mgr.h, oid), vs);
    const row = (await rowOf(api, fin.h, oid))!;
    assert.equal(row.statusCode, "approved");
    assert.deepEqual(flags(row), NO_FLAGS);

    const evs = api.deps.events.recent.filter((e) => "requestOid" in e && e.requestOid === x.oid);
    assert.deepEqual(
      evs.filter((e) => e.type === "approval.opened" && e.level === 2),
      [{
        type: "approval.opened",
        approvalOid: oid,
        requestOid: x.oid,
        level: 2,
        teamOids: ["team-management"],
      }],
    );
    assert.deepEqual(evs.filter((e) => e.type === "request.decided"), [
      { type: "request.decided", userOid: emp.oid, requestOid: x.oid, statusCode: "accepted" },
    ]);
    // The clock jumps to 2028: tokens must not expire idle meanwhile (TOKEN_IDLE_DAYS).
  }, { TOKEN_IDLE_DAYS: "3650" }),
);

Deno.test(
  "[approvals] TRAVEL of 250 or less has one Finance level: one approval accepts the request",
  withApp(async (api) => {
    const { emp, fin } = await everyone(api);
    const { request: x, oid } = await submitted(api, emp.h, { amount: 250 });
    const before = await details(api, fin.h, oid);
    assert.deepEqual(levelStatuses(before), [[1, "open"]]);
    assert.deepEqual(Object.keys(before.teamUsers), ["team-finance"]);
    assert.equal(before.description, "Travel: Train to Lyon [250.00 EUR]");

    const done = await decided(approve(api, fin.h, oid));
    assert.equal(done.statusCode, "approved");
    assert.deepEqual(levelStatuses(done), [[1, "approved"]]);
    assert.equal((await entity(api, emp.h, x.oid)).statusCode, "accepted");
    assert.deepEqual((await votes(api, fin.h, oid)).map((v) => [v.userFullName, v.statusCode]), [
      ["Adam Fischer", "approved"],
    ]);
    assert.equal(
      api.deps.events.recent.filter((e) =>
        e.type === "request.decided" && e.requestOid === x.oid && e.statusCode === "accepted"
      ).length,
      1,
    );
    assert.ok(
      !api.deps.events.recent.some((e) =>
        e.type === "approval.opened" && e.approvalOid === oid && e.level !== 1
      ),
    );
  }),
);

Deno.test(
  "[approvals] the list tells each approver their own vote: one who approved level 1 sees it as theirs while level 2 decides",
  withApp(async (api) => {
    const { emp, fin, mgr } = await everyone(api);
    const { oid } = await submitted(api, emp.h);
    assert.equal((await rowOf(api, fin.h, oid))?.myVote, null);
    await decided(approve(api, fin.h, oid));
    // Still new (level 2 open), but no longer waiting for approver@: their vote says where.
    const mine = (await rowOf(api, fin.h, oid))!;
    assert.equal(mine.statusCode, "new");
    assert.equal(mine.myVote, "approved");
    assert.deepEqual(flags(mine), { ...NO_FLAGS, canReview: true });
    // manager@ has not voted: it waits for them.
    const theirs = (await rowOf(api, mgr.h, oid))!;
    assert.equal(theirs.myVote, null);
    assert.equal(theirs.canApprove, true);
  }),
);
