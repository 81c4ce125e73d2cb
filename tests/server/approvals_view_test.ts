/**
 * What the approval detail shows so the approver does not decide blind (spec §2 approval
 * detail, §3 budget, §4, §6): the request's budget lines, the amount in the approval account's
 * currency when the request is in another, and why a person who sees an approval cannot decide
 * it. In-process, no sockets.
 */
import assert from "node:assert/strict";
import { withApp } from "../helpers.ts";
import { assertOk } from "./api.ts";
import {
  approve,
  decided,
  details,
  DIRECTOR,
  everyone,
  postE,
  reject,
  submitted,
} from "./approvals_fixture.ts";

/** Six monthly lines of 250 from 15 November: an event budget of 1,500 until April. */
const EVENT_BUDGET = {
  typeOid: "type-event",
  amount: null,
  purpose: "Trade show stand",
  costCenterOid: "cc-marketing",
  GLOid: undefined,
  projectOid: undefined,
  budget: { period: "monthly", startDate: "2026-11-15", amount: 250, occurrences: 6 },
};

Deno.test(
  "[approvals] the detail carries the request's budget lines and, in another currency, the account's amount",
  withApp(async (api) => {
    const { emp, fin } = await everyone(api);
    const { oid } = await submitted(api, emp.h, EVENT_BUDGET);
    const d = await details(api, fin.h, oid);
    assert.equal(d.amount, 1500);
    assert.deepEqual(
      d.budget?.map((l) => [l.budgetdate, l.budgetamount, l.budgetfunded]),
      [
        ["2026-11-15", 250, false],
        ["2026-12-15", 250, false],
        ["2027-01-15", 250, false],
        ["2027-02-15", 250, false],
        ["2027-03-15", 250, false],
        ["2027-04-15", 250, false],
      ],
    );
    // Same currency as its account (EUR): nothing to convert.
    assert.equal(d.accountAmount ?? null, null);

    // A request in US dollars on the euro account: the issuer's rate (1 EUR = 1.0840 USD).
    const usd = await submitted(api, emp.h, {
      ...EVENT_BUDGET,
      purpose: "Design tool seats",
      pricingCurrency: "USD",
    });
    const u = await details(api, fin.h, usd.oid);
    assert.equal(u.pricingCurrency, "USD");
    assert.deepEqual(u.accountAmount, {
      amount: 1383.76,
      currency: "EUR",
      rate: "0.922509",
      asOf: "2026-01-02",
    });
    // A one-off amount has no lines.
    const one = await submitted(api, emp.h, { purpose: "Train to Lyon" });
    assert.deepEqual((await details(api, fin.h, one.oid)).budget, []);
    // The decision's answer carries them too: the detail stays whole after a decision.
    const after = await decided(approve(api, fin.h, usd.oid));
    assert.equal(after.budget?.length, 6);
    assert.equal(after.accountAmount?.currency, "EUR");
  }),
);

Deno.test(
  "[approvals] a read-only approval says why: another level first, voted, passed by a delegate, decided, own",
  withApp(async (api) => {
    const { emp, fin, mgr, del } = await everyone(api);
    const { oid } = await submitted(api, emp.h);

    // Level 1 (Finance) is open: Finance decides, Management waits for its turn.
    assert.equal((await details(api, fin.h, oid)).readOnly ?? null, null);
    assert.deepEqual((await details(api, mgr.h, oid)).readOnly, {
      code: "waiting",
      level: 1,
      levelName: "Finance approval",
      mine: 2,
    });

    // A Finance delegate approves level 1 for Finance: Adam's level was passed by a delegate.
    const a1 = await decided(approve(api, del.h, oid));
    assert.equal(a1.readOnly?.code, "voted");
    assert.equal(a1.readOnly?.mine, 1);
    assert.equal(a1.readOnly?.level, 2);
    const passed = (await details(api, fin.h, oid)).readOnly;
    assert.equal(passed?.code, "passed");
    assert.deepEqual(
      [passed?.mine, passed?.level, passed?.levelName, passed?.by, passed?.delegated],
      [1, 2, "Management approval", "Daniel Peeters", true],
    );
    assert.ok(passed?.at && !Number.isNaN(Date.parse(passed.at)));

    // Management rejects: closed, by whom, for everyone who sees it.
    await decided(reject(api, mgr.h, oid, { note: "Not this quarter" }));
    for (const h of [fin.h, del.h, mgr.h]) {
      const r = (await details(api, h, oid)).readOnly;
      assert.deepEqual([r?.code, r?.by, r?.delegated], ["rejected", "Maria Jansen", false]);
    }

    // The approval of one's own request (manager@ requests, Management is level 2).
    const own = await submitted(api, mgr.h, { amount: 400, purpose: "Client visit in Ghent" });
    assert.deepEqual((await details(api, mgr.h, own.oid)).readOnly, { code: "own" });
    const approved = await submitted(api, emp.h, { amount: 100, purpose: "Taxi" });
    await decided(approve(api, fin.h, approved.oid));
    const done = (await details(api, fin.h, approved.oid)).readOnly;
    assert.deepEqual([done?.code, done?.by], ["approved", "Adam Fischer"]);
  }),
);

Deno.test(
  "[approvals] an approver barred after their edit, and a cancelled approval, say so",
  withApp(async (api) => {
    const { emp, fin, dir } = await everyone(api);
    // director@ also sits in Finance here, so their edit wipes a level they could decide.
    const d = (await api.deps.store.users.byEmail(DIRECTOR))!;
    await api.deps.store.users.put(api.deps.store.kv.atomic(), {
      ...d,
      teams: [...d.teams, "team-finance"],
    }).commit();
    const { request: x, oid } = await submitted(api, emp.h);
    await decided(approve(api, fin.h, oid));
    assertOk(
      await postE(api, dir.h, "pwareissueapproval", {
        expenseRequest: {
          oid: x.oid,
          purpose: "Train to Lyon (IT conference)",
          costCenterOid: "cc-it",
          GLOid: "gl-hardware",
          projectOid: "prj-cloud",
        },
      }),
    );
    assert.deepEqual((await details(api, fin.h, oid)).readOnly, { code: "cancelled" });
    const fresh = (await api.deps.store.approvals.byRequest(x.oid))
      .find((a) => a.statusCode === "new")!;
    assert.deepEqual((await details(api, dir.h, fresh.oid)).readOnly, {
      code: "barred",
      level: 1,
      levelName: "Finance approval",
    });
  }),
);
