/**
 * This file: edits, drafts and reissue (the same subject goes on in requests_submit_edit_test.ts).
 *
 * Expense request submit and edit (spec §4 request statuses and submit flow, §5 edit rules, §7
 * writes): submit and its approval, edit with reissue. In-process, no sockets.
 */
import assert from "node:assert/strict";
import type { ExpenseRequest } from "../../client/shared/contract/requests.ts";
import { recordDecision } from "../../server/domain/requests.ts";
import { DEMO, withApp } from "../helpers.ts";
import { assertError, assertOk, login } from "./api.ts";
import { create, edit, entity, MSG, post, submit } from "./requests_fixture.ts";

// ---------------------------------------------------------------------------------------------
// Submit and approvals

// ---------------------------------------------------------------------------------------------
// Edit: pwacheckneedrecreate, pwamodify, pwareissueapproval

Deno.test(
  "[requests] on an unsubmitted request every valid edit has sameAP true and pwamodify applies it",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const x = await create(api, h);
    const changes: Record<string, unknown>[] = [
      { purpose: "Train to Lille" },
      { GLOid: "gl-entertainment", projectOid: "prj-expansion" },
      { costCenterOid: "cc-it", GLOid: "gl-hardware", projectOid: "prj-cloud" },
    ];
    let cur = x;
    for (const over of changes) {
      const body = edit(cur, over);
      const c = await post(api, h, "pwacheckneedrecreate", { expenseRequest: body });
      assertOk(c);
      assert.deepEqual(c.json, { sameAP: true });
      const m = await post(api, h, "pwamodify", { record: body });
      assertOk(m);
      cur = m.json.expenseRequest as ExpenseRequest;
      assert.equal(cur.statusCode, "new");
    }
    assert.equal(cur.purpose, "Train to Lille");
    assert.equal(cur.costCenter, "IT");
    assert.equal(cur.GLCode, "IT hardware");
    assert.equal(cur.projectCode, "Cloud migration");
    assert.deepEqual(await entity(api, h, x.oid), cur);
    // Still unsubmitted: no approval was opened by the edits.
    assert.deepEqual(await api.deps.store.approvals.byRequest(x.oid), []);
    // pwareissueapproval on a new request is a plain modify as well.
    const r = await post(api, h, "pwareissueapproval", {
      expenseRequest: edit(cur, {
        costCenterOid: "cc-sales",
        GLOid: "gl-travel",
        projectOid: "prj-crm",
      }),
    });
    assertOk(r);
    assert.equal((r.json.expenseRequest as ExpenseRequest).statusCode, "new");
    assert.deepEqual(await api.deps.store.approvals.byRequest(x.oid), []);
  }),
);

Deno.test(
  "[requests] an edit of a submitted request without cost center, GL code or project is 422 'Project, GL code and cost center must be set'",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    // spec §5's edit rule is for submitted requests (a draft edits by creation's rules).
    const x = await submit(api, h, (await create(api, h)).oid);
    for (const field of ["costCenterOid", "GLOid", "projectOid"]) {
      for (const v of [undefined, null, ""]) {
        const body = edit(x, { [field]: v });
        for (
          const [path, wrap] of [
            ["pwacheckneedrecreate", "expenseRequest"],
            ["pwamodify", "record"],
            ["pwareissueapproval", "expenseRequest"],
          ]
        ) {
          assertError(
            await post(api, h, path, { [wrap]: body }),
            422,
            "codes_required",
            MSG.codesRequired,
          );
        }
      }
    }
    assertError(
      await post(api, h, "pwamodify", { record: edit(x, { purpose: "  " }) }),
      422,
      "purpose_required",
      MSG.purposeRequired,
    );
    // Nothing changed.
    assert.deepEqual(await entity(api, h, x.oid), x);
  }),
);

Deno.test(
  "[requests] a draft edits everything creation offers, by creation's rules: codes stay optional until it is submitted",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    // A draft with no codes (creation allows it).
    const x = await create(api, h, { costCenterOid: null, GLOid: null, projectOid: null });
    assert.equal(x.statusCode, "new");
    // Purpose alone: no codes needed, as at creation.
    const purposeOnly = await post(api, h, "pwamodify", {
      record: { oid: x.oid, purpose: "Train to Lyon and back" },
    });
    assertOk(purposeOnly);
    // Amount, type, vendor, url and currency too.
    const all = await post(api, h, "pwamodify", {
      record: {
        oid: x.oid,
        typeOid: "type-equipment",
        amount: 900,
        pricingCurrency: "EUR",
        purpose: "Laptop",
        costCenterOid: null,
        GLOid: null,
        projectOid: null,
        vendor: "  Shop Co ",
        url: "shop.example.com",
      },
    });
    assertOk(all);
    const y = await entity(api, h, x.oid);
    assert.deepEqual(
      [y.statusCode, y.typeOid, y.amount, y.purpose, y.vendor, y.url, y.costCenterOid],
      ["new", "type-equipment", 900, "Laptop", "Shop Co", "http://shop.example.com", null],
    );
    // Creation's rules and messages: the new type's bounds, a purpose, a valid url.
    assertError(
      await post(api, h, "pwamodify", { record: { oid: x.oid, amount: 20000 } }),
      422,
      "amount_range",
    );
    assertError(
      await post(api, h, "pwamodify", { record: { oid: x.oid, url: "javascript:alert(1)" } }),
      422,
      "vendor_url_invalid",
    );
    assertError(
      await post(api, h, "pwamodify", { record: { oid: x.oid, purpose: "  " } }),
      422,
      "purpose_required",
      MSG.purposeRequired,
    );
    // A budget plan on a recurring type: the amount is its total.
    const plan = { period: "monthly", startDate: "2030-01-31", amount: 49.9, occurrences: 3 };
    assertOk(
      await post(api, h, "pwamodify", {
        record: { oid: x.oid, typeOid: "type-subscription", amount: null, budget: plan },
      }),
    );
    const z = await entity(api, h, x.oid);
    assert.deepEqual([z.typeOid, z.amount, z.budget.length], ["type-subscription", 149.7, 3]);
    // Once submitted, spec §5's edit rule applies: the codes must be set.
    await submit(api, h, x.oid);
    assertError(
      await post(api, h, "pwamodify", { record: { oid: x.oid, purpose: "Tools" } }),
      422,
      "codes_required",
      MSG.codesRequired,
    );
  }),
);

Deno.test(
  "[requests] an edit with a GL/project of another cost center, or a cost center the type refuses, is 422",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const x = await create(api, h);
    assertError(
      await post(api, h, "pwamodify", { record: edit(x, { GLOid: "gl-hardware" }) }),
      422,
      "codes_mismatch",
      MSG.codesMismatch,
    );
    assertError(
      await post(api, h, "pwacheckneedrecreate", {
        expenseRequest: edit(x, { projectOid: "prj-general" }),
      }),
      422,
      "codes_mismatch",
      MSG.codesMismatch,
    );
    const ev = await create(api, h, { typeOid: "type-event", amount: 500 });
    assertError(
      await post(api, h, "pwamodify", {
        record: edit(ev, { costCenterOid: "cc-it", GLOid: "gl-travel", projectOid: "prj-crm" }),
      }),
      422,
      "cost_center_not_allowed",
      MSG.costCenterNotAllowed,
    );
    assert.deepEqual(await entity(api, h, ev.oid), ev);
  }),
);

Deno.test(
  "[requests] requested request: a purpose-only (or GL/project) change keeps the approval (sameAP true)",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const x = await create(api, h);
    const s = await submit(api, h, x.oid);
    const [a] = await api.deps.store.approvals.byRequest(x.oid);
    const body = edit(s, { purpose: "Train to Lyon and back" });
    assert.deepEqual(
      (await post(api, h, "pwacheckneedrecreate", { expenseRequest: body })).json,
      { sameAP: true },
    );
    const m = await post(api, h, "pwamodify", { record: body });
    assertOk(m);
    const after = m.json.expenseRequest as ExpenseRequest;
    assert.equal(after.purpose, "Train to Lyon and back");
    assert.equal(after.statusCode, "requested");
    const gl = edit(after, { GLOid: "gl-software", projectOid: "prj-expansion" });
    assert.deepEqual(
      (await post(api, h, "pwacheckneedrecreate", { expenseRequest: gl })).json,
      { sameAP: true },
    );
    assertOk(await post(api, h, "pwamodify", { record: gl }));
    const aps = await api.deps.store.approvals.byRequest(x.oid);
    assert.equal(aps.length, 1);
    assert.equal(aps[0].oid, a.oid);
    assert.equal(aps[0].statusCode, "new");
    const ev = api.deps.events.recent.filter((e) => e.type === "request.modified");
    assert.deepEqual(ev.map((e) => "reissued" in e && e.reissued), [false, false]);
  }),
);

Deno.test(
  "[requests] requested request: a cost-center change needs a new approval; pwamodify 409, pwareissueapproval reissues",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const x = await create(api, h);
    const s = await submit(api, h, x.oid);
    const [old] = await api.deps.store.approvals.byRequest(x.oid);
    const body = edit(s, { costCenterOid: "cc-it", GLOid: "gl-travel", projectOid: "prj-cloud" });
    const c = await post(api, h, "pwacheckneedrecreate", { expenseRequest: body });
    assertOk(c);
    assert.deepEqual(c.json, { sameAP: false });
    assertError(
      await post(api, h, "pwamodify", { record: body }),
      409,
      "reissue_required",
      MSG.reissueRequired,
    );
    // The refused modify changed nothing.
    assert.deepEqual(await entity(api, h, x.oid), s);

    const r = await post(api, h, "pwareissueapproval", { expenseRequest: body });
    assertOk(r);
    const after = r.json.expenseRequest as ExpenseRequest;
    assert.equal(after.statusCode, "requested");
    assert.equal(after.costCenterOid, "cc-it");
    assert.equal(after.costCenter, "IT");
    const aps = await api.deps.store.approvals.byRequest(x.oid);
    assert.equal(aps.length, 2);
    const prev = aps.find((a) => a.oid === old.oid)!;
    const next = aps.find((a) => a.oid !== old.oid)!;
    assert.equal(prev.statusCode, "cancelled");
    assert.deepEqual(prev.levels.map((l) => l.statusCode), ["cancelled"]);
    assert.equal(next.statusCode, "new");
    assert.equal(next.id, "AP000001.2");
    assert.equal(next.costCenterOid, "cc-it");
    assert.deepEqual(next.levels.map((l) => l.statusCode), ["open"]);
    assert.ok(
      api.deps.events.recent.some((e) =>
        e.type === "approval.cancelled" && e.approvalOid === old.oid
      ),
    );
    assert.ok(
      api.deps.events.recent.some((e) =>
        e.type === "approval.opened" && e.approvalOid === next.oid
      ),
    );
    // A late decision on the cancelled approval no longer changes the request.
    await recordDecision(api.deps, old.oid, "accepted");
    assert.equal((await entity(api, h, x.oid)).statusCode, "requested");
    await recordDecision(api.deps, next.oid, "accepted");
    assert.equal((await entity(api, h, x.oid)).statusCode, "accepted");
  }),
);

Deno.test(
  "[requests] a cancelled request cannot be edited: pwamodify, pwacheckneedrecreate and pwareissueapproval are 403",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const x = await create(api, h);
    assertOk(await post(api, h, "pwacancel", { oid: x.oid }));
    const c = await entity(api, h, x.oid);
    assert.equal(c.canEdit, false);
    const body = edit(x, { purpose: "Changed" });
    assertError(
      await post(api, h, "pwamodify", { record: body }),
      403,
      "not_allowed",
      MSG.notAllowed,
    );
    assertError(await post(api, h, "pwacheckneedrecreate", { expenseRequest: body }), 403);
    assertError(await post(api, h, "pwareissueapproval", { expenseRequest: body }), 403);
    assert.deepEqual(await entity(api, h, x.oid), c);
  }),
);
