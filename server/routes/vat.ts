import { Hono } from "hono";
import { vat } from "../../client/api/contract/vat.ts";
import type { AppEnv } from "../env.ts";
import { accountingCodes, receiptTypes, review, setDoTax, vatCodes } from "../domain/vat.ts";
import { route } from "./define.ts";

/**
 * VAT and accounting of card transactions (issue 12; spec §7 pwavatcodes, pwaaccountingcodes,
 * pwareceipttypes, pwasetreceiptdotax, pwaupdatereviewedtransactions). The rules are in
 * server/domain/vat.ts.
 */
export function vatRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  route(app, vat.vatCodes, async ({ c, query }) => ({
    vatcodes: await vatCodes(c.var.deps, query.countryid),
  }));
  route(app, vat.accountingCodes, async ({ c }) => ({
    accountingcodes: await accountingCodes(c.var.deps),
  }));
  route(app, vat.receiptTypes, async ({ c }) => ({
    receipttypes: await receiptTypes(c.var.deps),
  }));
  route(app, vat.setDoTax, async ({ c, query, auth }) => ({
    transaction: await setDoTax(c.var.deps, auth!.user, query.oid, query.dotax),
  }));
  route(app, vat.review, async ({ c, body, auth }) => ({
    transactions: await review(c.var.deps, auth!.user, body.transactions),
  }));
  return app;
}
