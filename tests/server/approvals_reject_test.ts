/**
 * This file: rejections and the reject note (the same subject goes on in
 * approvals_policies_test.ts, approvals_lists_test.ts).
 *
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
  approvalComments,
  approve,
  decided,
  details,
  entity,
  EQUIPMENT,
  everyone,
  flags,
  getE,
  levelStatuses,
  MSG,
  NO_FLAGS,
  postA,
  reject,
  rowOf,
  submitted,
  votes,
} from "./approvals_fixture.ts";

// ---------------------------------------------------------------------------------------------
// Policies walked through

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
