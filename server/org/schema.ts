/**
 * The organisation file an operator imports with `deno task import org.json`.
 *
 * An operator writes this file by hand or exports it from another system, so it is
 * checked strictly: unknown keys are rejected (a misspelt key is a typo, not an
 * extension), and `format` + `version` come first so a later build can refuse or
 * migrate an old file instead of misreading it. Field names follow spec §3 where the
 * spec names them; `oid`s are the file's own identifiers and every cross-reference
 * goes through them. Shape errors come from zod; cross-references are checked by
 * checkOrgReferences (parse.ts), because zod cannot see across collections.
 *
 * Server only: full `zod` (the client bundles `zod/mini`).
 */
import * as z from "zod";
import { orgLabel } from "./labels.ts";

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
  /** The PIN pad's FAQ link; else our own translated support page (spec §7 pwasupporturl). */
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
   * spec §5 missing receipts: days after a card purchase is captured before its
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
   * spec §7 appcolor: the theme colour of request mode (spec §9 dark slate) and
   * of approval, card, mode (green), for the header and the browser's theme-color.
   */
  appColor: hexColor.default(DEFAULT_APP_COLOR),
  cardColor: hexColor.default(DEFAULT_CARD_COLOR),
  /**
   * The DATEV export's header (docs/export.md): the tax consultant's and client's numbers, the
   * fiscal year's first month, the length of the GL accounts, the chart of accounts (SKR 03 or
   * 04) and the account the card spend is booked against (Gegenkonto).
   */
  datev: z.strictObject({
    consultant: z.int().min(1001).max(9999999).default(1001),
    client: z.int().min(1).max(99999).default(1),
    fiscalYearStartMonth: z.int().min(1).max(12).default(1),
    accountLength: z.int().min(4).max(8).default(4),
    chart: z.enum(["03", "04"]).default("03"),
    contraAccount: z.string().regex(/^\d{1,9}$/, "must be an account number").default("1360"),
  }).optional(),
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
  /**
   * The finance role (docs/export.md): members may export the organisation's card spend and
   * read every transaction in it — of every account, or of `accountOids` only. A SCIM group
   * is a team, so an identity provider grants and takes the role by membership.
   */
  finance: z.strictObject({ accountOids: z.array(oid).min(1).optional() }).optional(),
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
  /** The network of this type's virtual cards (spec §2 Card detail: visa or mastercard). */
  cardBrand: z.enum(["visa", "mastercard"]).default("visa"),
  /** Days a card of this type stays usable (after the last budget line for budgets). */
  cardValidityDays: z.int().min(1).max(3650).default(90),
  /** Merchant category codes (ISO 18245) this type's cards decline (spec §8 refused reason MCC). */
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
    /** The DATEV tax key (BU-Schlüssel) of the code, e.g. "9" for 19 % input VAT in SKR 03. */
    datevKey: z.string().regex(/^\d{1,4}$/, "must be a DATEV tax key (1 to 4 digits)").optional(),
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
