/**
 * The organisation file an operator imports with `deno task import org.json`.
 *
 * An operator writes this file by hand or exports it from another system, so it is
 * checked strictly: unknown keys are rejected (a misspelt key is a typo, not an
 * extension), and `format` + `version` come first so a later build can refuse or
 * migrate an old file instead of misreading it. Field names follow spec §3 where the
 * spec names them; `oid`s are the file's own identifiers and every cross-reference
 * goes through them. Shape errors come from zod; cross-references are checked by
 * {@link checkOrgReferences}, because zod cannot see across collections.
 *
 * Server only: full `zod` (the client bundles `zod/mini`).
 */
import * as z from "zod";
import { labelIn, orgLabel } from "./labels.ts";

export const ORG_FORMAT = "qcard-org";
export const ORG_VERSION = 1;

const oid = z.string().trim().min(1, "must not be empty");
const text = z.string().trim().min(1, "must not be empty");
const amount = z.number().nonnegative();
/** The languages the app speaks (server/i18n.ts LOCALES). */
const locale = z.enum(["en", "fr", "de", "es"]);
const httpUrl = z.url({
  protocol: /^https?$/,
  error: (iss) => iss.code === "invalid_format" ? "must be an http(s) URL" : undefined,
});
const currencyCode = z.string().regex(
  /^[A-Z]{3}$/,
  'must be an ISO 4217 code such as "EUR"',
);
const countryId = z.string().regex(
  /^[A-Z]{2}$/,
  'must be an ISO 3166 code such as "FR"',
);
/** spec §9 theme colours, the defaults of the organisation's appColor and cardColor. */
export const DEFAULT_APP_COLOR = "#2f3e4e";
export const DEFAULT_CARD_COLOR = "#1f7a4d";
const hexColor = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour such as "#2f3e4e"');
/** spec §5: 'false' hides the field, 'required' blocks saving while it is empty. */
const triState = z.enum(["true", "false", "required"]);
/** Emails are identities (activation, login): stored lowercased so lookups are exact. */
const email = z.string().trim().toLowerCase().pipe(z.email());

/** Checked on its own first, so a file of another format or version gets one clear error. */
export const OrgHeader = z.object({
  format: z.literal(ORG_FORMAT, { error: `"format" must be "${ORG_FORMAT}"` }),
  version: z.literal(ORG_VERSION, {
    error: `unsupported "version": this build reads version ${ORG_VERSION}`,
  }),
});

const Organisation = z.strictObject({
  name: text,
  defaultLocale: locale,
  /** spec §1: the support link shows only when a support url exists. */
  supportUrl: httpUrl.optional(),
  /** The PIN pad's FAQ link; without it, our own translated support page (issue 13). */
  faqUrl: httpUrl.optional(),
  chatUrl: httpUrl.optional(),
});

const Settings = z.strictObject({
  vatMode: z.enum(["simple", "advanced"]),
  accountingCodeEnabled: triState,
  typeEnabled: triState,
  limitReceiptAttachementFormat: z.boolean(),
  revealEnabled: z.boolean(),
  acceptedExtensions: z.array(
    z.string().regex(
      /^[a-z0-9]+$/,
      'must be a lowercase extension without dot, e.g. "pdf"',
    ),
  ).min(1),
  /** spec §9: default currency EUR. */
  defaultCurrency: currencyCode.default("EUR"),
  /**
   * spec §5 missing receipts (issue 11): days after a card purchase is captured before its
   * missing receipt is overdue — it then blocks new requests and counts in the badge.
   */
  receiptOverdueDays: z.int().min(0).max(365).default(7),
  /**
   * spec §5 missing receipts: whether a card holder may declare "no receipt" on a transaction
   * ("off": never; "on": the declaration lifts the block at once; "approval": only once an
   * approver of the card's request accepted it).
   */
  receiptDeclarations: z.enum(["off", "on", "approval"]).default("on"),
  /**
   * spec §7 appcolor (issue 13): the theme colour of request mode (spec §9 dark slate) and
   * of approval, card, mode (green), for the header and the browser's theme-color.
   */
  appColor: hexColor.default(DEFAULT_APP_COLOR),
  cardColor: hexColor.default(DEFAULT_CARD_COLOR),
});

const User = z.strictObject({
  email,
  fname: text,
  lname: text,
  locale,
  canRequest: z.boolean(),
  isApprover: z.boolean(),
  teams: z.array(oid).default([]),
  /** The answer is in clear in the file; the importer stores only a hash of it. */
  secret: z.strictObject({ questionOid: oid, answer: text }),
});

const Team = z.strictObject({
  oid,
  teamName: text,
  /** Spec's delegatingTeamName: members of that team may act for this one (isDelegated). */
  delegatingTeamOid: oid.optional(),
  isVisible: z.boolean().default(true),
});

const Account = z.strictObject({
  oid,
  value: text,
  label: orgLabel,
  currency: currencyCode,
});

const ApprovalLevel = z.strictObject({
  level: z.int().min(1),
  actionDescription: text,
  teamOids: z.array(oid).min(1),
  /** Number of approving votes the level needs. */
  quota: z.int().min(1),
});

/** Applies to amounts up to `maxAmount`; the last tier has none and takes the rest. */
const ApprovalTier = z.strictObject({
  maxAmount: amount.optional(),
  levels: z.array(ApprovalLevel).min(1),
});

/** Spec's subType. */
const RequestType = z.strictObject({
  oid,
  rowId: z.int().min(1),
  id: text,
  /** The type's name (spec §3 subType description), plain or per language (labels.ts). */
  description: orgLabel,
  accountOid: oid,
  minAmount: amount,
  maxAmount: amount,
  isRecurring: z.boolean(),
  requireRejectNote: z.boolean(),
  allowBudget: z.boolean(),
  /** When present, only these cost centers may be chosen with this type. */
  costCenterOids: z.array(oid).min(1).optional(),
  /** The network of this type's virtual cards (issue 10). */
  cardBrand: z.enum(["visa", "mastercard"]).default("visa"),
  /** Days a card of this type stays usable (after the last budget line for budgets). */
  cardValidityDays: z.int().min(1).max(3650).default(90),
  /** Merchant category codes (ISO 18245) this type's cards decline (issue 11). */
  blockedMccs: z.array(z.string().regex(/^\d{4}$/, "must be a 4-digit merchant category code"))
    .max(200).default([]),
  approvalPolicy: z.array(ApprovalTier).min(1),
});

const Code = z.strictObject({ oid, value: text, label: orgLabel });
const ComboItem = z.strictObject({ value: text, label: orgLabel });

/** spec §5: editing needs cost center, GL and project, so each list must offer one. */
const CostCenter = z.strictObject({
  oid,
  value: text,
  label: orgLabel,
  ledgerOids: z.array(oid).min(1),
  projectOids: z.array(oid).min(1),
});

export const OrgFile = z.strictObject({
  format: OrgHeader.shape.format,
  version: OrgHeader.shape.version,
  organisation: Organisation,
  settings: Settings,
  users: z.array(User).min(1),
  teams: z.array(Team),
  accounts: z.array(Account).min(1),
  requestTypes: z.array(RequestType).min(1),
  costCenters: z.array(CostCenter).default([]),
  ledgers: z.array(Code).default([]),
  projectCodes: z.array(Code).default([]),
  currencies: z.array(
    z.strictObject({ value: currencyCode, label: text, symbol: text }),
  ).min(1),
  countries: z.array(z.strictObject({ id: countryId, name: text, label: text }))
    .default([]),
  vatCodes: z.array(z.strictObject({
    oid,
    description: orgLabel,
    percentage: z.number().min(0).max(100),
    countryid: countryId,
  })).default([]),
  receiptTypes: z.array(ComboItem).default([]),
  accountingCodes: z.array(ComboItem).default([]),
  secretQuestions: z.array(z.strictObject({
    oid,
    key: text,
    /** Plain or per language, English the fallback (labels.ts). */
    text: orgLabel,
  })).min(1),
});

export type Org = z.infer<typeof OrgFile>;
export type OrgUser = Org["users"][number];
export type OrgTeam = Org["teams"][number];
export type OrgRequestType = Org["requestTypes"][number];
export type OrgApprovalTier = OrgRequestType["approvalPolicy"][number];
export type OrgApprovalLevel = OrgApprovalTier["levels"][number];

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
