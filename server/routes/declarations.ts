import { Hono } from "hono";
import { declarations } from "../../client/shared/contract/declarations.ts";
import type { AppEnv } from "../domain/env.ts";
import {
  decideDeclaration,
  declarationReviews,
  declare,
  receiptChecks,
  withdraw,
} from "../domain/declarations.ts";
import { route } from "./define.ts";

/**
 * "No receipt" declarations (spec §5 missing receipts): the holder declares and withdraws on
 * their own transaction; an approver of the card's request reads and decides. The rules are
 * in server/domain/declarations.ts.
 */
export function declarationRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  route(app, declarations.declare, async ({ c, body, auth }) => ({
    transaction: await declare(c.var.deps, auth!.user, body),
  }));
  route(app, declarations.withdraw, async ({ c, body, auth }) => ({
    transaction: await withdraw(c.var.deps, auth!.user, body.oid),
  }));
  route(app, declarations.reviews, async ({ c, query, auth }) => ({
    reviews: await declarationReviews(c.var.deps, auth!.user, query.approval),
  }));
  route(app, declarations.receiptChecks, async ({ c, query, auth }) => ({
    checks: await receiptChecks(c.var.deps, auth!.user, query.approval),
  }));
  route(app, declarations.decide, async ({ c, body, auth }) => ({
    review: await decideDeclaration(c.var.deps, auth!.user, body.oid, body.approve),
  }));
  return app;
}
