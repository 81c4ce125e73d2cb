/**
 * Approval policies (spec §3 approval request, poll level and vote, §4 approval actions, §7
 * Approvals): the demo organisation's users walk multi-level policies and reject (with the
 * reject-note rule), and read lists and teams. In-process, no sockets.
 */
import assert from "node:assert/strict";
import type { Comment } from "../../client/shared/contract/requests.ts";
import { fr } from "../../client/shared/i18n/locales/fr.ts";
import { withApp } from "../helpers.ts";
import { assertError, assertOk } from "./api.ts";
import {
  ADAM,
  approvalComments,
  approve,
  DANIEL,
  DAVID,
  decided,
  details,
  entity,
  EQUIPMENT,
  everyone,
  flags,
  getA,
  getE,
  iso,
  levelStatuses,
  list,
  MARIA,
  MSG,
  NO_FLAGS,
  people,
  postA,
  reject,
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

Deno.test(
  "[approvals] a rejection carries an optional reason on any type: stored as the approver's comment with the vote and shown to the requester",
  withApp(async (api) => {
    const { emp, fin } = await everyone(api);
    // TRAVEL needs no reject note: the reason is optional, and kept when given.
    const one = await submitted(api, emp.h);
    await decided(reject(api, fin.h, one.oid, { note: "  Book the earlier train  " }));
    const req = await entity(api, emp.h, one.request.oid);
    assert.equal(req.statusCode, "rejected");
    assert.equal(req.approverNote, "Book the earlier train");
    assert.deepEqual(
      (await approvalComments(api, fin.h, one.oid)).map((c) => c.comment.text),
      ["Book the earlier train"],
    );
    assert.equal((await rowOf(api, fin.h, one.oid))?.myVote, "rejected");

    // The reason given with the rejection is the note, before any earlier comment (spec §7
    // clients that comment first, then reject, keep their comment as the note).
    const two = await submitted(api, emp.h, { purpose: "Taxi" });
    assertOk(await postA(api, fin.h, "pwacomments", { oid: two.oid, comment: "Which taxi?" }));
    await decided(reject(api, fin.h, two.oid, { note: "Take the tram" }));
    assert.equal((await entity(api, emp.h, two.request.oid)).approverNote, "Take the tram");

    // EQUIPMENT requires a reject note (spec §4): without any, the rule and its message are
    // unchanged; the reason given with the rejection satisfies it.
    const three = await submitted(api, emp.h, EQUIPMENT);
    assertError(await reject(api, fin.h, three.oid), 422, "reject_note_required", MSG.rejectNote);
    assertError(
      await reject(api, fin.h, three.oid, { note: "   " }),
      422,
      "reject_note_required",
      MSG.rejectNote,
    );
    await decided(reject(api, fin.h, three.oid, { note: "Not in this year's budget" }));
    assert.equal(
      (await entity(api, emp.h, three.request.oid)).approverNote,
      "Not in this year's budget",
    );
  }),
);

Deno.test(
  "[approvals] a rejection at any level rejects the approval and the request; pending levels are cancelled",
  withApp(async (api) => {
    const { emp, fin, dir } = await everyone(api);

    // At level 1: level 2 never opens.
    const one = await submitted(api, emp.h);
    const r1 = await decided(reject(api, fin.h, one.oid));
    assert.equal(r1.statusCode, "rejected");
    assert.deepEqual(levelStatuses(r1), [[1, "rejected"], [2, "cancelled"]]);
    assert.equal(r1.pollLevels[1].pollTeams[0].createdate, null);
    assert.deepEqual(flags(r1), NO_FLAGS);
    const req1 = await entity(api, emp.h, one.request.oid);
    assert.equal(req1.statusCode, "rejected");
    assert.equal(req1.approverNote, null);
    assert.deepEqual((await votes(api, fin.h, one.oid)).map((v) => [v.level, v.statusCode]), [
      [1, "rejected"],
    ]);
    assert.ok(
      api.deps.events.recent.some((e) =>
        e.type === "request.decided" && e.requestOid === one.request.oid &&
        e.statusCode === "rejected"
      ),
    );

    // At level 2, by the French director: level 1 stays approved.
    const two = await submitted(api, emp.h, { amount: 1200, purpose: "Flight to Madrid" });
    await decided(approve(api, fin.h, two.oid));
    const r2 = await decided(reject(api, dir.h, two.oid));
    assert.equal(r2.statusCode, "rejected");
    assert.deepEqual(levelStatuses(r2), [[1, "approved"], [2, "rejected"]]);
    assert.equal((await entity(api, emp.h, two.request.oid)).statusCode, "rejected");
    assert.deepEqual(
      (await votes(api, fin.h, two.oid)).map((v) => [v.userFullName, v.level, v.statusCode]),
      [["Adam Fischer", 1, "approved"], ["David Moreau", 2, "rejected"]],
    );
    // The French director is told in French that it is decided.
    assertError(
      await approve(api, dir.h, two.oid),
      403,
      "decided",
      fr["approval.decided"],
    );
  }),
);

Deno.test(
  "[approvals] EQUIPMENT needs a reject note: 422 without a comment, then the comment becomes the approverNote",
  withApp(async (api) => {
    const { emp, fin, mgr, del } = await everyone(api);
    const { request: x, oid } = await submitted(api, emp.h, EQUIPMENT);
    const d0 = await details(api, fin.h, oid);
    assert.equal(d0.subType.requireRejectNote, true);
    assert.equal(d0.description, "IT equipment: Laptop [900.00 EUR]");

    for (const extra of [{}, { isDelegated: false }]) {
      assertError(
        await reject(api, fin.h, oid, extra),
        422,
        "reject_note_required",
        MSG.rejectNote,
      );
    }
    // A comment by somebody else is not this approver's note.
    const other = await postA(api, del.h, "pwacomments", { oid, comment: "Looks fine to me" });
    assertOk(other);
    assertError(await reject(api, fin.h, oid), 422, "reject_note_required", MSG.rejectNote);
    // Nothing was decided.
    const d1 = await details(api, fin.h, oid);
    assert.equal(d1.statusCode, "new");
    assert.deepEqual(d1.votes, []);
    assert.deepEqual(levelStatuses(d1), [[1, "open"], [2, "pending"]]);
    assert.equal((await entity(api, emp.h, x.oid)).statusCode, "requested");

    const c = await postA(api, fin.h, "pwacomments", {
      oid,
      archive: false,
      comment: "  Please pick a cheaper model  ",
    });
    assertOk(c);
    const comment = c.json.comment as Comment;
    assert.equal(comment.sourceEntityOid, oid);
    assert.deepEqual(comment.comment, {
      author: fin.oid,
      fName: "Adam",
      lName: "Fischer",
      text: "Please pick a cheaper model",
    });
    assert.equal(comment.canBeDeleted, false);
    assert.ok(
      api.deps.events.recent.some((e) =>
        e.type === "comment.added" && e.commentOid === comment.oid && e.sourceOid === oid
      ),
    );

    const r = await decided(reject(api, fin.h, oid));
    assert.equal(r.statusCode, "rejected");
    assert.deepEqual(levelStatuses(r), [[1, "rejected"], [2, "cancelled"]]);
    const req = await entity(api, emp.h, x.oid);
    assert.equal(req.statusCode, "rejected");
    assert.equal(req.approverNote, "Please pick a cheaper model");

    // Every approver who sees it reads the comments, oldest first.
    const cs = await approvalComments(api, fin.h, oid);
    assert.deepEqual(cs.map((k) => [k.comment.fName, k.comment.text]), [
      ["Daniel", "Looks fine to me"],
      ["Adam", "Please pick a cheaper model"],
    ]);
    assert.deepEqual(cs[1], comment);
    assert.deepEqual(await approvalComments(api, mgr.h, oid), cs);
    // They are the approval's, not the request's.
    const reqComments = await getE(api, emp.h, `pwaexpensecomments?oid=${x.oid}`);
    assertOk(reqComments);
    assert.deepEqual(reqComments.json.comments, []);

    // Approving needs no note; at level 2 the manager needs his own before rejecting.
    const y = await submitted(api, emp.h, { ...EQUIPMENT, purpose: "Monitor" });
    await decided(approve(api, fin.h, y.oid));
    assertOk(await postA(api, fin.h, "pwacomments", { oid: y.oid, comment: "ok for Finance" }));
    assertError(await reject(api, mgr.h, y.oid), 422, "reject_note_required", MSG.rejectNote);
    assertOk(await postA(api, mgr.h, "pwacomments", { oid: y.oid, comment: "Not this year" }));
    const ry = await decided(reject(api, mgr.h, y.oid));
    assert.deepEqual(levelStatuses(ry), [[1, "approved"], [2, "rejected"]]);
    const reqY = await entity(api, emp.h, y.request.oid);
    assert.equal(reqY.statusCode, "rejected");
    assert.equal(reqY.approverNote, "Not this year");
  }),
);

// ---------------------------------------------------------------------------------------------
// Lists and teams

Deno.test(
  "[approvals] pwalistrequests lists the caller's teams' approvals newest first, in every status",
  withApp(async (api) => {
    const { emp, fin, mgr } = await everyone(api);
    const t0 = Date.UTC(2028, 3, 1, 8, 0, 0);
    api.deps.now = () => t0;
    const a = await submitted(api, emp.h, { amount: 100, purpose: "A" });
    api.deps.now = () => t0 + 2000;
    const b = await submitted(api, emp.h, { amount: 600, purpose: "B" });
    api.deps.now = () => t0 + 1000;
    const c = await submitted(api, emp.h, { amount: 700, purpose: "C" });
    api.deps.now = () => t0 + 3000;
    await decided(reject(api, fin.h, c.oid));
    await decided(approve(api, fin.h, a.oid));

    const rows = await list(api, fin.h);
    assert.deepEqual(rows.map((r) => [r.purpose, r.statusCode, r.issueDate]), [
      ["B", "new", iso(t0 + 2000)],
      ["C", "rejected", iso(t0 + 1000)],
      ["A", "approved", iso(t0)],
    ]);
    assert.deepEqual(rows.map((r) => r.description), [
      "Travel: B [600.00 EUR]",
      "Travel: C [700.00 EUR]",
      "Travel: A [100.00 EUR]",
    ]);
    assert.deepEqual((await list(api, mgr.h)).map((r) => r.purpose), ["B", "C"]);
    assert.equal(rows[0].oid, b.oid);
    // The clock jumps to 2028: tokens must not expire idle meanwhile (TOKEN_IDLE_DAYS).
  }, { TOKEN_IDLE_DAYS: "3650" }),
);

Deno.test(
  "[approvals] pwaoverviewteams lists the visible teams with their delegating team and members",
  withApp(async (api) => {
    const { fin } = await everyone(api);
    const r = await getA(api, fin.h, "pwaoverviewteams");
    assertOk(r);
    const teams = (r.json.teamlist as {
      teamOid: string;
      teamUsers: { fname: string; lname: string }[];
    }[])
      .map((t) => ({ ...t, teamUsers: people(t.teamUsers) }))
      .sort((a, b) => a.teamOid.localeCompare(b.teamOid));
    assert.deepEqual(teams, [
      {
        teamOid: "team-finance",
        teamName: "Finance",
        isVisible: true,
        delegatingTeamName: "Finance Delegates",
        teamUsers: [ADAM],
      },
      {
        teamOid: "team-finance-delegates",
        teamName: "Finance Delegates",
        isVisible: true,
        delegatingTeamName: null,
        teamUsers: [DANIEL],
      },
      {
        teamOid: "team-management",
        teamName: "Management",
        isVisible: true,
        delegatingTeamName: null,
        teamUsers: [DAVID, MARIA],
      },
    ]);
  }),
);

Deno.test(
  "[approvals] pwateamusers gives a visible team's members; an unknown or invisible team is 404",
  withApp(async (api) => {
    const { fin } = await everyone(api);
    const f = await getA(api, fin.h, "pwateamusers?teamOid=team-finance");
    assertOk(f);
    assert.deepEqual(f.json, { teamUsers: [ADAM] });
    const m = await getA(api, fin.h, "pwateamusers?teamOid=team-management");
    assertOk(m);
    assert.deepEqual(people(m.json.teamUsers as typeof ADAM[]), [DAVID, MARIA]);
    const unknown = await getA(api, fin.h, "pwateamusers?teamOid=team-nope");
    const invisible = await getA(api, fin.h, "pwateamusers?teamOid=team-employees");
    assertError(unknown, 404, "not_found");
    assertError(invisible, 404, "not_found");
    assert.equal(invisible.text, unknown.text);
  }),
);
