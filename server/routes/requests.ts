import { type Context, Hono } from "hono";
import { requests } from "../../client/shared/contract/requests.ts";
import type { AppEnv, AuthContext } from "../domain/env.ts";
import { forbidden, notFound } from "../errors.ts";
import { pickLocale, translate } from "../i18n.ts";
import { labelIn, labelMap } from "../org/labels.ts";
import type {
  OrgAccount,
  OrgCode,
  OrgCostCenter,
  OrgCountry,
  OrgCurrency,
  OrgType,
} from "../store/org.ts";
import { addComment, deleteComment, listComments } from "../domain/comments.ts";
import { editAsApprover } from "../domain/approvals.ts";
import { createCheck, createRequest } from "../domain/request_create.ts";
import {
  cancelRequest,
  checkNeedRecreate,
  closeRequest,
  modifyRequest,
  submitRequest,
} from "../domain/requests.ts";
import { approvalTeams, ownRequest, toEntity } from "../domain/request_views.ts";
import { route } from "./define.ts";

/** A code with its label in `lang` and, when the organisation gave several, all of them. */
const code = (lang: string) => (c: OrgCode) => ({
  oid: c.oid,
  value: c.value,
  label: labelIn(c.label, lang),
  labels: labelMap(c.label),
});
const byLabel = <T extends { label: string }>(a: T, b: T) => a.label.localeCompare(b.label);
/** The organisation's words in the language the app shows (Accept-Language), else the user's. */
const langOf = (c: Context<AppEnv>, auth: AuthContext | null) =>
  pickLocale(c.req.header("accept-language"), auth?.user.locale);

/** spec §7: expense requests, their lookups and comments (embedded backend). */
export function requestRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const one = async (c: Context<AppEnv>, r: Parameters<typeof toEntity>[1]) => ({
    expenseRequest: await toEntity(c.var.deps, r, r.authorOid, langOf(c, c.var.auth ?? null)),
  });

  // Lookups (spec §2 field selector). They are organisation data, readable by any member.
  route(app, requests.accounts, async ({ c, auth }) => ({
    accounts: (await c.var.deps.store.org.list<OrgAccount>("account"))
      .map((a) => ({
        oid: a.oid,
        value: a.value,
        label: labelIn(a.label, langOf(c, auth)),
        labels: labelMap(a.label),
        currency: a.currency,
      }))
      .sort(byLabel),
  }));

  route(app, requests.types, async ({ c, query, auth }) => ({
    types: (await c.var.deps.store.org.list<OrgType>("rtype"))
      .filter((t) => !query.accountoid || t.accountOid === query.accountoid)
      .sort((a, b) => a.rowId - b.rowId)
      .map((t) => ({
        oid: t.oid,
        accountOid: t.accountOid,
        rowId: t.rowId,
        id: t.id,
        description: labelIn(t.description, langOf(c, auth)),
        descriptions: labelMap(t.description),
        minAmount: t.minAmount,
        maxAmount: t.maxAmount,
        isRecurring: t.isRecurring,
        requireRejectNote: t.requireRejectNote,
        allowBudget: t.allowBudget,
      })),
  }));

  route(app, requests.costCenters, async ({ c, query, auth }) => {
    const { org } = c.var.deps.store;
    const type = query.oid ? await org.get<OrgType>("rtype", query.oid) : null;
    if (query.oid && !type) throw notFound();
    const all = await org.list<OrgCostCenter>("costcenter");
    return {
      costcenters: all
        .filter((cc) => !type?.costCenterOids || type.costCenterOids.includes(cc.oid))
        .map(code(langOf(c, auth))).sort(byLabel),
    };
  });

  /** GL codes and projects of one cost center (spec §4: they depend on it). */
  const codesOf =
    (kind: "ledger" | "project") =>
    async (c: Context<AppEnv>, auth: AuthContext | null, ccoid: string) => {
      const { org } = c.var.deps.store;
      const cc = await org.get<OrgCostCenter>("costcenter", ccoid);
      if (!cc) throw notFound();
      const oids = kind === "ledger" ? cc.ledgerOids : cc.projectOids;
      const out: ReturnType<ReturnType<typeof code>>[] = [];
      for (const oid of oids) {
        const x = await org.get<OrgCode>(kind, oid);
        if (x) out.push(code(langOf(c, auth))(x));
      }
      return out.sort(byLabel);
    };
  const ledgersOf = codesOf("ledger");
  const projectsOf = codesOf("project");
  route(
    app,
    requests.ledgers,
    async ({ c, query, auth }) => ({ ledgers: await ledgersOf(c, auth, query.ccoid) }),
  );
  route(app, requests.projectCodes, async ({ c, query, auth }) => ({
    projectcodes: await projectsOf(c, auth, query.ccoid),
  }));

  route(app, requests.currencies, async ({ c }) => ({
    currencylist: (await c.var.deps.store.org.list<OrgCurrency>("currency"))
      .map((x) => ({ value: x.value, label: x.label, symbol: x.symbol })),
  }));

  route(app, requests.countries, async ({ c }) => ({
    countrylist: (await c.var.deps.store.org.list<OrgCountry>("country"))
      .map((x) => ({ name: x.name, label: x.label, value: x.id, selected: false }))
      .sort((a, b) => a.name.localeCompare(b.name)),
  }));

  route(app, requests.userFullName, async ({ c, query }) => {
    const u = await c.var.deps.store.users.get(query.author);
    if (!u) throw notFound();
    return { fullname: `${u.fname} ${u.lname}` };
  });

  // Requests.
  route(app, requests.canCreate, async ({ c, auth }) => {
    const denied = await createCheck(c.var.deps, auth!.user);
    if (!denied) return { result: 1 as const, message: null };
    return { result: 0 as const, message: (await translate(auth!.user.locale))(denied.key) };
  });

  route(app, requests.entity, async ({ c, query, auth }) => {
    return await one(c, await ownRequest(c.var.deps, auth!.user, query.record));
  });

  route(app, requests.create, async ({ c, body, auth }) => {
    return await one(c, await createRequest(c.var.deps, auth!.user, body.expenseRequest));
  });

  route(app, requests.submit, async ({ c, body, auth }) => {
    return await one(c, await submitRequest(c.var.deps, auth!.user, body.record));
  });

  route(app, requests.checkNeedRecreate, async ({ c, body, auth }) => ({
    sameAP: await checkNeedRecreate(c.var.deps, auth!.user, body.expenseRequest),
  }));

  route(app, requests.reissueApproval, async ({ c, body, auth }) => {
    const { deps } = c.var;
    const e = body.expenseRequest;
    // The author reissues their own request; an approver edits one they may decide on.
    const owner = await deps.store.requests.owner(e.oid);
    return await one(
      c,
      owner && owner !== auth!.user.oid
        ? await editAsApprover(deps, auth!.user, e, owner)
        : await modifyRequest(deps, auth!.user, e, "reissue"),
    );
  });

  route(app, requests.modify, async ({ c, body, auth }) => {
    return await one(c, await modifyRequest(c.var.deps, auth!.user, body.record, "modify"));
  });

  route(app, requests.cancel, async ({ c, body, auth }) => {
    return await one(c, await cancelRequest(c.var.deps, auth!.user, body.oid));
  });

  route(app, requests.close, async ({ c, body, auth }) => {
    return await one(c, await closeRequest(c.var.deps, auth!.user, body.oid));
  });

  route(app, requests.approvals, async ({ c, query, auth }) => {
    const r = await ownRequest(c.var.deps, auth!.user, query.oid);
    return { approvals: await approvalTeams(c.var.deps, r) };
  });

  // Comments.
  route(app, requests.comments, async ({ c, query, auth }) => ({
    comments: await listComments(c.var.deps, auth!.user, query.oid),
  }));

  route(app, requests.addComment, async ({ c, body, auth }) => ({
    comment: await addComment(c.var.deps, auth!.user, body.oid, body.comment),
  }));

  route(app, requests.deleteComment, async ({ c, query, auth }) => {
    await deleteComment(c.var.deps, auth!.user, query.record);
    return { status: "OK" as const };
  });

  return app;
}

export { forbidden };
