import type { CreateBody, EditBody } from "../../client/shared/contract/request_bodies.ts";
import { checkEdit } from "../../client/shared/request_rules.ts";
import type { Deps } from "./env.ts";
import { translate } from "../i18n.ts";
import type { ApprovalRecord } from "../store/approvals.ts";
import type { RequestRecord } from "../store/requests.ts";
import type { User } from "../store/users.ts";
import { broken, resolveCodes, type Tr } from "./request_checks.ts";
import { typeOf } from "./request_views.ts";
import { draftFields } from "./request_create.ts";

// The rules of an edit (spec §4, §5): the fields it changes, and what an approver's reissue
// leaves behind (the levels they may no longer vote on, the request's note of it).

/** The draft as the edit leaves it, in the create form's terms. */
function asDraft(r: RequestRecord, e: EditBody): CreateBody {
  const keep = <K extends keyof EditBody>(k: K, v: EditBody[K]) => (k in e ? e[k] : v);
  return {
    accountOid: keep("accountOid", r.accountOid),
    typeOid: keep("typeOid", r.typeOid),
    // A budget plan given (or kept) decides the amount, as at creation.
    amount: keep("amount", r.amount),
    pricingCurrency: keep("pricingCurrency", r.currency),
    purpose: keep("purpose", r.purpose),
    costCenterOid: keep("costCenterOid", r.costCenterOid),
    GLOid: keep("GLOid", r.GLOid),
    projectOid: keep("projectOid", r.projectOid),
    vendor: keep("vendor", r.vendor),
    url: keep("url", r.url),
    budget: keep("budget", r.budgetPlan),
  };
}

/**
 * An edit's new fields. A draft (status new, edited by its author) edits everything creation
 * offers, by creation's rules (spec §5 create: codes optional); a field the body leaves out
 * keeps its value. A submitted request edits purpose and codes, and spec §5's "project, GL
 * and cost center must be set" applies.
 */
export async function checkedEdit(
  deps: Deps,
  tr: Tr,
  r: RequestRecord,
  e: EditBody,
  asApprover = false,
): Promise<Partial<RequestRecord>> {
  if (r.status === "new" && !asApprover) return await draftFields(deps, tr, asDraft(r, e));
  const v = checkEdit(e);
  if (v) throw broken(tr, v.key, v.params);
  const type = await typeOf(deps, r.typeOid);
  if (!type) throw broken(tr, "request.typeUnknown");
  const codes = await resolveCodes(deps, tr, type, e.costCenterOid, e.GLOid, e.projectOid);
  return { ...codes, purpose: e.purpose!.trim() };
}

/**
 * The levels an approver may no longer vote on after their edit reissued `a`: every level
 * decided in it (a vote cast, or approved), and whatever they were barred from before.
 */
export function barredAfter(a: ApprovalRecord, userOid: string): ApprovalRecord["barred"] {
  const decided = new Set(a.votes.map((v) => v.level));
  for (const l of a.levels) if (l.statusCode === "approved") decided.add(l.level);
  const out = [...(a.barred ?? [])];
  for (const level of decided) {
    if (!out.some((b) => b.userOid === userOid && b.level === level)) out.push({ userOid, level });
  }
  return out;
}

/** The request's record of an approver's reissue (spec §4): who, which approval, and why. */
export async function reissueNote(
  deps: Deps,
  before: RequestRecord,
  after: RequestRecord,
  a: ApprovalRecord,
  editor: User,
): Promise<string> {
  const author = await deps.store.users.get(before.authorOid);
  const t = await translate(author?.locale ?? editor.locale);
  const changed: string[] = [];
  if (after.costCenterOid !== before.costCenterOid) {
    changed.push(`${t("approval.costCenter")}: ${before.costCenter} → ${after.costCenter}`);
  }
  if (after.typeOid !== before.typeOid) changed.push(t("approval.type"));
  if (after.amount !== before.amount) {
    changed.push(`${t("approval.amount")}: ${before.amount} → ${after.amount}`);
  }
  return t("approval.reissuedNote", {
    name: `${editor.fname} ${editor.lname}`,
    id: a.id,
    changes: changed.join("; "),
  });
}
