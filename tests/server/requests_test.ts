/**
 * Expense request calls (spec §3 expense request, §4 request statuses and submit flow, §5
 * create/edit rules and budget, §7 reads and writes): lookups, create with every §5 rule,
 * submit and its approval, edit with reissue, cancel, close, comments, pwalists rows, other
 * users' records, malformed input, authentication and concurrency. In-process, no sockets.
 */
import assert from "node:assert/strict";
import type { ApprovalTeam, Comment, ExpenseRequest } from "../../client/api/contract/requests.ts";
import { en } from "../../client/i18n/locales/en.ts";
import { fr } from "../../client/i18n/locales/fr.ts";
import { recordDecision } from "../../server/domain/requests.ts";
import { decide } from "../../server/domain/approvals.ts";
import { transactionRecord } from "./transaction_records.ts";
import { DEMO, type TestApi, withApp } from "../helpers.ts";
import { assertError, assertOk, type Headers, login, loginFrench, type Res } from "./api.ts";

const E = "/scmapi/expense";
const DIRECTOR = "director@demo.example";

const MSG = {
  typeRequired: "Please choose a type",
  typeUnknown: "This type does not exist",
  amountRequired: "Please enter an amount",
  amountInvalid: "Please enter a positive amount with at most two decimals",
  travelRange: "Amount must be between 20 and 5000",
  purposeRequired: "Please enter a purpose",
  purposeTooLong: "The purpose can have at most 500 characters",
  budgetRequired: "This type is recurring: please create a budget",
  budgetNotAllowed: "This type does not allow a budget",
  codesRequired: "Project, GL code and cost center must be set",
  codesMismatch: "This GL code or project code does not belong to the cost center",
  costCenterNotAllowed: "This cost center cannot be used with this type",
  currencyUnknown: "This currency is not available",
  accountUnknown: "This account does not exist",
  typeAccountMismatch: "This type does not belong to the chosen account",
  vendorUrlInvalid: "Please enter a valid web address for the vendor",
  missingReceipts: "You have transactions that still have no receipts, please provide those first",
  cannotRequest: "You are not allowed to create requests",
  notAllowed: "This action is not allowed for this request",
  reissueRequired: "This change needs a new approval",
  commentNotAllowed: "Comments cannot be added to this request",
  commentNotDeletable: "This comment cannot be deleted",
  badStart: "Please choose a valid start date",
  badAmount: "Please enter a positive amount per occurrence",
};

const get = (api: TestApi, h: Headers, path: string) =>
  api.call("GET", `${E}/${path}`, { headers: h });
const post = (api: TestApi, h: Headers, path: string, body: unknown) =>
  api.call("POST", `${E}/${path}`, { body, headers: h });

/**
 * The spec's fields of lookup items, without the organisation's words of every language
 * (`labels`, `descriptions`: tests/server/org_words_test.ts).
 */
const specFields = (items: unknown) =>
  (items as Record<string, unknown>[]).map(({ labels: _l, descriptions: _d, ...spec }) => spec);

/** A valid TRAVEL request body (Finance only: amount ≤ 250). */
const TRAVEL = {
  typeOid: "type-travel",
  amount: 120,
  purpose: "Train to Lyon",
  costCenterOid: "cc-sales",
  GLOid: "gl-travel",
  projectOid: "prj-crm",
};

const createRaw = (api: TestApi, h: Headers, body: Record<string, unknown>) =>
  post(api, h, "pwaexpenserequestcreate", { expenseRequest: body });

async function create(
  api: TestApi,
  h: Headers,
  body: Record<string, unknown> = {},
): Promise<ExpenseRequest> {
  const r = await createRaw(api, h, { ...TRAVEL, ...body });
  assertOk(r);
  return r.json.expenseRequest as ExpenseRequest;
}

async function entity(api: TestApi, h: Headers, oid: string): Promise<ExpenseRequest> {
  const r = await get(api, h, `pwaexpenseentity?record=${oid}`);
  assertOk(r);
  return r.json.expenseRequest as ExpenseRequest;
}

async function submit(api: TestApi, h: Headers, oid: string): Promise<ExpenseRequest> {
  const r = await post(api, h, "pwasubmit", { record: oid });
  assertOk(r);
  return r.json.expenseRequest as ExpenseRequest;
}

/** Submits and accepts through the workflow's entry point; the accepted request. */
async function accepted(api: TestApi, h: Headers, body: Record<string, unknown> = {}) {
  const r = await create(api, h, body);
  await submit(api, h, r.oid);
  const [a] = await api.deps.store.approvals.byRequest(r.oid);
  const rec = await recordDecision(api.deps, a.oid, "accepted");
  assert.equal(rec?.status, "accepted");
  return await entity(api, h, r.oid);
}

async function comments(api: TestApi, h: Headers, oid: string): Promise<Comment[]> {
  const r = await get(api, h, `pwaexpensecomments?oid=${oid}`);
  assertOk(r);
  return r.json.comments as Comment[];
}

async function addComment(api: TestApi, h: Headers, oid: string, text: string) {
  const r = await post(api, h, "pwaaddcomment", { oid, comment: text });
  assertOk(r);
  return r.json.comment as Comment;
}

/** An edit body: the request's codes, overridden by `over`. */
function edit(r: ExpenseRequest, over: Record<string, unknown> = {}) {
  return {
    oid: r.oid,
    purpose: r.purpose,
    costCenterOid: r.costCenterOid,
    GLOid: r.GLOid,
    projectOid: r.projectOid,
    ...over,
  };
}

const byName = (a: { fname: string; lname: string }, b: { fname: string; lname: string }) =>
  `${a.fname} ${a.lname}`.localeCompare(`${b.fname} ${b.lname}`);
const sortUsers = (teams: ApprovalTeam[]) =>
  teams.map((t) => ({ ...t, teamUsers: [...t.teamUsers].sort(byName) }));

/** Before submission: who each level will ask (no level state, no decisions yet). */
const FINANCE: ApprovalTeam = {
  teamOid: "team-finance",
  teamName: "Finance",
  level: 1,
  teamUsers: [{ fname: "Adam", lname: "Fischer" }],
  levelStatus: null,
  decisions: [],
};
const MANAGEMENT: ApprovalTeam = {
  teamOid: "team-management",
  teamName: "Management",
  level: 2,
  teamUsers: [{ fname: "David", lname: "Moreau" }, { fname: "Maria", lname: "Jansen" }],
  levelStatus: null,
  decisions: [],
};
/** A team on a submitted request, its level in state `levelStatus`. */
const at = (t: ApprovalTeam, levelStatus: ApprovalTeam["levelStatus"]) => ({ ...t, levelStatus });

async function putTransaction(
  api: TestApi,
  userOid: string,
  transactionStatus: string,
  nbReceipts: number,
) {
  // Captured eight days ago: past the demo organisation's 7-day receipt delay.
  const t = transactionRecord(userOid, { transactionStatus, nbReceipts });
  const res = await api.deps.store.transactions.put(api.kv.atomic(), t).commit();
  assert.ok(res.ok);
}

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
      "Amount must be between 5 and 1000",
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
  "[requests] create: an amount outside TRAVEL's bounds is exactly 'Amount must be between 20 and 5000'",
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
      "Amount must be between 5 and 500",
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

// ---------------------------------------------------------------------------------------------
// Submit and approvals

Deno.test(
  "[requests] pwasubmit moves new → requested and opens one Finance level for TRAVEL ≤ 250",
  withApp(async (api) => {
    const { h, oid: me } = await login(api, DEMO.employee);
    const x = await create(api, h, { amount: 250 });
    const s = await submit(api, h, x.oid);
    assert.equal(s.statusCode, "requested");
    assert.equal(s.canSubmit, false);
    assert.equal(s.canEdit, true);
    assert.equal(s.canCancel, true);
    assert.equal(s.canClose, false);
    assert.equal(s.needsAttention, false);
    assert.deepEqual(sortUsers(s.approvals), [at(FINANCE, "open")]);
    assert.equal((await entity(api, h, x.oid)).statusCode, "requested");

    const aps = await api.deps.store.approvals.byRequest(x.oid);
    assert.equal(aps.length, 1);
    const a = aps[0];
    assert.equal(a.id, "AP000001.1");
    assert.equal(a.statusCode, "new");
    assert.equal(a.requestOid, x.oid);
    assert.equal(a.authorOid, me);
    assert.equal(a.amount, 250);
    assert.equal(a.currency, "EUR");
    assert.equal(a.typeOid, "type-travel");
    assert.equal(a.costCenterOid, "cc-sales");
    assert.deepEqual(a.votes, []);
    assert.equal(a.levels.length, 1);
    const { openedAt, ...l1 } = a.levels[0];
    assert.equal(typeof openedAt, "number");
    assert.deepEqual(l1, {
      level: 1,
      actionDescription: "Finance approval",
      teamOids: ["team-finance"],
      quota: 1,
      statusCode: "open",
    });
    const ap = await get(api, h, `pwaapprovals?oid=${x.oid}`);
    assertOk(ap);
    assert.deepEqual(sortUsers(ap.json.approvals as ApprovalTeam[]), [at(FINANCE, "open")]);
  }),
);

Deno.test(
  "[requests] TRAVEL above 250 is approved by Finance then Management, shown by pwaapprovals with members",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const x = await create(api, h, { amount: 250.01 });
    await submit(api, h, x.oid);
    const [a] = await api.deps.store.approvals.byRequest(x.oid);
    assert.deepEqual(
      a.levels.map((l) => [l.level, l.actionDescription, l.teamOids, l.statusCode, l.openedAt]),
      [
        [1, "Finance approval", ["team-finance"], "open", a.levels[0].openedAt],
        [2, "Management approval", ["team-management"], "pending", null],
      ],
    );
    assert.equal(typeof a.levels[0].openedAt, "number");
    const ap = await get(api, h, `pwaapprovals?oid=${x.oid}&archive=0`);
    assertOk(ap);
    const submitted = [at(FINANCE, "open"), at(MANAGEMENT, "pending")];
    assert.deepEqual(sortUsers(ap.json.approvals as ApprovalTeam[]), submitted);
    assert.deepEqual(sortUsers((await entity(api, h, x.oid)).approvals), submitted);

    // The timeline: Finance's decision (who, what, when), then Management open.
    const fin = (await api.deps.store.users.byEmail(DEMO.approver))!;
    const before = api.deps.now();
    await decide(api.deps, fin, a.oid, "approved");
    const done = api.deps.now();
    const after = sortUsers((await entity(api, h, x.oid)).approvals);
    assert.deepEqual(after.map((t) => [t.teamName, t.levelStatus]), [
      ["Finance", "approved"],
      ["Management", "open"],
    ]);
    const [d] = after[0].decisions!;
    assert.deepEqual({ ...d, at: undefined }, {
      name: "Adam Fischer",
      statusCode: "approved",
      at: undefined,
      delegated: false,
    });
    assert.ok(Date.parse(d.at) >= before && Date.parse(d.at) <= done, d.at);
    assert.deepEqual(after[1].decisions, []);
  }),
);

Deno.test(
  "[requests] pwaapprovals of an unsubmitted request previews who will approve it",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const small = await create(api, h, { amount: 40 });
    const big = await create(api, h, { amount: 4000 });
    const s = await get(api, h, `pwaapprovals?oid=${small.oid}`);
    const b = await get(api, h, `pwaapprovals?oid=${big.oid}`);
    assert.deepEqual(sortUsers(s.json.approvals as ApprovalTeam[]), [FINANCE]);
    assert.deepEqual(sortUsers(b.json.approvals as ApprovalTeam[]), [FINANCE, MANAGEMENT]);
    assert.deepEqual(await api.deps.store.approvals.byRequest(big.oid), []);
  }),
);

Deno.test(
  "[requests] create and submit publish request.created, request.submitted and approval.opened",
  withApp(async (api) => {
    const { h, oid: me } = await login(api, DEMO.employee);
    const x = await create(api, h, { amount: 300 });
    await submit(api, h, x.oid);
    const [a] = await api.deps.store.approvals.byRequest(x.oid);
    const evs = api.deps.events.recent.filter((e) => "requestOid" in e && e.requestOid === x.oid);
    assert.deepEqual(evs, [
      { type: "request.created", userOid: me, requestOid: x.oid },
      { type: "request.submitted", userOid: me, requestOid: x.oid, approvalOid: a.oid },
      {
        type: "approval.opened",
        approvalOid: a.oid,
        requestOid: x.oid,
        level: 1,
        teamOids: ["team-finance"],
      },
    ]);
  }),
);

Deno.test(
  "[requests] submitting twice is 403, also when both submits race: one approval only",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const x = await create(api, h);
    await submit(api, h, x.oid);
    assertError(
      await post(api, h, "pwasubmit", { record: x.oid }),
      403,
      "not_allowed",
      MSG.notAllowed,
    );
    assert.equal((await api.deps.store.approvals.byRequest(x.oid)).length, 1);

    const y = await create(api, h);
    const rs = await Promise.all([1, 2, 3].map(() => post(api, h, "pwasubmit", { record: y.oid })));
    assert.deepEqual(rs.map((r) => r.status).sort(), [200, 403, 403]);
    rs.filter((r) => r.status !== 200).forEach((r) => assertError(r, 403, "not_allowed"));
    const aps = await api.deps.store.approvals.byRequest(y.oid);
    assert.equal(aps.length, 1);
    assert.equal((await entity(api, h, y.oid)).statusCode, "requested");
  }),
);

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

// ---------------------------------------------------------------------------------------------
// Malformed input, authentication, caching

Deno.test(
  "[requests] malformed bodies are 400 JSON {error, message} and store nothing",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const x = await create(api, h);
    const json = { ...h, "content-type": "application/json" };
    const paths = [
      "pwaexpenserequestcreate",
      "pwasubmit",
      "pwacheckneedrecreate",
      "pwareissueapproval",
      "pwamodify",
      "pwacancel",
      "pwaclose",
      "pwaaddcomment",
    ];
    for (const p of paths) {
      assertError(
        await api.call("POST", `${E}/${p}`, { raw: "{", headers: json }),
        400,
        "malformed_json",
      );
      assertError(
        await api.call("POST", `${E}/${p}`, { raw: '{"oid": ', headers: json }),
        400,
        "malformed_json",
      );
      for (const raw of ["", "{}", "[]", "null", "42", '"text"']) {
        assertError(
          await api.call("POST", `${E}/${p}`, { raw, headers: json }),
          400,
          "invalid_body",
        );
      }
    }
    const badCreates: [Record<string, unknown>, RegExp][] = [
      [{ ...TRAVEL, amount: "120" }, /amount/],
      [{ ...TRAVEL, purpose: 123 }, /purpose/],
      [{ ...TRAVEL, typeOid: 5 }, /typeOid/],
      [{ ...TRAVEL, costCenterOid: ["cc-sales"] }, /costCenterOid/],
      [{ ...TRAVEL, pricingCurrency: "eur" }, /pricingCurrency/],
      [{ ...TRAVEL, purpose: "p".repeat(1001) }, /purpose/],
      [{ ...TRAVEL, vendor: "v".repeat(121) }, /vendor/],
      [{ ...TRAVEL, url: "u".repeat(501) }, /url/],
    ];
    const plan = { period: "monthly", startDate: "2028-01-31", amount: 150, occurrences: 3 };
    const event = { ...TRAVEL, typeOid: "type-event" };
    for (
      const [over, re] of [
        [{ occurrences: 0 }, /occurrences/],
        [{ occurrences: 1000 }, /occurrences/],
        [{ occurrences: 121 }, /occurrences/],
        [{ occurrences: 2.5 }, /occurrences/],
        [{ occurrences: "3" }, /occurrences/],
        [{ startDate: "x" }, /startDate must be YYYY-MM-DD/],
        [{ startDate: "31/01/2028" }, /startDate/],
        [{ period: "daily" }, /period/],
        [{ amount: "150" }, /amount/],
      ] as [Record<string, unknown>, RegExp][]
    ) {
      badCreates.push([{ ...event, budget: { ...plan, ...over } }, re]);
    }
    for (const [body, re] of badCreates) {
      assertError(await createRaw(api, h, body), 400, "invalid_body", re);
    }
    assertError(
      await post(api, h, "pwaexpenserequestcreate", TRAVEL),
      400,
      "invalid_body",
      /expenseRequest/,
    );
    assertError(await post(api, h, "pwaexpenserequestcreate", { expenseRequest: null }), 400);

    const badOthers: [string, unknown][] = [
      ["pwasubmit", { record: 5 }],
      ["pwasubmit", { record: "" }],
      ["pwasubmit", { oid: x.oid }],
      ["pwasubmit", { record: "x".repeat(65) }],
      ["pwamodify", { expenseRequest: edit(x) }], // wrong wrapper: record is missing
      ["pwamodify", { record: { ...edit(x), purpose: 5 } }],
      ["pwamodify", { record: { ...edit(x), oid: undefined } }],
      ["pwacheckneedrecreate", { record: edit(x) }],
      ["pwacheckneedrecreate", { expenseRequest: { ...edit(x), costCenterOid: 5 } }],
      ["pwareissueapproval", { expenseRequest: "x" }],
      ["pwacancel", { oid: null }],
      ["pwacancel", { oid: x.oid, archive: "no" }],
      ["pwaclose", { record: x.oid }],
      ["pwaaddcomment", { oid: x.oid }],
      ["pwaaddcomment", { oid: x.oid, comment: "   " }],
      ["pwaaddcomment", { oid: x.oid, comment: "" }],
      ["pwaaddcomment", { oid: x.oid, comment: 12 }],
      ["pwaaddcomment", { oid: x.oid, comment: "c".repeat(1001) }],
    ];
    for (const [p, body] of badOthers) {
      assertError(await post(api, h, p, body), 400, "invalid_body");
    }
    // Nothing was created, submitted, changed or commented.
    assert.deepEqual(await entity(api, h, x.oid), x);
    assert.deepEqual(await comments(api, h, x.oid), []);
    const rows = (await get(api, h, "pwalists")).json.expenses as { expenseslist: unknown[] };
    assert.equal(rows.expenseslist.length, 1);
  }),
);

Deno.test(
  "[requests] malformed queries are 400 invalid_query",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const x = await create(api, h);
    for (
      const q of [
        "pwaexpenseentity",
        "pwaexpenseentity?record=",
        `pwaexpenseentity?record=${x.oid}&archive=yes`,
        `pwaexpenseentity?record=${"x".repeat(65)}`,
        "pwaapprovals",
        `pwaapprovals?record=${x.oid}`,
        "pwaexpensecomments",
        `pwaexpensecomments?oid=${x.oid}&archive=2`,
        "pwadeletecomment",
        "pwadeletecomment?record=",
        "pwauserfullname",
        "pwaledgers",
        "pwaprojectcodes?oid=type-travel",
      ]
    ) {
      assertError(await get(api, h, q), 400, "invalid_query");
    }
    // archive=1 / true are accepted forms.
    assertOk(await get(api, h, `pwaexpenseentity?record=${x.oid}&archive=false`));
  }),
);

const REQUEST_CALLS: [string, string, unknown?][] = [
  ["GET", "pwaexpenseentity?record=x"],
  ["GET", "pwaaccounts"],
  ["GET", "pwatypes?accountoid=acc-eur"],
  ["GET", "pwaccodes?oid=type-event"],
  ["GET", "pwaledgers?ccoid=cc-sales"],
  ["GET", "pwaprojectcodes?ccoid=cc-sales"],
  ["GET", "pwacurrencylist"],
  ["GET", "pwacountrylist"],
  ["GET", "pwacheckcancreaterequest"],
  ["POST", "pwaexpenserequestcreate", { expenseRequest: TRAVEL }],
  ["POST", "pwasubmit", { record: "x" }],
  ["POST", "pwacheckneedrecreate", { expenseRequest: { oid: "x" } }],
  ["POST", "pwareissueapproval", { expenseRequest: { oid: "x" } }],
  ["POST", "pwamodify", { record: { oid: "x" } }],
  ["POST", "pwacancel", { oid: "x" }],
  ["POST", "pwaclose", { oid: "x" }],
  ["GET", "pwaexpensecomments?oid=x"],
  ["POST", "pwaaddcomment", { oid: "x", comment: "hi" }],
  ["GET", "pwadeletecomment?record=x"],
  ["GET", "pwauserfullname?author=x"],
  ["GET", "pwaapprovals?oid=x"],
  ["GET", "pwalists"],
];

Deno.test(
  "[requests] every request call is 401 without a bearer token or with a garbage one, and stores nothing",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const token = h.authorization.slice("Bearer ".length);
    const bad: Headers[] = [
      {},
      { authorization: "" },
      { authorization: "Bearer" },
      { authorization: "Bearer garbage" },
      { authorization: `Bearer ${"A".repeat(43)}` },
      { authorization: `Bearer ${token}x` },
      { authorization: token },
      { authorization: `Basic ${btoa(`u:${token}`)}` },
    ];
    for (const [method, path, body] of REQUEST_CALLS) {
      for (const headers of bad) {
        const r = await api.call(method, `${E}/${path}`, { body, headers });
        assertError(r, 401, "unauthorized");
        assert.equal(r.json.expenseRequest, undefined);
      }
    }
    const rows = (await get(api, h, "pwalists")).json.expenses as { expenseslist: unknown[] };
    assert.deepEqual(rows.expenseslist, []);
  }),
);

Deno.test(
  "[requests] answers carry Cache-Control: no-store, successes and errors alike",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const x = await create(api, h);
    const answers: Res[] = [
      await get(api, h, `pwaexpenseentity?record=${x.oid}`),
      await get(api, h, "pwaaccounts"),
      await get(api, h, "pwalists"),
      await createRaw(api, h, TRAVEL),
      await createRaw(api, h, { ...TRAVEL, amount: 1 }), // 422
      await get(api, h, `pwaexpenseentity?record=${crypto.randomUUID()}`), // 404
      await post(api, h, "pwaclose", { oid: x.oid }), // 403
      await get(api, h, "pwaexpenseentity"), // 400
      await get(api, {}, "pwaaccounts"), // 401
    ];
    assert.deepEqual(answers.map((r) => r.status), [200, 200, 200, 200, 422, 404, 403, 400, 401]);
    for (const r of answers) {
      assert.equal(r.res.headers.get("cache-control"), "no-store", r.text);
      assert.ok(r.res.headers.get("content-type")?.startsWith("application/json"));
    }
  }),
);
