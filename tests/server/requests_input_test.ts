/**
 * Expense request calls refused or guarded (spec §7, §8): malformed input, authentication and
 * caching. In-process, no sockets.
 */
import assert from "node:assert/strict";
import { DEMO, withApp } from "../helpers.ts";
import { assertError, assertOk, type Headers, login, type Res } from "./api.ts";
import {
  comments,
  create,
  createRaw,
  E,
  edit,
  entity,
  get,
  post,
  TRAVEL,
} from "./requests_fixture.ts";

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
