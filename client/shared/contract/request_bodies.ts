import * as z from "zod/mini";
import { MAX_OCCURRENCES } from "../budget.ts";
import { MAX_PURPOSE, MAX_URL, MAX_VENDOR } from "../request_rules.ts";

// spec §7 bodies the client sends to write expense requests (create, edit, comment; the
// endpoints are in requests.ts). Field names are spec §3's.

const Oid = z.string().check(z.minLength(1), z.maxLength(64));
const OptOid = z.optional(z.nullable(z.string().check(z.maxLength(64))));
const Text = (max: number) => z.string().check(z.maxLength(max));

export const BudgetPlanBody = z.object({
  period: z.enum(["weekly", "monthly"]),
  startDate: z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/, "startDate must be YYYY-MM-DD")),
  amount: z.number(),
  occurrences: z.int().check(z.minimum(1), z.maximum(MAX_OCCURRENCES)),
});

/**
 * What the create form sends. Type, amount and purpose are optional here so that their
 * absence is answered with the §5 message (422), not a schema error.
 */
export const CreateBody = z.object({
  accountOid: OptOid,
  typeOid: OptOid,
  amount: z.optional(z.nullable(z.number())),
  pricingCurrency: z.optional(z.string().check(z.regex(/^[A-Z]{3}$/, "ISO 4217 code"))),
  purpose: z.optional(z.nullable(Text(MAX_PURPOSE * 2))),
  costCenterOid: OptOid,
  GLOid: OptOid,
  projectOid: OptOid,
  vendor: z.optional(z.nullable(Text(MAX_VENDOR))),
  url: z.optional(z.nullable(Text(MAX_URL))),
  budget: z.optional(z.nullable(BudgetPlanBody)),
});
export type CreateBody = z.infer<typeof CreateBody>;

/**
 * spec §2 edit request: purpose, cost center, GL code, project code. A draft (status new)
 * edits everything creation offers: account, type, amount or budget, currency, vendor and
 * url too (a field left out keeps its value).
 */
export const EditBody = z.object({
  oid: Oid,
  archive: z.optional(z.boolean()),
  purpose: z.optional(z.nullable(Text(MAX_PURPOSE * 2))),
  costCenterOid: OptOid,
  GLOid: OptOid,
  projectOid: OptOid,
  accountOid: OptOid,
  typeOid: OptOid,
  amount: z.optional(z.nullable(z.number())),
  pricingCurrency: z.optional(z.string().check(z.regex(/^[A-Z]{3}$/, "ISO 4217 code"))),
  vendor: z.optional(z.nullable(Text(MAX_VENDOR))),
  url: z.optional(z.nullable(Text(MAX_URL))),
  budget: z.optional(z.nullable(BudgetPlanBody)),
});
export type EditBody = z.infer<typeof EditBody>;

/** A new comment (requests, approvals): 1 to 1000 characters after trimming. */
export const CommentBody = z.object({
  oid: Oid,
  archive: z.optional(z.boolean()),
  comment: z.string().check(z.trim(), z.minLength(1, "comment is empty"), z.maxLength(1000)),
});
/**
 * spec §7 comment upload: POST to a URL the server supplies {oid, entityType 'expense',
 * record, id, archive, comment}. Used when pwaexpensecomments names `commentUploadUrl`
 * (an upstream in relay mode); otherwise comments go through pwaaddcomment.
 */
export const CommentUploadBody = z.object({
  oid: Oid,
  entityType: z.literal("expense"),
  record: Oid,
  id: z.string().check(z.maxLength(64)),
  archive: z.boolean(),
  comment: z.string().check(z.trim(), z.minLength(1, "comment is empty"), z.maxLength(1000)),
});
export type CommentUploadBody = z.infer<typeof CommentUploadBody>;

/**
 * The supplied comment upload URL as the client may call it: a plain path of our origin
 * under /bonita/ (letters, digits, '_', '-', '/'; no dots, no query, no other origin), so
 * it stays on the relay's paths and under the CSP. Anything else: null (not used).
 */
export function commentUploadPath(url: string | null | undefined): string | null {
  if (!url || url.length > 200) return null;
  return /^\/bonita(\/[A-Za-z0-9_-]+)+$/.test(url) ? url : null;
}
