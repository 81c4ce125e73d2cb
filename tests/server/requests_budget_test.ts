/**
 * This file: budget plans (the same subject goes on in requests_create_test.ts,
 * requests_create_rules_test.ts).
 *
 * Expense request creation (spec §3 expense request, §5 create rules and budget, §7 writes):
 * create with every §5 rule, request ids under concurrent creates, budget plans. In-process,
 * no sockets.
 */
import assert from "node:assert/strict";
import { en } from "../../client/shared/i18n/locales/en.ts";
import { fr } from "../../client/shared/i18n/locales/fr.ts";
import { DEMO, withApp } from "../helpers.ts";
import { assertError, login } from "./api.ts";
import { create, createRaw, entity, MSG, TRAVEL } from "./requests_fixture.ts";

// ---------------------------------------------------------------------------------------------
// Create

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
