/**
 * This file: lists and teams (the same subject goes on in approvals_policies_test.ts,
 * approvals_reject_test.ts).
 *
 * Approval policies (spec §3 approval request, poll level and vote, §4 approval actions, §7
 * Approvals): the demo organisation's users walk multi-level policies and reject (with the
 * reject-note rule), and read lists and teams. In-process, no sockets.
 */
import assert from "node:assert/strict";
import { withApp } from "../helpers.ts";
import { assertError, assertOk } from "./api.ts";
import {
  ADAM,
  approve,
  DANIEL,
  DAVID,
  decided,
  everyone,
  getA,
  iso,
  list,
  MARIA,
  people,
  reject,
  submitted,
} from "./approvals_fixture.ts";

// ---------------------------------------------------------------------------------------------
// Policies walked through

// ---------------------------------------------------------------------------------------------
// Lists and teams

Deno.test(
  "[approvals] pwalistrequests lists the caller's teams' approvals newest first, in every status",
  withApp(async (api) => {
    const { emp, fin, mgr } = await everyone(api);
    const t0 = Date.UTC(2028, 3, 1, 8, 0, 0);
    api.deps.now = () => t0;
    const a = await submitted(api, emp.h, { amount: 100, purpose: "A" });
    api.deps.now = () => t0 + 2000;
    const b = await submitted(api, emp.h, { amount: 600, purpose: "B" });
    api.deps.now = () => t0 + 1000;
    const c = await submitted(api, emp.h, { amount: 700, purpose: "C" });
    api.deps.now = () => t0 + 3000;
    await decided(reject(api, fin.h, c.oid));
    await decided(approve(api, fin.h, a.oid));

    const rows = await list(api, fin.h);
    assert.deepEqual(rows.map((r) => [r.purpose, r.statusCode, r.issueDate]), [
      ["B", "new", iso(t0 + 2000)],
      ["C", "rejected", iso(t0 + 1000)],
      ["A", "approved", iso(t0)],
    ]);
    assert.deepEqual(rows.map((r) => r.description), [
      "Travel: B [600.00 EUR]",
      "Travel: C [700.00 EUR]",
      "Travel: A [100.00 EUR]",
    ]);
    assert.deepEqual((await list(api, mgr.h)).map((r) => r.purpose), ["B", "C"]);
    assert.equal(rows[0].oid, b.oid);
    // The clock jumps to 2028: tokens must not expire idle meanwhile (TOKEN_IDLE_DAYS).
  }, { TOKEN_IDLE_DAYS: "3650" }),
);

Deno.test(
  "[approvals] pwaoverviewteams lists the visible teams with their delegating team and members",
  withApp(async (api) => {
    const { fin } = await everyone(api);
    const r = await getA(api, fin.h, "pwaoverviewteams");
    assertOk(r);
    const teams = (r.json.teamlist as {
      teamOid: string;
      teamUsers: { fname: string; lname: string }[];
    }[])
      .map((t) => ({ ...t, teamUsers: people(t.teamUsers) }))
      .sort((a, b) => a.teamOid.localeCompare(b.teamOid));
    assert.deepEqual(teams, [
      {
        teamOid: "team-finance",
        teamName: "Finance",
        isVisible: true,
        delegatingTeamName: "Finance Delegates",
        teamUsers: [ADAM],
      },
      {
        teamOid: "team-finance-delegates",
        teamName: "Finance Delegates",
        isVisible: true,
        delegatingTeamName: null,
        teamUsers: [DANIEL],
      },
      {
        teamOid: "team-management",
        teamName: "Management",
        isVisible: true,
        delegatingTeamName: null,
        teamUsers: [DAVID, MARIA],
      },
    ]);
  }),
);

Deno.test(
  "[approvals] pwateamusers gives a visible team's members; an unknown or invisible team is 404",
  withApp(async (api) => {
    const { fin } = await everyone(api);
    const f = await getA(api, fin.h, "pwateamusers?teamOid=team-finance");
    assertOk(f);
    assert.deepEqual(f.json, { teamUsers: [ADAM] });
    const m = await getA(api, fin.h, "pwateamusers?teamOid=team-management");
    assertOk(m);
    assert.deepEqual(people(m.json.teamUsers as typeof ADAM[]), [DAVID, MARIA]);
    const unknown = await getA(api, fin.h, "pwateamusers?teamOid=team-nope");
    const invisible = await getA(api, fin.h, "pwateamusers?teamOid=team-employees");
    assertError(unknown, 404, "not_found");
    assertError(invisible, 404, "not_found");
    assert.equal(invisible.text, unknown.text);
  }),
);
