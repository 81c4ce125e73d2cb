/**
 * This file: each §5 create rule's message, missing receipts, roles, French (the same subject goes
 * on in requests_create_test.ts, requests_budget_test.ts).
 *
 * Expense request creation (spec §3 expense request, §5 create rules and budget, §7 writes):
 * create with every §5 rule, request ids under concurrent creates, budget plans. In-process,
 * no sockets.
 */
import assert from "node:assert/strict";
import { en } from "../../client/shared/i18n/locales/en.ts";
import { fr } from "../../client/shared/i18n/locales/fr.ts";
import { DEMO, withApp } from "../helpers.ts";
import { assertError, assertOk, login, loginFrench } from "./api.ts";
import {
  create,
  createRaw,
  DIRECTOR,
  get,
  MSG,
  putTransaction,
  TRAVEL,
} from "./requests_fixture.ts";

// ---------------------------------------------------------------------------------------------
// Create

Deno.test(
  "[requests] create: a missing type is 422 'Please choose a type'; an unknown one 'This type does not exist'",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const { typeOid: _t, ...noType } = TRAVEL;
    for (const body of [noType, { ...noType, typeOid: null }, { ...noType, typeOid: "" }]) {
      assertError(await createRaw(api, h, body), 422, "type_required", MSG.typeRequired);
    }
    assertError(
      await createRaw(api, h, { ...TRAVEL, typeOid: "type-nope" }),
      422,
      "type_unknown",
      MSG.typeUnknown,
    );
  }),
);

Deno.test(
  "[requests] create: a missing amount is 422 'Please enter an amount'; negative or 3 decimals are invalid",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const { amount: _a, ...noAmount } = TRAVEL;
    for (const body of [noAmount, { ...noAmount, amount: null }]) {
      assertError(await createRaw(api, h, body), 422, "amount_required", MSG.amountRequired);
    }
    for (const amount of [-50, 0, 120.123]) {
      assertError(
        await createRaw(api, h, { ...TRAVEL, amount }),
        422,
        "amount_invalid",
        MSG.amountInvalid,
      );
    }
  }),
);

Deno.test(
  "[requests] create: an amount outside TRAVEL's bounds is exactly 'Amount must be between €20.00 and €5,000.00'",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    for (const amount of [1, 19.99, 5000.01, 1e6]) {
      assertError(
        await createRaw(api, h, { ...TRAVEL, amount }),
        422,
        "amount_range",
        MSG.travelRange,
      );
    }
    assert.equal((await create(api, h, { amount: 20 })).amount, 20);
    assert.equal((await create(api, h, { amount: 5000 })).amount, 5000);
    // Another type, other bounds.
    assertError(
      await createRaw(api, h, {
        ...TRAVEL,
        typeOid: "type-supplies",
        amount: 600,
        costCenterOid: null,
        GLOid: null,
        projectOid: null,
      }),
      422,
      "amount_range",
      "Amount must be between €5.00 and €500.00",
    );
  }),
);

Deno.test(
  "[requests] create: a missing or blank purpose is 422 'Please enter a purpose'; over 500 characters too long",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const { purpose: _p, ...noPurpose } = TRAVEL;
    for (const purpose of [undefined, null, "", "   ", "\n\t "]) {
      assertError(
        await createRaw(api, h, { ...noPurpose, purpose }),
        422,
        "purpose_required",
        MSG.purposeRequired,
      );
    }
    assertError(
      await createRaw(api, h, { ...TRAVEL, purpose: "p".repeat(501) }),
      422,
      "purpose_too_long",
      MSG.purposeTooLong,
    );
    assert.equal((await create(api, h, { purpose: "p".repeat(500) })).purpose.length, 500);
  }),
);

Deno.test(
  "[requests] create: a recurring SUBSCRIPTION without a budget is 422 'This type is recurring: please create a budget'",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    for (const budget of [undefined, null]) {
      assertError(
        await createRaw(api, h, {
          typeOid: "type-subscription",
          amount: 50,
          purpose: "Design tool",
          budget,
        }),
        422,
        "budget_required",
        MSG.budgetRequired,
      );
    }
  }),
);

Deno.test(
  "[requests] create: a GL or project code that does not belong to the cost center is 422",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const bad: Record<string, unknown>[] = [
      { GLOid: "gl-hardware" }, // IT and admin only
      { GLOid: "gl-nope" },
      { projectOid: "prj-brand" }, // marketing only
      { projectOid: "prj-nope" },
      { costCenterOid: null, GLOid: "gl-travel", projectOid: null }, // GL without cost center
      { costCenterOid: null, GLOid: null, projectOid: "prj-crm" },
    ];
    for (const over of bad) {
      assertError(
        await createRaw(api, h, { ...TRAVEL, ...over }),
        422,
        "codes_mismatch",
        MSG.codesMismatch,
      );
    }
    // A cost center alone is enough at creation.
    const x = await create(api, h, { GLOid: null, projectOid: null });
    assert.equal(x.costCenterOid, "cc-sales");
    assert.equal(x.GLOid, null);
  }),
);

Deno.test(
  "[requests] create: a cost center the type does not allow is 422 (EVENT allows only Sales and Marketing)",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const event = { ...TRAVEL, typeOid: "type-event", amount: 500, GLOid: null, projectOid: null };
    for (const costCenterOid of ["cc-it", "cc-admin", "cc-nope"]) {
      assertError(
        await createRaw(api, h, { ...event, costCenterOid }),
        422,
        "cost_center_not_allowed",
        MSG.costCenterNotAllowed,
      );
    }
    for (const costCenterOid of ["cc-sales", "cc-marketing"]) {
      assert.equal(
        (await create(api, h, { ...event, costCenterOid })).costCenterOid,
        costCenterOid,
      );
    }
  }),
);

Deno.test(
  "[requests] missing receipts: the check answers 0 with the §5 message and create is refused with 422",
  withApp(async (api) => {
    const { h, oid } = await login(api, DEMO.employee);
    const mgr = await login(api, DEMO.manager);
    // Refused and moved transactions need no receipt; one with a receipt is fine.
    await putTransaction(api, oid, "Refused", 0);
    await putTransaction(api, oid, "Moved", 0);
    await putTransaction(api, oid, "Captured", 2);
    assert.deepEqual((await get(api, h, "pwacheckcancreaterequest")).json, {
      result: 1,
      message: null,
    });
    await create(api, h);

    await putTransaction(api, oid, "Captured", 0);
    const check = await get(api, h, "pwacheckcancreaterequest");
    assertOk(check);
    assert.deepEqual(check.json, { result: 0, message: MSG.missingReceipts });
    assertError(await createRaw(api, h, TRAVEL), 422, "missing_receipts", MSG.missingReceipts);
    // Only the employee's own transactions count.
    assert.deepEqual((await get(api, mgr.h, "pwacheckcancreaterequest")).json, {
      result: 1,
      message: null,
    });
    await create(api, mgr.h);
    // Nothing was stored for the refused create.
    const lists = await get(api, h, "pwalists");
    assert.equal((lists.json.expenses as { expenseslist: unknown[] }).expenseslist.length, 1);
  }),
);

Deno.test(
  "[requests] canRequest false (approver): the check answers 0 and create is 403",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.approver);
    const check = await get(api, h, "pwacheckcancreaterequest");
    assertOk(check);
    assert.deepEqual(check.json, { result: 0, message: MSG.cannotRequest });
    assertError(await createRaw(api, h, TRAVEL), 403, "cannot_request", MSG.cannotRequest);
    // Even a body that breaks every rule: the permission comes first.
    assertError(await createRaw(api, h, {}), 403, "cannot_request");
  }),
);

Deno.test(
  "[requests] a French user (director) gets the refusal in French",
  withApp(async (api) => {
    const { h } = await loginFrench(api, DIRECTOR);
    const expected = (fr as Record<string, string>)["request.cannotRequest"];
    assert.ok(expected, "fr.ts has no request.cannotRequest");
    assert.notEqual(expected, en["request.cannotRequest"]);
    assertError(await createRaw(api, h, TRAVEL), 403, "cannot_request", expected);
    assert.deepEqual((await get(api, h, "pwacheckcancreaterequest")).json, {
      result: 0,
      message: expected,
    });
  }),
);
