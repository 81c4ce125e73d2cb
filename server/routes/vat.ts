import { type Context, Hono } from "hono";
import { vat } from "../../client/shared/contract/vat.ts";
import type { AppEnv, AuthContext } from "../domain/env.ts";
import { pickLocale } from "../i18n.ts";
import { accountingCodes, receiptTypes, review, setDoTax, vatCodes } from "../domain/vat.ts";
import { route } from "./define.ts";

/**
 * VAT and accounting of card transactions (spec §7 pwavatcodes, pwaaccountingcodes,
 * pwareceipttypes, pwasetreceiptdotax, pwaupdatereviewedtransactions). The rules are in
 * server/domain/vat.ts.
 */
export function vatRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // The organisation's words in the language the app shows (Accept-Language), else the user's.
  const lang = (c: Context<AppEnv>, auth: AuthContext | null) =>
    pickLocale(c.req.header("accept-language"), auth?.user.locale);
  route(app, vat.vatCodes, async ({ c, query, auth }) => ({
    vatcodes: await vatCodes(c.var.deps, query.countryid, lang(c, auth)),
  }));
  route(app, vat.accountingCodes, async ({ c, auth }) => ({
    accountingcodes: await accountingCodes(c.var.deps, lang(c, auth)),
  }));
  route(app, vat.receiptTypes, async ({ c, auth }) => ({
    receipttypes: await receiptTypes(c.var.deps, lang(c, auth)),
  }));
  route(app, vat.setDoTax, async ({ c, query, auth }) => ({
    transaction: await setDoTax(c.var.deps, auth!.user, query.oid, query.dotax),
  }));
  route(app, vat.review, async ({ c, body, auth }) => ({
    transactions: await review(c.var.deps, auth!.user, body.transactions),
  }));
  return app;
}
