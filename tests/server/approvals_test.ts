/**
 * Approval calls (spec §3 approval request, poll level and vote, §4 approval actions, §6
 * roles and delegation, §7 Approvals): the demo organisation's users walk multi-level
 * policies, reject (with the reject-note rule), are refused when they may not decide, act
 * through a delegating team, race each other, and read teams. In-process, no sockets.
 */
import assert from "node:assert/strict";
import type { ApprovalRequest, ApprovalRow, Vote } from "../../client/api/contract/approvals.ts";
import type { Comment, ExpenseRequest } from "../../client/api/contract/requests.ts";
import { fr } from "../../client/i18n/locales/fr.ts";
import { DEMO, type TestApi, withApp } from "../helpers.ts";
import { importOrg } from "../../server/org/import.ts";
import { loadDemoOrg } from "../../server/boot.ts";
import { assertError, assertOk, type Headers, login, loginFrench, type Res } from "./api.ts";

const E = "/scmapi/expense";
const A = "/scmapi/approval";
const DIRECTOR = "director@demo.example";

const MSG = {
  decided: "This approval request has already been decided",
  notAllowed: "You cannot decide on this approval request",
  rejectNote: "This type needs a comment before a rejection: please add one first",
};

/** Every demo user, logged in. */
async function everyone(api: TestApi) {
  return {
    emp: await login(api, DEMO.employee),
    fin: await login(api, DEMO.approver),
    mgr: await login(api, DEMO.manager),
    del: await login(api, DEMO.delegate),
    dir: await loginFrench(api, DIRECTOR),
  };
}

const getE = (api: TestApi, h: Headers, path: string) =>
  api.call("GET", `${E}/${path}`, { headers: h });
const postE = (api: TestApi, h: Headers, path: string, body: unknown) =>
  api.call("POST", `${E}/${path}`, { body, headers: h });
const getA = (api: TestApi, h: Headers, path: string) =>
  api.call("GET", `${A}/${path}`, { headers: h });
const postA = (api: TestApi, h: Headers, path: string, body: unknown) =>
  api.call("POST", `${A}/${path}`, { body, headers: h });

/** A valid TRAVEL request body; the amount decides the policy (≤ 250: Finance only). */
const TRAVEL = {
  typeOid: "type-travel",
  amount: 300,
  purpose: "Train to Lyon",
  costCenterOid: "cc-sales",
  GLOid: "gl-travel",
  projectOid: "prj-crm",
};
/** EQUIPMENT (50–15000, cc-it/cc-admin): two levels, a reject note required. */
const EQUIPMENT = {
  typeOid: "type-equipment",
  amount: 900,
  purpose: "Laptop",
  costCenterOid: "cc-it",
  GLOid: "gl-hardware",
  projectOid: "prj-cloud",
};

async function create(api: TestApi, h: Headers, body: Record<string, unknown> = {}) {
  const r = await postE(api, h, "pwaexpenserequestcreate", {
    expenseRequest: { ...TRAVEL, ...body },
  });
  assertOk(r);
  return r.json.expenseRequest as ExpenseRequest;
}

async function entity(api: TestApi, h: Headers, oid: string): Promise<ExpenseRequest> {
  const r = await getE(api, h, `pwaexpenseentity?record=${oid}`);
  assertOk(r);
  return r.json.expenseRequest as ExpenseRequest;
}

/** Creates and submits a request; the request and the oid of its approval. */
async function submitted(api: TestApi, h: Headers, body: Record<string, unknown> = {}) {
  const r = await create(api, h, body);
  assertOk(await postE(api, h, "pwasubmit", { record: r.oid }));
  const aps = await api.deps.store.approvals.byRequest(r.oid);
  assert.equal(aps.length, 1);
  return { request: r, oid: aps[0].oid };
}

async function list(api: TestApi, h: Headers): Promise<ApprovalRow[]> {
  const r = await getA(api, h, "pwalistrequests");
  assertOk(r);
  return r.json.approvallist as ApprovalRow[];
}

async function rowOf(api: TestApi, h: Headers, oid: string): Promise<ApprovalRow | undefined> {
  return (await list(api, h)).find((a) => a.oid === oid);
}

async function details(api: TestApi, h: Headers, oid: string): Promise<ApprovalRequest> {
  const r = await getA(api, h, `pwagetapprovaldetails?record=${oid}`);
  assertOk(r);
  const list = r.json.approvalentity as ApprovalRequest[];
  assert.equal(list.length, 1);
  return list[0];
}

async function votes(api: TestApi, h: Headers, oid: string): Promise<Vote[]> {
  const r = await getA(api, h, `pwagetvotes?oid=${oid}`);
  assertOk(r);
  return r.json.voteslist as Vote[];
}

async function approvalComments(api: TestApi, h: Headers, oid: string): Promise<Comment[]> {
  const r = await getA(api, h, `pwagetComments?foreignentityoid=${oid}`);
  assertOk(r);
  return r.json.comments as Comment[];
}

const approve = (api: TestApi, h: Headers, oid: string, extra: Record<string, unknown> = {}) =>
  postA(api, h, "pwaapprove", { oid, archive: false, ...extra });
const reject = (api: TestApi, h: Headers, oid: string, extra: Record<string, unknown> = {}) =>
  postA(api, h, "pwareject", { oid, archive: false, ...extra });

/** A decision that must succeed; the approval it returns. */
async function decided(call: Promise<Res>): Promise<ApprovalRequest> {
  const r = await call;
  assertOk(r);
  const list = r.json.approvalentity as ApprovalRequest[];
  assert.equal(list.length, 1);
  return list[0];
}

const levelStatuses = (a: ApprovalRequest) => a.pollLevels.map((l) => [l.level, l.statusCode]);
const flags = (a: ApprovalRow) => ({
  canApprove: a.canApprove,
  canReject: a.canReject,
  canReview: a.canReview,
  isDelegated: a.isDelegated,
});
const NO_FLAGS = { canApprove: false, canReject: false, canReview: false, isDelegated: false };
const byName = (a: { fname: string; lname: string }, b: { fname: string; lname: string }) =>
  `${a.fname} ${a.lname}`.localeCompare(`${b.fname} ${b.lname}`);
const people = (xs: { fname: string; lname: string }[]) => [...xs].sort(byName);

const ADAM = { fname: "Adam", lname: "Fischer" };
const DANIEL = { fname: "Daniel", lname: "Peeters" };
const DAVID = { fname: "David", lname: "Moreau" };
const MARIA = { fname: "Maria", lname: "Jansen" };

const iso = (t: number) => new Date(t).toISOString();

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

// ---------------------------------------------------------------------------------------------
// An approver edits the request: the approval is cancelled and recreated (spec §2, §4)

const EDIT_IT = {
  purpose: "Train to Lyon (IT conference)",
  costCenterOid: "cc-it",
  GLOid: "gl-hardware",
  projectOid: "prj-cloud",
};

Deno.test(
  "[approvals] an approver's edit (pwareissueapproval) cancels the approval and opens a new one",
  withApp(async (api) => {
    const { emp, fin, mgr } = await everyone(api);
    const { request: x, oid } = await submitted(api, emp.h);
    await decided(approve(api, fin.h, oid));
    const events: string[] = [];
    api.deps.events.subscribe((e) => void events.push(e.type));

    // manager@ may approve level 2, so may edit; the votes so far are dropped.
    const r = await postE(api, mgr.h, "pwareissueapproval", {
      expenseRequest: { oid: x.oid, ...EDIT_IT },
    });
    assertOk(r);
    const after = r.json.expenseRequest as ExpenseRequest;
    assert.equal(after.statusCode, "requested");
    assert.equal(after.costCenter, "IT");
    assert.equal(after.purpose, EDIT_IT.purpose);
    const aps = await api.deps.store.approvals.byRequest(x.oid);
    assert.deepEqual(aps.map((a) => [a.id, a.statusCode]).sort(), [
      ["AP000001.1", "cancelled"],
      ["AP000001.2", "new"],
    ]);
    const fresh = aps.find((a) => a.statusCode === "new")!;
    assert.deepEqual(fresh.votes, []);
    assert.deepEqual(fresh.levels.map((l) => l.statusCode), ["open", "pending"]);
    assert.deepEqual(events.sort(), [
      "approval.cancelled",
      "approval.opened",
      "comment.added",
      "request.modified",
      "request.submitted",
    ]);
    // The author's request points at the new approval; Finance decides again.
    const own = await entity(api, emp.h, x.oid);
    assert.equal(own.costCenterOid, "cc-it");
    assert.equal(own.GLOid, "gl-hardware");
    const row = await rowOf(api, fin.h, fresh.oid);
    assert.ok(row);
    assert.equal(row.canApprove, true);
    assert.equal(row.costCenterOid, "cc-it");
    assert.equal(row.purpose, EDIT_IT.purpose);
    assert.equal((await rowOf(api, fin.h, oid))?.statusCode, "cancelled");
    // The old approval cannot be decided any more.
    assertError(await approve(api, mgr.h, oid), 403, "decided", MSG.decided);
  }),
);

Deno.test(
  "[approvals] an approver's edit: §5 rules, outsiders 404, decided 403, nothing half-written",
  withApp(async (api) => {
    const { emp, fin, mgr, dir } = await everyone(api);
    // ≤ 250: Finance only; Management members cannot see it at all.
    const small = await submitted(api, emp.h, { amount: 120 });
    const before = await api.deps.store.approvals.byRequest(small.request.oid);
    for (const who of [mgr, dir]) {
      const r = await postE(api, who.h, "pwareissueapproval", {
        expenseRequest: { oid: small.request.oid, ...EDIT_IT },
      });
      assertError(r, 404, "not_found");
    }
    // Edit rules apply: project, GL and cost center must be set; a GL of another cost center.
    const noProject = await postE(api, fin.h, "pwareissueapproval", {
      expenseRequest: { oid: small.request.oid, ...EDIT_IT, projectOid: null },
    });
    assertError(noProject, 422, undefined, "Project, GL code and cost center must be set");
    const wrongGl = await postE(api, fin.h, "pwareissueapproval", {
      expenseRequest: { oid: small.request.oid, ...EDIT_IT, GLOid: "gl-advertising" },
    });
    assertError(wrongGl, 422);
    assert.deepEqual(await api.deps.store.approvals.byRequest(small.request.oid), before);
    assert.equal((await entity(api, emp.h, small.request.oid)).costCenterOid, "cc-sales");
    // After the outcome nobody edits through the approval any more.
    await decided(approve(api, fin.h, small.oid));
    const late = await postE(api, fin.h, "pwareissueapproval", {
      expenseRequest: { oid: small.request.oid, ...EDIT_IT },
    });
    assertError(late, 403, "decided", MSG.decided);
    assert.equal((await entity(api, emp.h, small.request.oid)).statusCode, "accepted");
    // Approvers still cannot use the author's other edit calls.
    const big = await submitted(api, emp.h);
    for (const path of ["pwamodify", "pwacheckneedrecreate"]) {
      const body = path === "pwamodify"
        ? { record: { oid: big.request.oid, ...EDIT_IT } }
        : { expenseRequest: { oid: big.request.oid, ...EDIT_IT } };
      assertError(await postE(api, fin.h, path, body), 404, "not_found");
    }
  }),
);

Deno.test(
  "[approvals] hasRejectNote says whether the caller has commented on the approval",
  withApp(async (api) => {
    const { emp, fin, mgr } = await everyone(api);
    const { oid } = await submitted(api, emp.h, EQUIPMENT);
    assert.equal((await details(api, fin.h, oid)).hasRejectNote, false);
    assertOk(await postA(api, mgr.h, "pwacomments", { oid, comment: "Which model?" }));
    assert.equal((await details(api, fin.h, oid)).hasRejectNote, false);
    assert.equal((await details(api, mgr.h, oid)).hasRejectNote, true);
    assertOk(await postA(api, fin.h, "pwacomments", { oid, comment: "Too expensive" }));
    assert.equal((await details(api, fin.h, oid)).hasRejectNote, true);
    const out = await decided(reject(api, fin.h, oid));
    assert.equal(out.statusCode, "rejected");
    assert.equal(
      (await entity(api, emp.h, (await details(api, fin.h, oid)).sourceEntityOid))
        .approverNote,
      "Too expensive",
    );
  }),
);

// ---------------------------------------------------------------------------------------------
// Nobody undoes another person's vote (spec §4/§6): edit is for who may decide the open level

Deno.test(
  "[approvals] edit and reissue by role × open level, and who may decide after causing a reissue",
  withApp(async (api) => {
    const { emp, fin, mgr, del, dir } = await everyone(api);
    // manager@ requests (TRAVEL 300: Finance, then Management); director@ decides level 2;
    // employee@ is outside the workflow.
    const who = { requester: mgr, approver1: fin, approver2: dir, delegate: del, outsider: emp };
    type Who = keyof typeof who;
    const table: { level: 1 | 2; who: Who; edit: number; decidesAfter: boolean }[] = [
      { level: 1, who: "requester", edit: 200, decidesAfter: false },
      { level: 1, who: "approver1", edit: 200, decidesAfter: true },
      { level: 1, who: "approver2", edit: 403, decidesAfter: false },
      { level: 1, who: "delegate", edit: 200, decidesAfter: true },
      { level: 1, who: "outsider", edit: 404, decidesAfter: false },
      { level: 2, who: "requester", edit: 200, decidesAfter: false },
      { level: 2, who: "approver1", edit: 403, decidesAfter: false },
      { level: 2, who: "approver2", edit: 200, decidesAfter: false },
      { level: 2, who: "delegate", edit: 403, decidesAfter: false },
      { level: 2, who: "outsider", edit: 404, decidesAfter: false },
    ];
    const seen: string[] = [];
    for (const row of table) {
      const { request: x, oid } = await submitted(api, mgr.h);
      if (row.level === 2) await decided(approve(api, fin.h, oid));
      const u = who[row.who];
      // The flag the client shows Edit by follows the server's rule.
      const listed = await rowOf(api, u.h, oid);
      const flag = listed?.canEdit ?? false;
      const r = await postE(api, u.h, "pwareissueapproval", {
        expenseRequest: { oid: x.oid, ...EDIT_IT },
      });
      const fresh = (await api.deps.store.approvals.byRequest(x.oid))
        .find((a) => a.statusCode === "new")!;
      const after = await rowOf(api, u.h, fresh.oid);
      const decides = !!after?.canApprove;
      if (r.status === 200 && fresh.levels[0].statusCode === "open") {
        const vote = await approve(api, u.h, fresh.oid);
        assert.equal(vote.status === 200, row.decidesAfter, `${row.who} L${row.level}`);
      }
      seen.push(`L${row.level} ${row.who}: edit ${r.status}, decides after ${decides}`);
      assert.equal(r.status, row.edit, `${row.who} at level ${row.level}: ${r.text}`);
      if (row.who !== "requester") {
        assert.equal(flag, row.edit === 200, `${row.who} at level ${row.level}: canEdit`);
      }
      assert.equal(decides, row.decidesAfter, `${row.who} at level ${row.level}: decides`);
    }
    console.log(`  ${seen.join("\n  ")}`);
  }),
);

Deno.test(
  "[approvals] the UI finding replayed: delegate@ at level 2 cannot edit, approver@'s vote stays",
  withApp(async (api) => {
    const { emp, fin, del, dir } = await everyone(api);
    const { request: x, oid } = await submitted(api, emp.h);
    await decided(approve(api, fin.h, oid));
    // delegate@ opens the approval waiting at level 2: no Edit, no decision.
    const seen = await details(api, del.h, oid);
    assert.deepEqual([seen.canEdit, seen.canApprove, seen.canReject], [false, false, false]);
    // A small purpose change through the API is refused, and changes nothing.
    const r = await postE(api, del.h, "pwareissueapproval", {
      expenseRequest: {
        oid: x.oid,
        purpose: "Train to Lyon (return)",
        costCenterOid: x.costCenterOid,
        GLOid: x.GLOid,
        projectOid: x.projectOid,
      },
    });
    assertError(r, 403, "not_allowed");
    const [a] = await api.deps.store.approvals.byRequest(x.oid);
    assert.equal(a.statusCode, "new");
    assert.deepEqual(a.votes.map((v) => [v.level, v.statusCode]), [[1, "approved"]]);
    assert.deepEqual(a.levels.map((l) => l.statusCode), ["approved", "open"]);
    assertError(await approve(api, del.h, oid), 403, "not_allowed");
    // Who may decide level 2 and changes only the purpose keeps the approval and its votes.
    const kept = await postE(api, dir.h, "pwareissueapproval", {
      expenseRequest: {
        oid: x.oid,
        purpose: "Train to Lyon (return)",
        costCenterOid: x.costCenterOid,
        GLOid: x.GLOid,
        projectOid: x.projectOid,
      },
    });
    assertOk(kept);
    const aps = await api.deps.store.approvals.byRequest(x.oid);
    assert.equal(aps.length, 1);
    assert.deepEqual(aps[0].votes.map((v) => v.level), [1]);
    assert.equal((await entity(api, emp.h, x.oid)).purpose, "Train to Lyon (return)");
  }),
);

Deno.test(
  "[approvals] an approver's reissue is in the request's history; they never vote on the level they wiped",
  withApp(async (api) => {
    const { emp, fin, dir } = await everyone(api);
    // director@ also sits in Finance here: they could decide both levels.
    const d = (await api.deps.store.users.byEmail(DIRECTOR))!;
    await api.deps.store.users.put(api.deps.store.kv.atomic(), {
      ...d,
      teams: [...d.teams, "team-finance"],
    }).commit();
    const { request: x, oid } = await submitted(api, emp.h);
    await decided(approve(api, fin.h, oid));
    assertOk(
      await postE(api, dir.h, "pwareissueapproval", { expenseRequest: { oid: x.oid, ...EDIT_IT } }),
    );
    const fresh = (await api.deps.store.approvals.byRequest(x.oid))
      .find((a) => a.statusCode === "new")!;
    // The history says who and why (in the requester's language).
    const notes = await api.deps.store.comments.bySource(x.oid);
    assert.equal(notes.length, 1);
    assert.equal(notes[0].authorOid, d.oid);
    assert.match(notes[0].text, /David Moreau edited this request \(Cost center: Sales → IT\)/);
    // In words, not the approval's internal id.
    assert.match(notes[0].text, /: the approval was cancelled and a new approval opened\.$/);
    assert.doesNotMatch(notes[0].text, /AP0/);
    // Level 1 had approver@'s vote: director@ may neither decide nor edit it now.
    const row = await rowOf(api, dir.h, fresh.oid);
    assert.deepEqual([row?.canApprove, row?.canEdit], [false, false]);
    assertError(await approve(api, dir.h, fresh.oid), 403, "not_allowed");
    assertError(
      await postE(api, dir.h, "pwareissueapproval", { expenseRequest: { oid: x.oid, ...EDIT_IT } }),
      403,
      "not_allowed",
    );
    // Level 2 was not decided before: once approver@ approves level 1 again, director@ may.
    await decided(approve(api, fin.h, fresh.oid));
    const done = await decided(approve(api, dir.h, fresh.oid));
    assert.equal(done.statusCode, "approved");
  }),
);
