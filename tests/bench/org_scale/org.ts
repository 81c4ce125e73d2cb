/**
 * The scale organisation (issue 40, docs/benchmarks.md "Scale"): the demo organisation's
 * reference data (types, accounts, cost centres, codes) with 10,000 people in 200 teams and a
 * three-level approval policy on every request type — team leads (team-197), department heads
 * (team-198) and finance (team-199, the finance role too). People u00000…u09999@scale.example,
 * person i in team i % 200; the three approving teams' members are approvers. Imported through
 * the organisation import (server/org_sync/import.ts), as an operator's file would be.
 */
import { parseOrg } from "../../../server/org/parse.ts";
import type { Org } from "../../../server/org/schema.ts";

export const USERS = 10_000;
export const TEAMS = 200;
export const LEVEL_TEAMS = ["team-197", "team-198", "team-199"] as const;
export const emailOf = (i: number) => `u${String(i).padStart(5, "0")}@scale.example`;
export const teamOf = (i: number) => `team-${String(i % TEAMS).padStart(3, "0")}`;

/** The organisation file, parsed as the import parses one. */
export async function scaleOrg(): Promise<Org> {
  const url = new URL("../../../server/org/demo_org.json", import.meta.url);
  const demo = JSON.parse(await Deno.readTextFile(url));
  const approvers = new Set<string>(LEVEL_TEAMS);
  demo.organisation = { ...demo.organisation, name: "Scale Ltd" };
  demo.teams = Array.from({ length: TEAMS }, (_, t) => {
    const oid = `team-${String(t).padStart(3, "0")}`;
    return {
      oid,
      teamName: `Team ${t}`,
      isVisible: true,
      ...(oid === "team-199" ? { finance: {} } : {}),
    };
  });
  const levels = [
    ["Team lead approval", "team-197"],
    ["Department approval", "team-198"],
    ["Finance approval", "team-199"],
  ].map(([actionDescription, team], i) => ({
    level: i + 1,
    actionDescription,
    teamOids: [team],
    quota: 1,
  }));
  for (const t of demo.requestTypes) t.approvalPolicy = [{ levels }];
  const template = demo.users[0];
  demo.users = Array.from({ length: USERS }, (_, i) => ({
    ...template,
    email: emailOf(i),
    fname: `Person${i}`,
    lname: "Scale",
    teams: [teamOf(i)],
    canRequest: true,
    isApprover: approvers.has(teamOf(i)),
  }));
  return parseOrg(demo);
}
