/**
 * This file: the check, a create, vendor url, currency, accounts, ids under concurrency (the same
 * subject goes on in requests_budget_test.ts, requests_create_rules_test.ts).
 *
 * Expense request creation (spec §3 expense request, §5 create rules and budget, §7 writes):
 * create with every §5 rule, request ids under concurrent creates, budget plans. In-process,
 * no sockets.
 */
import assert from "node:assert/strict";
import type { ExpenseRequest } from "../../client/shared/contract/requests.ts";
import { DEMO, withApp } from "../helpers.ts";
import { assertError, assertOk, login } from "./api.ts";
import { create, createRaw, entity, FINANCE, get, MSG, TRAVEL } from "./requests_fixture.ts";

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
