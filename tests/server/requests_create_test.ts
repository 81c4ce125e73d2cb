/**
 * Expense request creation (spec §3 expense request, §5 create rules and budget, §7 writes):
 * create with every §5 rule, request ids under concurrent creates, budget plans. In-process,
 * no sockets.
 */
import assert from "node:assert/strict";
import type { ExpenseRequest } from "../../client/shared/contract/requests.ts";
import { en } from "../../client/shared/i18n/locales/en.ts";
import { fr } from "../../client/shared/i18n/locales/fr.ts";
import { DEMO, withApp } from "../helpers.ts";
import { assertError, assertOk, login, loginFrench } from "./api.ts";
import {
  create,
  createRaw,
  DIRECTOR,
  entity,
  FINANCE,
  get,
  MSG,
  putTransaction,
  TRAVEL,
} from "./requests_fixture.ts";

// ---------------------------------------------------------------------------------------------
// Create

Deno.test(
  "[requests] pwacheckcancreaterequest answers result 1 for an employee with every receipt",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const r = await get(api, h, "pwacheckcancreaterequest");
    assertOk(r);
    assert.deepEqual(r.json, { result: 1, message: null });
  }),
);

Deno.test(
  "[requests] pwaexpenserequestcreate stores a new TRAVEL request with resolved codes, defaults and flags",
  withApp(async (api) => {
    const { h, oid: me } = await login(api, DEMO.employee);
    const before = Date.now();
    const r = await createRaw(api, h, {
      ...TRAVEL,
      amount: 120.5,
      purpose: "  Train to Lyon  ",
      vendor: "  SNCF ",
      url: "shop.example.com",
    });
    assertOk(r);
    const x = r.json.expenseRequest as ExpenseRequest;
    assert.match(x.oid, /^[0-9a-f-]{36}$/);
    const { oid: _oid, issueDate, ...rest } = x;
    const at = Date.parse(issueDate);
    assert.ok(at >= before - 5 && at <= Date.now() + 5, issueDate);
    assert.equal(issueDate, new Date(at).toISOString());
    assert.deepEqual(rest, {
      id: "R000001",
      archive: false,
      purpose: "Train to Lyon",
      statusCode: "new",
      costCenter: "Sales",
      costCenterOid: "cc-sales",
      GLCode: "Travel and accommodation",
      GLOid: "gl-travel",
      projectCode: "CRM rollout",
      projectOid: "prj-crm",
      typeOid: "type-travel",
      amount: 120.5,
      pricingCurrency: "EUR",
      canClose: false,
      canCancel: true,
      hasCard: false,
      openCard: false,
      cardStatusCode: null,
      needsAttention: true,
      budgetCount: 0,
      vendor: "SNCF",
      url: "http://shop.example.com",
      accountOid: "acc-eur",
      monetaryAmount: "120.50 EUR",
      fullamount: "120",
      fractionamount: "50",
      subType: {
        rowId: 1,
        id: "TRAVEL",
        description: "Travel",
        minAmount: 20,
        maxAmount: 5000,
        isRecurring: false,
        requireRejectNote: false,
      },
      budget: [],
      approvals: [FINANCE],
      canGenerate: false,
      canEdit: true,
      canSubmit: true,
      canComment: true,
      is3DSecureDefined: false,
      author: me,
      approverNote: null,
    });
    // pwaexpenseentity reads back the same request.
    assert.deepEqual(await entity(api, h, x.oid), x);
    assert.deepEqual(await entity(api, h, `${x.oid}&archive=0`), x);
    // Not submitted: no approval exists yet.
    assert.deepEqual(await api.deps.store.approvals.byRequest(x.oid), []);
  }),
);

Deno.test(
  "[requests] create: the vendor url gets http:// when it has none; http(s) urls are kept; others 422",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const cases: [string, string][] = [
      ["shop.example.com", "http://shop.example.com"],
      ["shop.example.com/offers?x=1", "http://shop.example.com/offers?x=1"],
      ["https://shop.example.com", "https://shop.example.com"],
      ["http://shop.example.com", "http://shop.example.com"],
      ["", ""],
    ];
    for (const [url, stored] of cases) {
      const x = await create(api, h, { url });
      assert.equal(x.url, stored, url);
      assert.equal((await entity(api, h, x.oid)).url, stored);
    }
    assert.equal((await create(api, h, {})).url, "");
    for (const url of ["javascript:alert(1)", "ftp://shop.example.com", "not a url", "shop"]) {
      assertError(
        await createRaw(api, h, { ...TRAVEL, url }),
        422,
        "vendor_url_invalid",
        MSG.vendorUrlInvalid,
      );
    }
  }),
);

Deno.test(
  "[requests] create: the currency defaults to the account's, can be chosen, and must exist",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const uk = await create(api, h, {
      typeOid: "type-uk-travel",
      costCenterOid: null,
      GLOid: null,
      projectOid: null,
    });
    assert.equal(uk.accountOid, "acc-gbp");
    assert.equal(uk.pricingCurrency, "GBP");
    assert.equal(uk.monetaryAmount, "120.00 GBP");
    // No codes at creation: allowed, left empty.
    assert.equal(uk.costCenterOid, null);
    assert.equal(uk.costCenter, "");
    assert.equal(uk.GLOid, null);
    assert.equal(uk.projectCode, "");
    const usd = await create(api, h, { pricingCurrency: "USD" });
    assert.equal(usd.pricingCurrency, "USD");
    assertError(
      await createRaw(api, h, { ...TRAVEL, pricingCurrency: "XYZ" }),
      422,
      "currency_unknown",
      MSG.currencyUnknown,
    );
  }),
);

Deno.test(
  "[requests] create: unknown account or a type of another account is refused with 422",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    assertError(
      await createRaw(api, h, { ...TRAVEL, accountOid: "acc-nope" }),
      422,
      "account_unknown",
      MSG.accountUnknown,
    );
    assertError(
      await createRaw(api, h, { ...TRAVEL, accountOid: "acc-gbp" }),
      422,
      "type_account_mismatch",
      MSG.typeAccountMismatch,
    );
    assert.equal((await create(api, h, { accountOid: "acc-eur" })).accountOid, "acc-eur");
  }),
);

Deno.test(
  "[requests] request ids count up from R000001 across users, and stay unique under 10 concurrent creates",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    const mgr = await login(api, DEMO.manager);
    assert.equal((await create(api, emp.h)).id, "R000001");
    assert.equal((await create(api, mgr.h)).id, "R000002");
    assert.equal((await create(api, emp.h)).id, "R000003");
    const rs = await Promise.all(
      Array.from({ length: 10 }, (_, i) => createRaw(api, i % 2 ? emp.h : mgr.h, TRAVEL)),
    );
    rs.forEach(assertOk);
    const ids = rs.map((r) => (r.json.expenseRequest as ExpenseRequest).id).sort();
    assert.deepEqual(
      ids,
      Array.from({ length: 10 }, (_, i) => `R${String(i + 4).padStart(6, "0")}`),
    );
  }),
);

Deno.test(
  "[requests] 50 concurrent creates all succeed with unique increasing ids",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    const mgr = await login(api, DEMO.manager);
    const N = 50;
    const rs = await Promise.all(
      Array.from(
        { length: N },
        (_, i) => createRaw(api, i % 2 ? emp.h : mgr.h, { ...TRAVEL, purpose: `Trip #${i}` }),
      ),
    );
    rs.forEach(assertOk);
    const ids = rs.map((r) => (r.json.expenseRequest as ExpenseRequest).id);
    const ID = /^R\d{6,}$/;
    for (const id of ids) {
      assert.match(id, ID);
      assert.doesNotMatch(id, /-\d{4}$/);
    }
    assert.equal(new Set(ids).size, N, `duplicate ids: ${ids.sort().join(" ")}`);
    const num = (id: string) => Number(id.slice(1));
    const later = await create(api, emp.h);
    assert.match(later.id, ID);
    assert.ok(ids.every((id) => num(id) < num(later.id)), `${later.id} after ${ids.join(" ")}`);
    // Every request is stored once, under its author, with the id it was answered with.
    const stored = [
      ...await api.deps.store.requests.byUser(emp.oid),
      ...await api.deps.store.requests.byUser(mgr.oid),
    ];
    assert.equal(stored.length, N + 1);
    assert.deepEqual(stored.map((r) => r.id).sort(), [...ids, later.id].sort());
  }),
);

Deno.test(
  "[requests] 50 concurrent creates on two stores over one KV (two processes) get unique ids",
  withApp(async (api) => {
    const { createStore } = await import("../../server/store/mod.ts");
    const other = createStore(api.kv).requests;
    const mine = api.deps.store.requests;
    const ids = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? other : mine).nextId()),
    );
    assert.equal(new Set(ids).size, 50);
    // Each process hands out its own block in order.
    for (const repo of [mine, other]) {
      const own = ids.filter((_, i) => (i % 2 ? other : mine) === repo).map((id) => +id.slice(1));
      assert.deepEqual(own, [...own].sort((a, b) => a - b));
    }
  }),
);

Deno.test(
  "[requests] budget: a plan whose last line would fall in the year 10000 is 422, translated",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    const event = { ...TRAVEL, typeOid: "type-event" };
    const cases = [
      { period: "monthly", startDate: "9999-12-31", amount: 50, occurrences: 2 },
      { period: "weekly", startDate: "9999-12-31", amount: 50, occurrences: 2 },
      { period: "monthly", startDate: "9999-06-15", amount: 50, occurrences: 12 },
    ];
    for (const budget of cases) {
      assertError(
        await createRaw(api, emp.h, { ...event, budget }),
        422,
        "bad_end",
        en["budget.badEnd"],
      );
    }
    assert.equal(en["budget.badEnd"], "The last budget date must be before the year 10000");
    // Nothing was stored, and the last day of 9999 is still a valid line.
    assert.deepEqual(await api.deps.store.requests.byUser(emp.oid), []);
    const ok = await create(api, emp.h, {
      ...event,
      budget: { period: "monthly", startDate: "9999-11-30", amount: 50, occurrences: 2 },
    });
    assert.deepEqual(ok.budget.map((l) => l.budgetdate), ["9999-11-30", "9999-12-30"]);
    // The same answer in the caller's language.
    const user = (await api.deps.store.users.byEmail(DEMO.employee))!;
    assert.ok(
      (await api.deps.store.users.put(api.kv.atomic(), { ...user, locale: "fr" }).commit()).ok,
    );
    assertError(
      await createRaw(api, emp.h, { ...event, budget: cases[0] }),
      422,
      "bad_end",
      fr["budget.badEnd"],
    );
  }),
);

Deno.test(
  "[requests] budget: monthly from 2028-01-31 clamps to month ends and the amount is the lines' sum",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const x = await create(api, h, {
      typeOid: "type-event",
      amount: 99999, // ignored: the amount is the budget's total (spec §5)
      budget: { period: "monthly", startDate: "2028-01-31", amount: 150, occurrences: 4 },
    });
    assert.deepEqual(x.budget, [
      { budgetdate: "2028-01-31", budgetamount: 150, budgetfunded: false },
      { budgetdate: "2028-02-29", budgetamount: 150, budgetfunded: false },
      { budgetdate: "2028-03-31", budgetamount: 150, budgetfunded: false },
      { budgetdate: "2028-04-30", budgetamount: 150, budgetfunded: false },
    ]);
    assert.equal(x.amount, 600);
    assert.equal(x.budgetCount, 4);
    assert.equal(x.monetaryAmount, "600.00 EUR");
    assert.deepEqual((await entity(api, h, x.oid)).budget, x.budget);
    // A non-leap year gives Feb 28.
    const y = await create(api, h, {
      typeOid: "type-event",
      budget: { period: "monthly", startDate: "2027-12-31", amount: 100, occurrences: 3 },
    });
    assert.deepEqual(y.budget.map((l) => l.budgetdate), ["2027-12-31", "2028-01-31", "2028-02-29"]);
    const z = await create(api, h, {
      typeOid: "type-event",
      budget: { period: "monthly", startDate: "2027-01-30", amount: 100, occurrences: 3 },
    });
    assert.deepEqual(z.budget.map((l) => l.budgetdate), ["2027-01-30", "2027-02-28", "2027-03-30"]);
  }),
);

Deno.test(
  "[requests] budget: weekly lines are 7 days apart and cents add up exactly (SUBSCRIPTION)",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const x = await create(api, h, {
      typeOid: "type-subscription",
      amount: null,
      budget: { period: "weekly", startDate: "2027-12-27", amount: 33.33, occurrences: 3 },
    });
    assert.deepEqual(x.budget, [
      { budgetdate: "2027-12-27", budgetamount: 33.33, budgetfunded: false },
      { budgetdate: "2028-01-03", budgetamount: 33.33, budgetfunded: false },
      { budgetdate: "2028-01-10", budgetamount: 33.33, budgetfunded: false },
    ]);
    assert.equal(x.amount, 99.99);
    assert.equal(x.subType.isRecurring, true);
    // The total must still be within the type's bounds (SUBSCRIPTION: 5 to 1000).
    assertError(
      await createRaw(api, h, {
        ...TRAVEL,
        typeOid: "type-subscription",
        costCenterOid: null,
        GLOid: null,
        projectOid: null,
        budget: { period: "monthly", startDate: "2028-01-01", amount: 100, occurrences: 12 },
      }),
      422,
      "amount_range",
      "Amount must be between €5.00 and €1,000.00",
    );
  }),
);

Deno.test(
  "[requests] budget: a type without budgets, an impossible start day or a non-positive amount is 422",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const plan = { period: "monthly", startDate: "2028-01-31", amount: 50, occurrences: 2 };
    assertError(
      await createRaw(api, h, { ...TRAVEL, budget: plan }),
      422,
      "budget_not_allowed",
      MSG.budgetNotAllowed,
    );
    const event = { ...TRAVEL, typeOid: "type-event" };
    assertError(
      await createRaw(api, h, { ...event, budget: { ...plan, startDate: "2027-02-30" } }),
      422,
      "bad_start",
      MSG.badStart,
    );
    for (const amount of [0, -10, 10.005]) {
      assertError(
        await createRaw(api, h, { ...event, budget: { ...plan, amount } }),
        422,
        "bad_amount",
        MSG.badAmount,
      );
    }
  }),
);

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
