/**
 * An approver edits the request (spec §2, §4, §6): the approval is cancelled and recreated, and
 * nobody undoes another person's vote. In-process, no sockets.
 */
import assert from "node:assert/strict";
import type { ExpenseRequest } from "../../client/shared/contract/requests.ts";
import { withApp } from "../helpers.ts";
import { assertError, assertOk } from "./api.ts";
import {
  approve,
  decided,
  details,
  DIRECTOR,
  entity,
  EQUIPMENT,
  everyone,
  MSG,
  postA,
  postE,
  reject,
  rowOf,
  submitted,
} from "./approvals_fixture.ts";

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
