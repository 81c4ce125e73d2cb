/**
 * Reading an organisation file (schema.ts): its shape through zod, then the cross-references
 * zod cannot see, each problem as a sentence an operator can act on.
 */
import type * as z from "zod";
import { labelIn } from "./labels.ts";
import { type Org, OrgFile, OrgHeader, type OrgRequestType } from "./schema.ts";

type Key = string | number;
type Report = (message: string) => void;

/**
 * Cross-reference errors that zod's per-field checks cannot see, as sentences an
 * operator can act on. Empty when the organisation is consistent. Pure: also usable
 * on an organisation built in code (tests, seeding).
 */
export function checkOrgReferences(org: Org): string[] {
  const errors: string[] = [];
  const err: Report = (message) => void errors.push(message);
  /** The keys of `list`; every repeat is an error (oids, emails, codes are identities). */
  const keys = <T>(where: string, list: readonly T[], key: (t: T) => Key) => {
    const seen = new Set<Key>();
    for (const k of list.map(key)) {
      if (seen.has(k)) err(`${where}: duplicate "${k}"`);
      seen.add(k);
    }
    return seen;
  };
  const refs = (known: Set<Key>, where: string, what: string, to: Key[]) => {
    for (const r of to) {
      if (!known.has(r)) err(`${where}: unknown ${what} "${r}"`);
    }
  };
  const byOid = (x: { oid: string }) => x.oid;
  const byValue = (x: { value: string }) => x.value;

  keys("users email", org.users, (u) => u.email);
  const teams = keys("teams oid", org.teams, byOid);
  const accounts = keys("accounts oid", org.accounts, byOid);
  keys("accounts value", org.accounts, byValue);
  keys("requestTypes oid", org.requestTypes, byOid);
  keys("requestTypes id", org.requestTypes, (t) => t.id);
  keys("requestTypes rowId", org.requestTypes, (t) => t.rowId);
  const costCenters = keys("costCenters oid", org.costCenters, byOid);
  keys("costCenters value", org.costCenters, byValue);
  const ledgers = keys("ledgers oid", org.ledgers, byOid);
  const projects = keys("projectCodes oid", org.projectCodes, byOid);
  const currencies = keys("currencies value", org.currencies, byValue);
  const countries = keys("countries id", org.countries, (c) => c.id);
  keys("vatCodes oid", org.vatCodes, byOid);
  keys("receiptTypes value", org.receiptTypes, byValue);
  keys("accountingCodes value", org.accountingCodes, byValue);
  const questions = keys("secretQuestions oid", org.secretQuestions, byOid);
  keys("settings acceptedExtensions", org.settings.acceptedExtensions, String);

  const { settings: s } = org;
  refs(currencies, "settings.defaultCurrency", "currency", [s.defaultCurrency]);
  // A setting that makes a list mandatory in the UI needs that list to offer something.
  const needs = [
    ["typeEnabled", "required", "receiptTypes"],
    ["accountingCodeEnabled", "required", "accountingCodes"],
    ["vatMode", "advanced", "vatCodes"],
  ] as const;
  for (const [setting, value, list] of needs) {
    if (s[setting] === value && org[list].length === 0) {
      err(`settings.${setting} is "${value}" but ${list} is empty`);
    }
  }

  org.users.forEach((u, i) => {
    const where = `users[${i}] (${u.email})`;
    refs(teams, where, "team", u.teams);
    refs(questions, where, "secret question", [u.secret.questionOid]);
  });
  org.teams.forEach((t, i) => {
    const where = `teams[${i}] (${t.teamName})`;
    const delegating = t.delegatingTeamOid;
    if (delegating === t.oid) err(`${where}: a team cannot delegate to itself`);
    else if (delegating) refs(teams, where, "delegating team", [delegating]);
    refs(accounts, where, "finance account", t.finance?.accountOids ?? []);
  });
  org.accounts.forEach((a, i) => {
    refs(currencies, `accounts[${i}] (${a.value})`, "currency", [a.currency]);
  });
  org.costCenters.forEach((c, i) => {
    const where = `costCenters[${i}] (${c.value})`;
    refs(ledgers, where, "GL code (ledger)", c.ledgerOids);
    refs(projects, where, "project code", c.projectOids);
  });
  org.vatCodes.forEach((v, i) => {
    const where = `vatCodes[${i}] (${labelIn(v.description, "en")})`;
    refs(countries, where, "country", [v.countryid]);
  });
  org.requestTypes.forEach((t, i) => {
    const where = `requestTypes[${i}] (${t.id})`;
    refs(accounts, where, "account", [t.accountOid]);
    refs(costCenters, where, "cost center", t.costCenterOids ?? []);
    if (t.minAmount > t.maxAmount) {
      const { minAmount: min, maxAmount: max } = t;
      err(`${where}: minAmount ${min} is greater than maxAmount ${max}`);
    }
    // spec §5: amount is disabled for recurring types; only a budget sets it.
    if (t.isRecurring && !t.allowBudget) {
      err(`${where}: a recurring type needs allowBudget true`);
    }
    checkPolicy(org, t, where, teams, err);
  });
  return errors;
}

/** Tiers must cover every amount once; each level must reach enough approvers. */
function checkPolicy(
  org: Org,
  type: OrgRequestType,
  where: string,
  teams: Set<Key>,
  err: Report,
): void {
  const { minAmount: min, maxAmount: max, approvalPolicy: tiers } = type;
  let previous = -Infinity;
  tiers.forEach((tier, i) => {
    const at = `${where} approvalPolicy[${i}]`;
    const last = i === tiers.length - 1;
    if (last && tier.maxAmount !== undefined) {
      err(
        `${at}: the last tier must have no maxAmount, to cover larger amounts`,
      );
    } else if (!last && tier.maxAmount === undefined) {
      err(`${at}: only the last tier may omit maxAmount`);
    } else if (tier.maxAmount !== undefined) {
      if (tier.maxAmount <= previous) err(`${at}: maxAmount must increase`);
      if (tier.maxAmount < min || tier.maxAmount >= max) {
        const range = `at least ${min} and below ${max}`;
        err(
          `${at}: maxAmount ${tier.maxAmount} makes a tier unreachable (${range})`,
        );
      }
      previous = tier.maxAmount;
    }
    tier.levels.forEach((level, j) => {
      const lv = `${at} level ${level.level}`;
      if (level.level !== j + 1) err(`${at}: levels must be numbered 1, 2, …`);
      for (const team of level.teamOids) {
        if (!teams.has(team)) err(`${lv}: unknown team "${team}"`);
      }
      const eligible = eligibleApprovers(org, level.teamOids).size;
      if (level.quota > eligible) {
        const teamList = level.teamOids.join(", ");
        err(
          `${lv}: quota ${level.quota} is larger than the ${eligible} eligible approver(s) of ${teamList}`,
        );
      }
    });
  });
}

/**
 * Emails of approvers who may vote for these teams: their members, and members
 * of each team's delegating team (spec §6, isDelegated).
 */
export function eligibleApprovers(
  org: Org,
  teamOids: readonly string[],
): Set<string> {
  const acting = new Set(teamOids);
  for (const t of org.teams) {
    if (acting.has(t.oid) && t.delegatingTeamOid) {
      acting.add(t.delegatingTeamOid);
    }
  }
  const voters = org.users.filter((u) => u.isApprover && u.teams.some((t) => acting.has(t)));
  return new Set(voters.map((u) => u.email));
}

/** `users[2].fname` for a zod issue path. */
function pathOf(path: readonly PropertyKey[]): string {
  const text = path.map((p) => typeof p === "number" ? `[${p}]` : `.${String(p)}`);
  return text.join("").replace(/^\./, "") || "(file)";
}

function fail(title: string, problems: string[]): never {
  throw new Error(`${title}:\n${problems.map((p) => `- ${p}`).join("\n")}`);
}

/** Zod says "expected string, received undefined"; an operator reads "missing". */
const missingField: z.core.$ZodErrorMap = (issue) =>
  issue.code === "invalid_type" && issue.input === undefined
    ? "required field is missing"
    : undefined;

const issues = (error: z.ZodError) =>
  error.issues.map((issue) => `${pathOf(issue.path)}: ${issue.message}`);

/**
 * Validates an organisation file (already JSON-parsed) and returns it normalised
 * (emails lowercased, defaults filled). Throws one Error listing every problem, so
 * the operator can fix the file in one pass.
 */
export function parseOrg(json: unknown): Org {
  const header = OrgHeader.safeParse(json);
  if (!header.success) {
    fail("Not a QCard organisation file", issues(header.error));
  }
  const result = OrgFile.safeParse(json, { error: missingField });
  if (!result.success) fail("Invalid organisation file", issues(result.error));
  const errors = checkOrgReferences(result.data);
  if (errors.length > 0) fail("Invalid organisation file", errors);
  return result.data;
}
