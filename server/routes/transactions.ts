import { Hono } from "hono";
import { transactions } from "../../client/shared/contract/transactions.ts";
import type { AppEnv } from "../domain/env.ts";
import { addTransactionComment, listTransactionComments } from "../domain/comments.ts";
import { flip } from "../domain/flip.ts";
import { listDocuments } from "../domain/documents.ts";
import { transactionView } from "../domain/transactions.ts";
import { route } from "./define.ts";

/**
 * Card transactions (embedded backend): one transaction with every spec §3 field,
 * and spec §7 pwaflip. The list travels in pwalists (transactions.receiptslist).
 */
export function transactionRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  route(app, transactions.transaction, async ({ c, query, auth }) => {
    const [transaction, { documents }] = await Promise.all([
      transactionView(c.var.deps, auth!.user, query.oid),
      listDocuments(c.var.deps, auth!.user, query.oid),
    ]);
    // spec §3 Transaction `documents`: its receipts' and other documents.
    return { transaction: { ...transaction, documents } };
  });
  route(
    app,
    transactions.flip,
    async ({ c, body, auth }) => await flip(c.var.deps, auth!.user, body),
  );
  route(app, transactions.comments, async ({ c, query, auth }) => ({
    comments: await listTransactionComments(c.var.deps, auth!.user, query.oid),
  }));
  route(app, transactions.addComment, async ({ c, body, auth }) => ({
    comment: await addTransactionComment(c.var.deps, auth!.user, body.oid, body.comment),
  }));
  return app;
}
