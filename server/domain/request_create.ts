import type { CreateBody } from "../../client/shared/contract/request_bodies.ts";
import type { TranslationKey } from "../../client/shared/i18n/locales/en.ts";
import { budgetTotal, checkPlan, generateBudget } from "../../client/shared/budget.ts";
import {
  checkCreate,
  normaliseVendorUrl,
  violationParams,
} from "../../client/shared/request_rules.ts";
import { formatMoney } from "../../client/shared/intl.ts";
import { conflict, forbidden } from "../errors.ts";
import type { Deps } from "./env.ts";
import { translate } from "../i18n.ts";
import { IdsExhausted } from "../store/ids.ts";
import type { OrgAccount, OrgCurrency } from "../store/org.ts";
import type { RequestRecord } from "../store/requests.ts";
import type { User } from "../store/users.ts";
import { broken, resolveCodes, RETRIES, type Tr } from "./request_checks.ts";
import { typeOf } from "./request_views.ts";
import { hasMissingReceipts } from "./transactions.ts";

// Creating a request (spec §5 create rules, §7 pwacheckcancreaterequest and
// pwaexpenserequestcreate); its later changes are in requests.ts.

/** spec §5 'creation also requires canRequest true and a create-check returning 1'. */
export async function createCheck(
  deps: Deps,
  user: User,
): Promise<{ key: TranslationKey; status: 403 | 422 } | null> {
  if (!user.canRequest) return { key: "request.cannotRequest", status: 403 };
  if (await hasMissingReceipts(deps, user.oid)) {
    return { key: "request.missingReceipts", status: 422 };
  }
  return null;
}

/** What a request's §5 create rules produce: every field a draft holds. */
export type DraftFields = Pick<
  RequestRecord,
  | "accountOid"
  | "typeOid"
  | "purpose"
  | "costCenterOid"
  | "costCenter"
  | "GLOid"
  | "GLCode"
  | "projectOid"
  | "projectCode"
  | "vendor"
  | "url"
  | "amount"
  | "currency"
  | "budgetPlan"
  | "budget"
>;

/**
 * spec §5 create rules (type, amount or budget, purpose, url, currency, optional codes
 * that must belong to the type), applied to a new request and to every edit of a draft:
 * a draft edits everything creation offers, by creation's rules.
 */
export async function draftFields(deps: Deps, tr: Tr, body: CreateBody): Promise<DraftFields> {
  const { org } = deps.store;
  const type = body.typeOid ? await typeOf(deps, body.typeOid) : null;
  if (body.typeOid && !type) throw broken(tr, "request.typeUnknown");
  const accountOid = body.accountOid || type?.accountOid;
  const account = accountOid ? await org.get<OrgAccount>("account", accountOid) : null;
  if (accountOid && !account) throw broken(tr, "request.accountUnknown");
  if (type && account && type.accountOid !== account.oid) {
    throw broken(tr, "request.typeAccountMismatch");
  }

  let budget: RequestRecord["budget"] = [];
  let amount = body.amount ?? null;
  if (body.budget) {
    if (type && !type.allowBudget && !type.isRecurring) {
      throw broken(tr, "request.budgetNotAllowed");
    }
    const planProblem = checkPlan(body.budget);
    if (planProblem) throw broken(tr, planProblem);
    budget = generateBudget(body.budget);
    amount = budgetTotal(budget);
  }
  const v = checkCreate({
    typeOid: body.typeOid,
    amount,
    purpose: body.purpose,
    hasBudget: budget.length > 0,
    url: body.url,
  }, type);
  const currency = body.pricingCurrency ?? account?.currency ?? "EUR";
  if (v) {
    throw broken(tr, v.key, violationParams(v, (n) => formatMoney(n, currency, tr.locale)));
  }

  if (!(await org.get<OrgCurrency>("currency", currency))) {
    throw broken(tr, "request.currencyUnknown");
  }
  const codes = await resolveCodes(
    deps,
    tr,
    type!,
    body.costCenterOid,
    body.GLOid,
    body.projectOid,
  );
  return {
    accountOid: account!.oid,
    typeOid: type!.oid,
    purpose: body.purpose!.trim(),
    ...codes,
    vendor: (body.vendor ?? "").trim(),
    url: normaliseVendorUrl(body.url ?? "") ?? "",
    amount: amount!,
    currency,
    budgetPlan: body.budget ?? null,
    budget,
  };
}

/** spec §7 pwaexpenserequestcreate: every §5 rule, budget rebuilt here, status new. */
/**
 * What the organisation file removed but an open request still names is archived:
 * shown on that request, never chosen for a new one.
 */
async function refuseArchived(deps: Deps, tr: Tr, f: DraftFields): Promise<void> {
  const { org } = deps.store;
  const checks: [string, string | null, TranslationKey][] = [
    ["rtype", f.typeOid, "request.typeUnknown"],
    ["account", f.accountOid, "request.accountUnknown"],
    ["currency", f.currency, "request.currencyUnknown"],
    ["costcenter", f.costCenterOid, "request.costCenterNotAllowed"],
    ["ledger", f.GLOid, "request.codesMismatch"],
    ["project", f.projectOid, "request.codesMismatch"],
  ];
  const named = checks.filter(([, key]) => key);
  const live = await org.live(named.map(([collection, key]) => [collection, key!]));
  const gone = named.find((_, i) => !live[i]);
  if (gone) throw broken(tr, gone[2]);
}

export async function createRequest(
  deps: Deps,
  user: User,
  body: CreateBody,
): Promise<RequestRecord> {
  const tr = await translate(user.locale);
  const denied = await createCheck(deps, user);
  if (denied) {
    throw denied.status === 403
      ? forbidden("cannot_request", tr(denied.key))
      : broken(tr, denied.key);
  }
  const fields = await draftFields(deps, tr, body);
  await refuseArchived(deps, tr, fields);
  const now = deps.now();
  const base: Omit<RequestRecord, "id"> = {
    oid: crypto.randomUUID(),
    authorOid: user.oid,
    ...fields,
    status: "new",
    issueDate: now,
    approvalOid: null,
    hasCard: false,
    openCard: false,
    cardStatusCode: null,
    approverNote: null,
    archive: false,
    updatedAt: now,
  };
  const { requests, kv } = deps.store;
  // One id for this request, whatever happens below; no shared key is read or checked here,
  // so concurrent creates do not refuse each other (ids.ts).
  let id: string;
  try {
    id = await requests.nextId();
  } catch (e) {
    if (e instanceof IdsExhausted) throw conflict(tr("request.busy"));
    throw e;
  }
  for (let i = 0; i < RETRIES; i++) {
    // A fresh oid on each try: the check below refuses only an oid already taken.
    const rec: RequestRecord = { ...base, oid: i ? crypto.randomUUID() : base.oid, id };
    const op = kv.atomic().check({ key: requests.key(user.oid, rec.oid), versionstamp: null });
    if ((await requests.put(op, rec).commit()).ok) {
      await deps.events.publish({
        type: "request.created",
        userOid: user.oid,
        requestOid: rec.oid,
      });
      return rec;
    }
  }
  throw conflict(tr("request.busy"));
}
