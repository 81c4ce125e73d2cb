/**
 * The organisation file format (server/org/schema.ts) and the demo organisation.
 * Broken files are made by mutating a fresh copy of the demo, so each test breaks
 * exactly one thing and checks the message names it.
 */
import assert from "node:assert/strict";
import demo from "../../server/org/demo_org.json" with { type: "json" };
import { type Org, OrgFile } from "../../server/org/schema.ts";
import { checkOrgReferences, eligibleApprovers, parseOrg } from "../../server/org/parse.ts";
import { labelIn } from "../../server/org/labels.ts";

// deno-lint-ignore no-explicit-any
type Json = any;
const copy = (): Json => structuredClone(demo);

/** Asserts that parsing fails and that the message matches every pattern. */
function rejects(file: unknown, ...patterns: RegExp[]): string {
  let message = "";
  assert.throws(() => parseOrg(file), (e: unknown) => {
    assert.ok(e instanceof Error);
    message = e.message;
    return true;
  });
  for (const p of patterns) assert.match(message, p);
  return message;
}

Deno.test("[org] demo file parses with no reference errors", () => {
  const org = parseOrg(copy());
  assert.deepEqual(checkOrgReferences(org), []);
  assert.equal(org.settings.defaultCurrency, "EUR");
});

Deno.test("[org] demo has the required users with their roles", () => {
  const org = parseOrg(copy());
  const user = (email: string) => {
    const u = org.users.find((x) => x.email === email);
    assert.ok(u, `missing demo user ${email}`);
    return u;
  };
  const teamOid = (name: string) => org.teams.find((t) => t.teamName === name)?.oid;
  const employee = user("employee@demo.example");
  assert.equal(employee.canRequest, true);
  assert.equal(employee.isApprover, false);
  const approver = user("approver@demo.example");
  assert.equal(approver.isApprover, true);
  assert.ok(approver.teams.includes(teamOid("Finance")!));
  const manager = user("manager@demo.example");
  assert.equal(manager.isApprover, true);
  assert.equal(manager.canRequest, true);
  assert.ok(manager.teams.includes(teamOid("Management")!));
  const delegate = user("delegate@demo.example");
  const finance = org.teams.find((t) => t.teamName === "Finance")!;
  assert.ok(finance.delegatingTeamOid, "Finance must delegate to a team");
  assert.ok(delegate.teams.includes(finance.delegatingTeamOid));
  assert.ok(eligibleApprovers(org, [finance.oid]).has("delegate@demo.example"));
  for (const u of org.users) assert.match(u.secret.answer, /^[a-z]+$/);
});

Deno.test("[org] demo request types cover one-off, budget, recurring and reject-note", () => {
  const org = parseOrg(copy());
  const types = org.requestTypes;
  assert.ok(types.length >= 4);
  assert.ok(types.some((t) => labelIn(t.description, "en") === "Travel" && !t.isRecurring));
  assert.ok(types.some((t) => t.allowBudget && !t.isRecurring));
  assert.ok(types.some((t) => t.isRecurring));
  assert.ok(types.some((t) => t.requireRejectNote));
  assert.ok(types.some((t) => t.approvalPolicy.at(-1)!.levels.length === 2));
  assert.equal(org.accounts.length, 2);
  assert.ok(org.costCenters.length >= 3);
  for (const c of org.costCenters) assert.ok(c.ledgerOids.length >= 2);
});

Deno.test("[org] demo currencies carry the spec §9 symbols", () => {
  const org = parseOrg(copy());
  const symbols = Object.fromEntries(
    org.currencies.map((c) => [c.value, c.symbol]),
  );
  assert.deepEqual(
    Object.keys(symbols).sort(),
    ["AED", "EUR", "GBP", "JPY", "PLN", "QAR", "RON", "RSD", "USD"],
  );
  assert.equal(symbols.EUR, "€");
  assert.equal(symbols.GBP, "£");
  assert.equal(symbols.JPY, "¥");
  for (const country of ["FR", "DE", "NL"]) {
    assert.ok(
      org.vatCodes.filter((v) => v.countryid === country).length >= 2,
      country,
    );
  }
});

Deno.test("[org] emails are lowercased and defaults filled", () => {
  const file = copy();
  file.users[0].email = "  Employee@Demo.Example ";
  delete file.settings.defaultCurrency;
  delete file.teams[1].isVisible;
  const org: Org = parseOrg(file);
  assert.equal(org.users[0].email, "employee@demo.example");
  assert.equal(org.settings.defaultCurrency, "EUR");
  assert.equal(org.teams[1].isVisible, true);
});

Deno.test("[org] rejects a user in an unknown team", () => {
  const file = copy();
  file.users[0].teams.push("team-nope");
  rejects(
    file,
    /users\[0\] \(employee@demo\.example\): unknown team "team-nope"/,
  );
});

Deno.test("[org] rejects minAmount greater than maxAmount", () => {
  const file = copy();
  file.requestTypes[0].minAmount = 9000;
  rejects(
    file,
    /requestTypes\[0\] \(TRAVEL\): minAmount 9000 is greater than maxAmount 5000/,
  );
});

Deno.test("[org] rejects another version or format with one clear error", () => {
  const file = copy();
  file.version = 2;
  file.users = "not even an array";
  const message = rejects(file, /version/, /this build reads version 1/);
  assert.doesNotMatch(message, /users/);
  rejects(
    { ...copy(), format: "something-else" },
    /"format" must be "qcard-org"/,
  );
  rejects(null, /Not a QCard organisation file/);
});

Deno.test("[org] rejects a duplicate email, whatever its case", () => {
  const file = copy();
  file.users[1].email = "EMPLOYEE@demo.example";
  rejects(file, /users email: duplicate "employee@demo\.example"/);
});

Deno.test("[org] rejects a missing required field and names its path", () => {
  const file = copy();
  delete file.users[2].fname;
  rejects(file, /users\[2\]\.fname: required field is missing/);
  const noName = copy();
  delete noName.organisation.name;
  rejects(noName, /organisation\.name: required field is missing/);
});

Deno.test("[org] rejects a misspelt key instead of dropping it", () => {
  const file = copy();
  file.teams[0].teamname = file.teams[0].teamName;
  rejects(file, /teams\[0\]/, /teamname/);
});

Deno.test("[org] rejects a cost center with an unknown GL or project code", () => {
  const file = copy();
  file.costCenters[0].ledgerOids.push("gl-ghost");
  file.costCenters[1].projectOids = ["prj-ghost"];
  rejects(
    file,
    /costCenters\[0\] \(CC-100\): unknown GL code \(ledger\) "gl-ghost"/,
    /costCenters\[1\] \(CC-200\): unknown project code "prj-ghost"/,
  );
});

Deno.test("[org] rejects unknown account, cost center, currency and delegating team", () => {
  const file = copy();
  file.requestTypes[0].accountOid = "acc-ghost";
  file.requestTypes[1].costCenterOids = ["cc-ghost"];
  file.accounts[0].currency = "XXX";
  file.teams[0].delegatingTeamOid = "team-ghost";
  file.vatCodes[0].countryid = "ZZ";
  const org = OrgFile.parse(file);
  const errors = checkOrgReferences(org);
  assert.equal(errors.length, 5, errors.join("\n"));
  rejects(
    file,
    /unknown account "acc-ghost"/,
    /unknown cost center "cc-ghost"/,
  );
  rejects(
    file,
    /unknown currency "XXX"/,
    /unknown delegating team "team-ghost"/,
  );
  rejects(file, /unknown country "ZZ"/);
});

Deno.test("[org] rejects a quota larger than the eligible approvers", () => {
  const file = copy();
  // Management has two approvers (manager, director); delegates do not reach it.
  file.requestTypes[0].approvalPolicy[1].levels[1].quota = 3;
  rejects(
    file,
    /approvalPolicy\[1\] level 2: quota 3 is larger than the 2 eligible/,
  );
  // Finance has its member plus its delegating team: quota 2 is fine, 3 is not.
  const finance = copy();
  finance.requestTypes[0].approvalPolicy[0].levels[0].quota = 2;
  parseOrg(finance);
  finance.requestTypes[0].approvalPolicy[0].levels[0].quota = 3;
  rejects(finance, /quota 3 is larger than the 2 eligible/);
});

Deno.test("[org] rejects approval tiers that leave amounts uncovered or unreachable", () => {
  const noOpenTier = copy();
  noOpenTier.requestTypes[0].approvalPolicy[1].maxAmount = 5000;
  rejects(noOpenTier, /last tier must have no maxAmount/);
  const beyondMax = copy();
  beyondMax.requestTypes[0].approvalPolicy[0].maxAmount = 6000;
  rejects(beyondMax, /maxAmount 6000 makes a tier unreachable/);
  const badLevels = copy();
  badLevels.requestTypes[0].approvalPolicy[1].levels[1].level = 3;
  rejects(badLevels, /levels must be numbered 1, 2/);
});

Deno.test("[org] rejects a recurring type without budget and a required list left empty", () => {
  const file = copy();
  file.requestTypes[2].allowBudget = false;
  file.receiptTypes = [];
  rejects(
    file,
    /SUBSCRIPTION\): a recurring type needs allowBudget/,
    /receiptTypes is empty/,
  );
});
