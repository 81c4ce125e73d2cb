/**
 * Expense request reads (spec §3 expense request, §7 reads): lookups, pwalists rows and other
 * users' records. In-process, no sockets.
 */
import assert from "node:assert/strict";
import { DEMO, withApp } from "../helpers.ts";
import { assertError, assertOk, login, type Res } from "./api.ts";
import {
  accepted,
  addComment,
  comments,
  create,
  edit,
  entity,
  get,
  post,
  specFields,
  submit,
} from "./requests_fixture.ts";

// ---------------------------------------------------------------------------------------------
// Lookups

Deno.test(
  "[requests] pwaaccounts lists the organisation's accounts sorted by label, with their currency",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const r = await get(api, h, "pwaaccounts");
    assertOk(r);
    assert.deepEqual(specFields(r.json.accounts), [
      { oid: "acc-eur", value: "OPS-EUR", label: "Operating account (EUR)", currency: "EUR" },
      { oid: "acc-gbp", value: "OPS-GBP", label: "UK operating account (GBP)", currency: "GBP" },
    ]);
  }),
);

Deno.test(
  "[requests] pwatypes lists every type in rowId order, or only the types of one account",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const all = await get(api, h, "pwatypes");
    assertOk(all);
    const types = all.json.types as Record<string, unknown>[];
    assert.deepEqual(types.map((t) => t.id), [
      "TRAVEL",
      "EVENT",
      "SUBSCRIPTION",
      "EQUIPMENT",
      "SUPPLIES",
      "UK-TRAVEL",
    ]);
    assert.deepEqual(specFields([types[0]])[0], {
      oid: "type-travel",
      accountOid: "acc-eur",
      rowId: 1,
      id: "TRAVEL",
      description: "Travel",
      minAmount: 20,
      maxAmount: 5000,
      isRecurring: false,
      requireRejectNote: false,
      allowBudget: false,
    });
    const sub = types.find((t) => t.id === "SUBSCRIPTION")!;
    assert.equal(sub.isRecurring, true);
    assert.equal(sub.allowBudget, true);
    assert.equal(types.find((t) => t.id === "EQUIPMENT")!.requireRejectNote, true);

    const gbp = await get(api, h, "pwatypes?accountoid=acc-gbp");
    assertOk(gbp);
    assert.deepEqual((gbp.json.types as Record<string, unknown>[]).map((t) => t.oid), [
      "type-uk-travel",
    ]);
    const eur = await get(api, h, "pwatypes?accountoid=acc-eur");
    assert.equal((eur.json.types as unknown[]).length, 5);
    const none = await get(api, h, "pwatypes?accountoid=acc-unknown");
    assertOk(none);
    assert.deepEqual(none.json.types, []);
  }),
);

Deno.test(
  "[requests] pwaccodes lists every cost center, and only cc-sales and cc-marketing for type-event",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const all = await get(api, h, "pwaccodes");
    assertOk(all);
    assert.deepEqual(specFields(all.json.costcenters), [
      { oid: "cc-admin", value: "CC-400", label: "Administration" },
      { oid: "cc-it", value: "CC-300", label: "IT" },
      { oid: "cc-marketing", value: "CC-200", label: "Marketing" },
      { oid: "cc-sales", value: "CC-100", label: "Sales" },
    ]);
    const event = await get(api, h, "pwaccodes?oid=type-event");
    assertOk(event);
    assert.deepEqual(specFields(event.json.costcenters), [
      { oid: "cc-marketing", value: "CC-200", label: "Marketing" },
      { oid: "cc-sales", value: "CC-100", label: "Sales" },
    ]);
    // A type without a restriction allows them all.
    const travel = await get(api, h, "pwaccodes?oid=type-travel");
    assert.equal((travel.json.costcenters as unknown[]).length, 4);
    assertError(await get(api, h, "pwaccodes?oid=type-nope"), 404, "not_found");
  }),
);

Deno.test(
  "[requests] pwaledgers gives the GL codes of the chosen cost center, sorted by label",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const sales = await get(api, h, "pwaledgers?oid=type-travel&ccoid=cc-sales");
    assertOk(sales);
    assert.deepEqual(specFields(sales.json.ledgers), [
      { oid: "gl-entertainment", value: "6257", label: "Receptions and entertainment" },
      { oid: "gl-software", value: "6511", label: "Software licences and subscriptions" },
      { oid: "gl-travel", value: "6251", label: "Travel and accommodation" },
    ]);
    const admin = await get(api, h, "pwaledgers?ccoid=cc-admin");
    assert.deepEqual((admin.json.ledgers as { oid: string }[]).map((l) => l.oid), [
      "gl-hardware",
      "gl-office",
      "gl-travel",
    ]);
    assertError(await get(api, h, "pwaledgers?ccoid=cc-nope"), 404, "not_found");
    assertError(await get(api, h, "pwaledgers?oid=type-travel"), 400, "invalid_query");
  }),
);

Deno.test(
  "[requests] pwaprojectcodes gives the project codes of the chosen cost center, sorted by label",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const sales = await get(api, h, "pwaprojectcodes?oid=type-travel&ccoid=cc-sales");
    assertOk(sales);
    assert.deepEqual(specFields(sales.json.projectcodes), [
      { oid: "prj-expansion", value: "P-EXP", label: "Benelux expansion" },
      { oid: "prj-crm", value: "P-CRM", label: "CRM rollout" },
    ]);
    const admin = await get(api, h, "pwaprojectcodes?ccoid=cc-admin");
    assert.deepEqual(specFields(admin.json.projectcodes), [
      { oid: "prj-general", value: "P-GEN", label: "General running costs" },
    ]);
    assertError(await get(api, h, "pwaprojectcodes?ccoid=cc-nope"), 404, "not_found");
    assertError(await get(api, h, "pwaprojectcodes"), 400, "invalid_query");
  }),
);

Deno.test(
  "[requests] pwacurrencylist lists the nine currencies of spec §9 with their symbols",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const r = await get(api, h, "pwacurrencylist");
    assertOk(r);
    const list = r.json.currencylist as { value: string; label: string; symbol: string }[];
    // The order is not specified: compared as a set.
    assert.deepEqual(list.map((c) => c.value).sort(), [
      "AED",
      "EUR",
      "GBP",
      "JPY",
      "PLN",
      "QAR",
      "RON",
      "RSD",
      "USD",
    ]);
    const of = (v: string) => list.find((c) => c.value === v);
    assert.deepEqual(of("EUR"), { value: "EUR", label: "Euro", symbol: "€" });
    assert.deepEqual(of("GBP"), { value: "GBP", label: "Pound sterling", symbol: "£" });
    assert.deepEqual(of("RON"), { value: "RON", label: "Romanian leu", symbol: "lei" });
  }),
);

Deno.test(
  "[requests] pwacountrylist lists countries sorted by name, value = country id, none selected",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const r = await get(api, h, "pwacountrylist");
    assertOk(r);
    const list = r.json.countrylist as Record<string, unknown>[];
    assert.deepEqual(list.map((c) => c.value), ["BE", "FR", "DE", "NL", "ES", "GB", "US"]);
    assert.deepEqual(list[2], {
      name: "Germany",
      label: "Deutschland",
      value: "DE",
      selected: false,
    });
    assert.ok(list.every((c) => c.selected === false));
  }),
);

Deno.test(
  "[requests] pwauserfullname gives 'fname lname' of a user oid, 404 for an unknown one",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    const mgr = await api.deps.store.users.byEmail(DEMO.manager);
    const r = await get(api, emp.h, `pwauserfullname?author=${emp.oid}`);
    assertOk(r);
    assert.deepEqual(r.json, { fullname: "Emma Laurent" });
    const m = await get(api, emp.h, `pwauserfullname?author=${mgr!.oid}`);
    assert.deepEqual(m.json, { fullname: "Maria Jansen" });
    assertError(await get(api, emp.h, `pwauserfullname?author=${crypto.randomUUID()}`), 404);
    assertError(await get(api, emp.h, "pwauserfullname"), 400, "invalid_query");
  }),
);

// ---------------------------------------------------------------------------------------------
// pwalists

Deno.test(
  "[requests] pwalists returns the caller's rows newest first and the organisation's settings",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    const mgr = await login(api, DEMO.manager);
    const t0 = Date.UTC(2028, 0, 10, 9, 0, 0);
    api.deps.now = () => t0 + 3000;
    const r1 = await create(api, emp.h, { amount: 30 });
    api.deps.now = () => t0 + 1000;
    const r2 = await create(api, emp.h, {
      typeOid: "type-event",
      budget: { period: "weekly", startDate: "2028-02-01", amount: 100, occurrences: 2 },
    });
    api.deps.now = () => t0 + 2000;
    const r3 = await create(api, emp.h, { amount: 45.5 });
    await create(api, mgr.h); // not the employee's
    api.deps.now = () => t0 + 4000;
    await submit(api, emp.h, r3.oid);

    const res = await get(api, emp.h, "pwalists");
    assertOk(res);
    const j = res.json;
    assert.equal(j.vatMode, "advanced");
    assert.equal(j.accountingCodeEnabled, "true");
    assert.equal(j.typeEnabled, "required");
    assert.equal(j.limitReceiptAttachementFormat, true);
    assert.equal(j.username, DEMO.employee);
    assert.equal(j.canRequest, true);
    const rows = (j.expenses as { expenseslist: Record<string, unknown>[] }).expenseslist;
    assert.deepEqual(rows.map((r) => r.id), [r1.id, r3.id, r2.id]);
    assert.deepEqual(rows.map((r) => r.issueDate), [
      new Date(t0 + 3000).toISOString(),
      new Date(t0 + 2000).toISOString(),
      new Date(t0 + 1000).toISOString(),
    ]);
    assert.deepEqual(rows[0], {
      oid: r1.oid,
      id: "R000001",
      archive: false,
      purpose: "Train to Lyon",
      statusCode: "new",
      issueDate: new Date(t0 + 3000).toISOString(),
      costCenter: "Sales",
      costCenterOid: "cc-sales",
      GLCode: "Travel and accommodation",
      GLOid: "gl-travel",
      projectCode: "CRM rollout",
      projectOid: "prj-crm",
      typeOid: "type-travel",
      amount: 30,
      pricingCurrency: "EUR",
      canClose: false,
      canCancel: true,
      hasCard: false,
      openCard: false,
      cardStatusCode: null,
      needsAttention: true,
      budgetCount: 0,
    });
    assert.equal(rows[1].statusCode, "requested");
    assert.equal(rows[1].needsAttention, false);
    assert.equal(rows[1].amount, 45.5);
    assert.equal(rows[2].budgetCount, 2);
    assert.equal(rows[2].amount, 200);

    const m = await get(api, mgr.h, "pwalists");
    const mrows = (m.json.expenses as { expenseslist: { id: string }[] }).expenseslist;
    assert.deepEqual(mrows.map((r) => r.id), ["R000004"]);
    // The clock jumps to 2028: tokens must not expire idle meanwhile (TOKEN_IDLE_DAYS).
  }, { TOKEN_IDLE_DAYS: "3650" }),
);

// ---------------------------------------------------------------------------------------------
// Other users' records

Deno.test(
  "[requests] another user's request and comments are 404 on every call, exactly like a random oid",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    const mgr = await login(api, DEMO.manager);
    const open = await create(api, emp.h);
    const ok = await accepted(api, emp.h);
    const cm = await addComment(api, emp.h, open.oid, "mine");
    const cm2 = await addComment(api, emp.h, ok.oid, "mine too");
    const snapshot = async () => ({
      open: await entity(api, emp.h, open.oid),
      ok: await entity(api, emp.h, ok.oid),
      c1: await comments(api, emp.h, open.oid),
      c2: await comments(api, emp.h, ok.oid),
      aps: (await api.deps.store.approvals.byRequest(open.oid)).length,
    });
    const before = await snapshot();

    const calls = (oid: string, commentOid: string): [string, () => Promise<Res>][] => {
      const body = edit(open, { oid, purpose: "hijacked" });
      return [
        ["entity", () => get(api, mgr.h, `pwaexpenseentity?record=${oid}`)],
        ["approvals", () => get(api, mgr.h, `pwaapprovals?oid=${oid}`)],
        ["comments", () => get(api, mgr.h, `pwaexpensecomments?oid=${oid}`)],
        ["submit", () => post(api, mgr.h, "pwasubmit", { record: oid })],
        ["check", () => post(api, mgr.h, "pwacheckneedrecreate", { expenseRequest: body })],
        ["reissue", () => post(api, mgr.h, "pwareissueapproval", { expenseRequest: body })],
        ["modify", () => post(api, mgr.h, "pwamodify", { record: body })],
        ["cancel", () => post(api, mgr.h, "pwacancel", { oid })],
        ["close", () => post(api, mgr.h, "pwaclose", { oid })],
        ["comment", () => post(api, mgr.h, "pwaaddcomment", { oid, comment: "hi" })],
        ["delete comment", () => get(api, mgr.h, `pwadeletecomment?record=${commentOid}`)],
      ];
    };
    const random = calls(crypto.randomUUID(), crypto.randomUUID());
    for (const [target, commentOid] of [[open.oid, cm.oid], [ok.oid, cm2.oid]]) {
      const foreign = calls(target, commentOid);
      for (let i = 0; i < foreign.length; i++) {
        const [name, call] = foreign[i];
        const f = await call();
        const r = await random[i][1]();
        assertError(f, 404, "not_found");
        assertError(r, 404, "not_found");
        assert.deepEqual(f.json, r.json, `${name}: foreign and random answers differ`);
        assert.equal(f.text, r.text, name);
      }
    }
    assert.deepEqual(await snapshot(), before);
    // The manager's own list does not show them either.
    const m = await get(api, mgr.h, "pwalists");
    assert.deepEqual((m.json.expenses as { expenseslist: unknown[] }).expenseslist, []);
  }),
);
