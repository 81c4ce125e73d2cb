import { isMoney } from "./money.ts";

/**
 * The rules of spec §5 for creating and editing a request, shared by the create form (so
 * the person sees the message before anything is sent) and the server (which enforces
 * them whatever the client sends). A violation is a translation key and its parameters;
 * each side turns it into text in the user's language.
 */
export type RuleKey =
  | "request.typeRequired"
  | "request.amountRequired"
  | "request.amountInvalid"
  | "request.amountRange"
  | "request.purposeRequired"
  | "request.purposeTooLong"
  | "request.budgetRequired"
  | "request.codesRequired"
  | "request.vendorUrlInvalid";

export interface Violation {
  key: RuleKey;
  params?: Record<string, string | number>;
  /**
   * Parameters that are amounts: shown as money in the request's currency and the reader's
   * language ("between €20.00 and €5,000.00"), by violationParams where the text is made.
   */
  money?: Record<string, number>;
}

/** A violation's parameters with its amounts written by `money` (a money formatter). */
export function violationParams(
  v: Violation,
  money: (amount: number) => string,
): Record<string, string | number> | undefined {
  if (!v.money) return v.params;
  const out: Record<string, string | number> = { ...v.params };
  for (const [k, n] of Object.entries(v.money)) out[k] = money(n);
  return out;
}

/** Longest purpose we keep (the original app's column); vendor and url likewise. */
export const MAX_PURPOSE = 500;
export const MAX_VENDOR = 120;
export const MAX_URL = 500;

export interface TypeBounds {
  minAmount: number;
  maxAmount: number;
  isRecurring: boolean;
}

export interface CreateInput {
  typeOid?: string | null;
  /** The typed amount, or the budget total in budget mode. */
  amount?: number | null;
  purpose?: string | null;
  /** True when the amount comes from budget lines (budget mode). */
  hasBudget: boolean;
  url?: string | null;
}

/** spec §5 'Amount must be between X and Y'. */
export function checkAmount(amount: number, t: TypeBounds): Violation | null {
  if (!isMoney(amount) || amount <= 0) return { key: "request.amountInvalid" };
  if (amount < t.minAmount || amount > t.maxAmount) {
    return {
      key: "request.amountRange",
      params: { min: String(t.minAmount), max: String(t.maxAmount) },
      money: { min: t.minAmount, max: t.maxAmount },
    };
  }
  return null;
}

/**
 * spec §5 create request: a type, an amount (from the budget for recurring types), a
 * purpose, the amount within the type's bounds. The first violation, or null.
 */
export function checkCreate(input: CreateInput, type: TypeBounds | null): Violation | null {
  if (!input.typeOid || !type) return { key: "request.typeRequired" };
  if (type.isRecurring && !input.hasBudget) return { key: "request.budgetRequired" };
  if (input.amount === null || input.amount === undefined || Number.isNaN(input.amount)) {
    return { key: "request.amountRequired" };
  }
  const a = checkAmount(input.amount, type);
  if (a) return a;
  const purpose = (input.purpose ?? "").trim();
  if (!purpose) return { key: "request.purposeRequired" };
  if (purpose.length > MAX_PURPOSE) {
    return { key: "request.purposeTooLong", params: { max: MAX_PURPOSE } };
  }
  if (input.url && normaliseVendorUrl(input.url) === null) {
    return { key: "request.vendorUrlInvalid" };
  }
  return null;
}

/** The create form's fields a §5 rule speaks of (each message goes under its field). */
export type CreateField = "type" | "amount" | "purpose" | "url";

/**
 * spec §5 create request, every violation at once, each on its field (the form shows them
 * all, each under its field): the same rules and messages as checkCreate, which gives the
 * first of them in the form's order.
 */
export function checkCreateFields(
  input: CreateInput,
  type: TypeBounds | null,
): Partial<Record<CreateField, Violation>> {
  const out: Partial<Record<CreateField, Violation>> = {};
  if (!input.typeOid || !type) out.type = { key: "request.typeRequired" };
  if (type?.isRecurring && !input.hasBudget) out.amount = { key: "request.budgetRequired" };
  else if (input.amount === null || input.amount === undefined || Number.isNaN(input.amount)) {
    out.amount = { key: "request.amountRequired" };
  } else if (type) {
    const a = checkAmount(input.amount, type);
    if (a) out.amount = a;
  } else if (!isMoney(input.amount) || input.amount <= 0) {
    out.amount = { key: "request.amountInvalid" };
  }
  const purpose = (input.purpose ?? "").trim();
  if (!purpose) out.purpose = { key: "request.purposeRequired" };
  else if (purpose.length > MAX_PURPOSE) {
    out.purpose = { key: "request.purposeTooLong", params: { max: MAX_PURPOSE } };
  }
  if (input.url && normaliseVendorUrl(input.url) === null) {
    out.url = { key: "request.vendorUrlInvalid" };
  }
  return out;
}

/** spec §5 edit request: purpose, and project, GL and cost center must be set. */
export function checkEdit(input: {
  purpose?: string | null;
  costCenterOid?: string | null;
  GLOid?: string | null;
  projectOid?: string | null;
}): Violation | null {
  const purpose = (input.purpose ?? "").trim();
  if (!purpose) return { key: "request.purposeRequired" };
  if (purpose.length > MAX_PURPOSE) {
    return { key: "request.purposeTooLong", params: { max: MAX_PURPOSE } };
  }
  if (!input.costCenterOid || !input.GLOid || !input.projectOid) {
    return { key: "request.codesRequired" };
  }
  return null;
}

/**
 * spec §5: the vendor url gets http:// when it has no scheme. Only http(s) links are kept
 * (a javascript: or data: url would run when the detail's vendor link is tapped): null for
 * anything that is not a plausible web address. Empty input gives ''.
 */
export function normaliseVendorUrl(raw: string): string | null {
  const s = raw.trim();
  if (!s) return "";
  if (/\s/.test(s) || s.length > MAX_URL) return null;
  // 'host:8080/x' is a host and port, not a scheme; '//host' is scheme-relative.
  const hasScheme = /^[a-z][a-z0-9+.-]*:/i.test(s) && !/^[^:/]+:\d+(\/|$)/.test(s);
  if (hasScheme && !/^https?:\/\/[^/]/i.test(s)) return null;
  const withScheme = hasScheme ? s : `http://${s.replace(/^\/\//, "")}`;
  let u: URL;
  try {
    u = new URL(withScheme);
  } catch {
    return null;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return null;
  if (!u.hostname || !/^[^.]+(\.[^.]+)+$|^localhost$/i.test(u.hostname)) return null;
  return withScheme;
}
