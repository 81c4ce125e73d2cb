import { Hono } from "hono";
import { EXPORT_PATH, exports } from "../../client/shared/contract/export.ts";
import type { AppEnv } from "../domain/env.ts";
import { requireBearer } from "../middleware/auth.ts";
import { requireFinance } from "../domain/finance.ts";
import { labelIn } from "../org/labels.ts";
import { pickLocale } from "../i18n.ts";
import type { OrgAccount } from "../store/org.ts";
import { exportAccounting } from "../export/run.ts";
import { readJson, route } from "./define.ts";

/**
 * The accounting export (docs/export.md): the file by hand (it streams, it is not JSON) and
 * its records through the contract. Both for finance users only: 403 for anyone else, before
 * anything is read or written.
 */
export function exportRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post(EXPORT_PATH, async (c) => {
    const { user } = await requireBearer(c);
    const { deps } = c.var;
    const scope = await requireFinance(deps, user);
    const body = await readJson(c);
    const locale = pickLocale(c.req.header("accept-language"), user.locale);
    const name = `${user.fname} ${user.lname}`.trim() || user.email;
    const file = await exportAccounting(deps, { oid: user.oid, name, locale, scope }, body);
    return c.body(file.body, 200, {
      "Content-Type": file.type,
      "Content-Disposition": `attachment; filename="${file.name}"`,
      // no-transform: the compression middleware would read the whole file to compress it
      // (and finish the export before a byte left); the API's no-store is set again after it.
      "Cache-Control": "no-store, no-transform",
      "X-Export-Id": file.id,
    });
  });
  route(app, exports.exports, async ({ c, auth }) => {
    const { deps } = c.var;
    const scope = await requireFinance(deps, auth!.user);
    const lang = pickLocale(c.req.header("accept-language"), auth!.user.locale);
    const accounts = (await deps.store.org.list<OrgAccount>("account"))
      .filter((a) => !scope.accounts || scope.accounts.has(a.oid))
      .map((a) => ({ oid: a.oid, label: labelIn(a.label, lang), currency: a.currency }));
    const recent = (await deps.store.exports.recent())
      .filter((r) =>
        !scope.accounts || r.byOid === auth!.user.oid ||
        (r.accountOid && scope.accounts.has(r.accountOid))
      )
      .map(({ v: _v, byOid: _b, finishedAt: _f, ...r }) => r);
    return { accounts, exports: recent };
  });
  return app;
}
