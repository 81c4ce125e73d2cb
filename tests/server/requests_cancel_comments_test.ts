/**
 * Expense request cancel, close and comments (spec §4 request statuses, §7 writes). In-process,
 * no sockets.
 */
import assert from "node:assert/strict";
import type { ExpenseRequest } from "../../client/shared/contract/requests.ts";
import { recordDecision } from "../../server/domain/requests.ts";
import { DEMO, withApp } from "../helpers.ts";
import { assertError, assertOk, login } from "./api.ts";
import {
  accepted,
  addComment,
  comments,
  create,
  edit,
  entity,
  get,
  MSG,
  post,
  submit,
} from "./requests_fixture.ts";

// ---------------------------------------------------------------------------------------------
// Cancel and close

Deno.test(
  "[requests] pwacancel cancels a new request, and a requested one together with its approval",
  withApp(async (api) => {
    const { h, oid: me } = await login(api, DEMO.employee);
    const x = await create(api, h);
    const c = await post(api, h, "pwacancel", { oid: x.oid, archive: false });
    assertOk(c);
    const cx = c.json.expenseRequest as ExpenseRequest;
    assert.equal(cx.statusCode, "cancelled");
    assert.equal(cx.canCancel, false);
    assert.equal(cx.canClose, false);
    assert.equal(cx.canSubmit, false);
    assert.equal(cx.canComment, false);
    assert.equal(cx.cardStatusCode, null);
    assertError(await post(api, h, "pwasubmit", { record: x.oid }), 403, "not_allowed");

    const y = await create(api, h);
    await submit(api, h, y.oid);
    const cy = await post(api, h, "pwacancel", { oid: y.oid });
    assertOk(cy);
    assert.equal((cy.json.expenseRequest as ExpenseRequest).statusCode, "cancelled");
    const [a] = await api.deps.store.approvals.byRequest(y.oid);
    assert.equal(a.statusCode, "cancelled");
    assert.deepEqual(a.levels.map((l) => l.statusCode), ["cancelled"]);
    assert.ok(
      api.deps.events.recent.some((e) =>
        e.type === "approval.cancelled" && e.approvalOid === a.oid
      ),
    );
    assert.ok(
      api.deps.events.recent.some((e) =>
        e.type === "request.cancelled" && e.requestOid === y.oid && e.userOid === me
      ),
    );
    // A decision arriving after the cancel changes nothing.
    await recordDecision(api.deps, a.oid, "accepted");
    assert.equal((await entity(api, h, y.oid)).statusCode, "cancelled");
  }),
);

Deno.test(
  "[requests] forbidden transitions are 403: cancel a cancelled or rejected request, close a new or requested one",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const x = await create(api, h);
    assertError(await post(api, h, "pwaclose", { oid: x.oid }), 403, "not_allowed", MSG.notAllowed);
    await submit(api, h, x.oid);
    assertError(await post(api, h, "pwaclose", { oid: x.oid }), 403, "not_allowed", MSG.notAllowed);
    assertOk(await post(api, h, "pwacancel", { oid: x.oid }));
    assertError(
      await post(api, h, "pwacancel", { oid: x.oid }),
      403,
      "not_allowed",
      MSG.notAllowed,
    );
    assertError(await post(api, h, "pwaclose", { oid: x.oid }), 403, "not_allowed");

    const y = await create(api, h);
    await submit(api, h, y.oid);
    const [a] = await api.deps.store.approvals.byRequest(y.oid);
    await recordDecision(api.deps, a.oid, "rejected", "Too expensive");
    const ry = await entity(api, h, y.oid);
    assert.equal(ry.statusCode, "rejected");
    assert.equal(ry.approverNote, "Too expensive");
    assert.equal(ry.canCancel, false);
    assert.equal(ry.canClose, false);
    assert.equal(ry.canEdit, false);
    assertError(await post(api, h, "pwacancel", { oid: y.oid }), 403, "not_allowed");
    assertError(await post(api, h, "pwaclose", { oid: y.oid }), 403, "not_allowed");
    assertError(await post(api, h, "pwamodify", { record: edit(ry) }), 403, "not_allowed");
  }),
);

Deno.test(
  "[requests] pwaclose closes an accepted request: canClose/canCancel false, read-only, comments no longer deletable",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const x = await accepted(api, h);
    assert.equal(x.statusCode, "accepted");
    assert.equal(x.canClose, true);
    assert.equal(x.canCancel, true);
    assert.equal(x.canGenerate, true);
    const cm = await addComment(api, h, x.oid, "Booked");
    assert.equal(cm.canBeDeleted, true);

    const r = await post(api, h, "pwaclose", { oid: x.oid, archive: false });
    assertOk(r);
    const c = r.json.expenseRequest as ExpenseRequest;
    assert.equal(c.statusCode, "accepted");
    assert.equal(c.cardStatusCode, "Closed");
    assert.equal(c.openCard, false);
    assert.equal(c.canClose, false);
    assert.equal(c.canCancel, false);
    assert.equal(c.canGenerate, false);
    assert.equal(c.canEdit, false);
    assert.equal(c.canComment, false);
    assert.deepEqual(await entity(api, h, x.oid), c);
    const list = await comments(api, h, x.oid);
    assert.deepEqual(list.map((k) => [k.oid, k.canBeDeleted]), [[cm.oid, false]]);
    assertError(await get(api, h, `pwadeletecomment?record=${cm.oid}`), 403, "not_allowed");
    assertError(
      await post(api, h, "pwaaddcomment", { oid: x.oid, comment: "more" }),
      403,
      "not_allowed",
      MSG.commentNotAllowed,
    );
    assertError(await post(api, h, "pwaclose", { oid: x.oid }), 403, "not_allowed");
    assertError(await post(api, h, "pwacancel", { oid: x.oid }), 403, "not_allowed");
    assertError(await post(api, h, "pwamodify", { record: edit(x, { purpose: "x" }) }), 403);
    const rows = (await get(api, h, "pwalists")).json.expenses as {
      expenseslist: Record<string, unknown>[];
    };
    const row = rows.expenseslist.find((e) => e.oid === x.oid)!;
    assert.equal(row.cardStatusCode, "Closed");
    assert.equal(row.canClose, false);
    assert.equal(row.canCancel, false);
    assert.ok(
      api.deps.events.recent.some((e) => e.type === "request.closed" && e.requestOid === x.oid),
    );
  }),
);

Deno.test(
  "[requests] pwacancel and pwaclose racing on an accepted request: exactly one wins, the state is consistent",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const reqs: ExpenseRequest[] = [];
    for (let i = 0; i < 10; i++) reqs.push(await accepted(api, h));
    const winners: string[] = [];
    for (const [i, x] of reqs.entries()) {
      const calls = [
        post(api, h, "pwacancel", { oid: x.oid }).then((r) => ["cancel", r] as const),
        post(api, h, "pwaclose", { oid: x.oid }).then((r) => ["close", r] as const),
      ];
      const rs = await Promise.all(i % 2 ? calls.reverse() : calls);
      const ok = rs.filter(([, r]) => r.status === 200);
      assert.equal(ok.length, 1, rs.map(([k, r]) => `${k} ${r.status} ${r.text}`).join("; "));
      const [, lost] = rs.find(([, r]) => r.status !== 200)!;
      assert.ok([403, 409].includes(lost.status), lost.text);
      assertError(lost, lost.status);
      const e = await entity(api, h, x.oid);
      if (ok[0][0] === "cancel") {
        assert.equal(e.statusCode, "cancelled");
        assert.equal(e.cardStatusCode, null);
      } else {
        assert.equal(e.statusCode, "accepted");
        assert.equal(e.cardStatusCode, "Closed");
      }
      assert.equal(e.canClose, false);
      assert.equal(e.canCancel, false);
      winners.push(ok[0][0]);
    }
    assert.equal(winners.length, 10);

    // The same, all ten pairs in flight at once: requests do not disturb one another.
    const more: ExpenseRequest[] = [];
    for (let i = 0; i < 10; i++) more.push(await accepted(api, h));
    const all = await Promise.all(more.flatMap((x) => [
      post(api, h, "pwacancel", { oid: x.oid }),
      post(api, h, "pwaclose", { oid: x.oid }),
    ]));
    for (const [i, x] of more.entries()) {
      const [cancel, close] = [all[2 * i], all[2 * i + 1]];
      assert.deepEqual(
        [cancel.status, close.status].filter((s) => s === 200),
        [200],
        `${cancel.text} / ${close.text}`,
      );
      const e = await entity(api, h, x.oid);
      assert.deepEqual(
        [e.statusCode, e.cardStatusCode],
        cancel.status === 200 ? ["cancelled", null] : ["accepted", "Closed"],
      );
    }
  }),
);

Deno.test(
  "[requests] an accepted request without a card can be cancelled, and is then neither closable nor cancellable",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const x = await accepted(api, h);
    const r = await post(api, h, "pwacancel", { oid: x.oid });
    assertOk(r);
    const c = r.json.expenseRequest as ExpenseRequest;
    assert.equal(c.statusCode, "cancelled");
    assert.equal(c.cardStatusCode, null);
    assert.equal(c.canClose, false);
    assert.equal(c.canCancel, false);
    assert.equal(c.canGenerate, false);
    assertError(await post(api, h, "pwaclose", { oid: x.oid }), 403, "not_allowed", MSG.notAllowed);
    assertError(
      await post(api, h, "pwacancel", { oid: x.oid }),
      403,
      "not_allowed",
      MSG.notAllowed,
    );
    assert.equal((await entity(api, h, x.oid)).statusCode, "cancelled");
  }),
);

// ---------------------------------------------------------------------------------------------
// Comments

Deno.test(
  "[requests] pwaaddcomment adds a trimmed comment with the author's names; pwaexpensecomments lists them oldest first",
  withApp(async (api) => {
    const { h, oid: me } = await login(api, DEMO.employee);
    const x = await create(api, h);
    assert.deepEqual(await comments(api, h, x.oid), []);
    const t0 = Date.now();
    let t = t0;
    api.deps.now = () => t;
    const a = await addComment(api, h, x.oid, "  First, with the receipt  ");
    t += 1000;
    const b = await addComment(api, h, x.oid, "Second");
    assert.deepEqual(a, {
      oid: a.oid,
      sourceEntityOid: x.oid,
      archive: false,
      comment: { author: me, fName: "Emma", lName: "Laurent", text: "First, with the receipt" },
      createdate: new Date(t0).toISOString(),
      canBeDeleted: true,
    });
    const list = await comments(api, h, `${x.oid}&archive=0`);
    assert.deepEqual(list, [a, b]);
    assert.ok(
      api.deps.events.recent.some((e) =>
        e.type === "comment.added" && e.commentOid === b.oid && e.sourceOid === x.oid
      ),
    );
  }),
);

Deno.test(
  "[requests] pwadeletecomment deletes the caller's comment; deleting it again is 404",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const x = await create(api, h);
    const a = await addComment(api, h, x.oid, "keep");
    const b = await addComment(api, h, x.oid, "remove");
    const r = await get(api, h, `pwadeletecomment?record=${b.oid}&archive=0`);
    assertOk(r);
    assert.deepEqual(r.json, { status: "OK" });
    assert.deepEqual((await comments(api, h, x.oid)).map((c) => c.oid), [a.oid]);
    assertError(await get(api, h, `pwadeletecomment?record=${b.oid}`), 404, "not_found");
    assertError(await get(api, h, `pwadeletecomment?record=${crypto.randomUUID()}`), 404);
    assert.ok(
      api.deps.events.recent.some((e) => e.type === "comment.deleted" && e.commentOid === b.oid),
    );
  }),
);

Deno.test(
  "[requests] on a cancelled request comments are read-only: add 403, delete 403, canBeDeleted false",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const x = await create(api, h);
    const a = await addComment(api, h, x.oid, "before the cancel");
    assertOk(await post(api, h, "pwacancel", { oid: x.oid }));
    assertError(
      await post(api, h, "pwaaddcomment", { oid: x.oid, comment: "after" }),
      403,
      "not_allowed",
      MSG.commentNotAllowed,
    );
    assertError(
      await get(api, h, `pwadeletecomment?record=${a.oid}`),
      403,
      "not_allowed",
      MSG.commentNotDeletable,
    );
    const list = await comments(api, h, x.oid);
    assert.deepEqual(list.map((c) => [c.oid, c.comment.text, c.canBeDeleted]), [
      [a.oid, "before the cancel", false],
    ]);
  }),
);

Deno.test(
  "[requests] 20 concurrent pwaaddcomment calls all land",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const x = await create(api, h);
    const rs = await Promise.all(
      Array.from(
        { length: 20 },
        (_, i) => post(api, h, "pwaaddcomment", { oid: x.oid, comment: `comment ${i}` }),
      ),
    );
    rs.forEach(assertOk);
    const list = await comments(api, h, x.oid);
    assert.equal(list.length, 20);
    assert.deepEqual(
      list.map((c) => c.comment.text).sort(),
      Array.from({ length: 20 }, (_, i) => `comment ${i}`).sort(),
    );
    assert.equal(new Set(list.map((c) => c.oid)).size, 20);
  }),
);
