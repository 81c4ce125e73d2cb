import { Hono } from "hono";
import type * as z from "zod/mini";
import { session, Settings as SettingsSchema } from "../../client/shared/contract/session.ts";
import type { AppEnv } from "../domain/env.ts";
import { withCardAmounts } from "../domain/cards.ts";
import { financeScope } from "../domain/finance.ts";
import { listRows } from "../domain/request_views.ts";
import { overdueDaysOf, transactionRows } from "../domain/transactions.ts";
import { pickLocale } from "../i18n.ts";
import { readUserLists } from "../store/user_lists.ts";
import { route } from "./define.ts";

type Settings = z.infer<typeof SettingsSchema>;

/**
 * The phone's lists (spec §7 pwalists): the person's requests and card transactions with the
 * organisation's settings, in one answer; and the tokenless variant an unactivated device may
 * read (settings only, no user data).
 */
export function listRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  route(app, session.lists, async ({ c, auth }) => {
    const { deps } = c.var;
    const u = auth!.user;
    // The organisation and both lists in one store read (cached lists: versions only).
    const { meta, requests, transactions, orgVersion } = await readUserLists(deps.store, u.oid);
    const [expenseslist, receiptslist] = await Promise.all([
      // The organisation's words in the language the app shows (Accept-Language), else the user's.
      listRows(deps, u, requests, pickLocale(c.req.header("accept-language"), u.locale))
        .then((rows) => withCardAmounts(deps, u, rows, requests)),
      transactionRows(deps, u, { recs: transactions, days: overdueDaysOf(meta) }),
    ]);
    return {
      ...settingsOf(meta?.settings),
      expenses: { expenseslist },
      transactions: { receiptslist },
      username: u.email,
      fname: u.fname,
      lname: u.lname,
      canRequest: u.canRequest,
      finance: (await financeScope(deps, u, orgVersion)) !== null,
    };
  });

  route(app, session.publicLists, async ({ c }) => ({
    ...settingsOf((await c.var.deps.store.org.meta())?.settings),
    expenses: { expenseslist: [] },
    transactions: { receiptslist: [] },
    canRequest: false as const,
  }));
  return app;
}

/** The settings part of the pwalists answer, with defaults for an organisation not yet loaded. */
function settingsOf(s: Settings | undefined): Settings {
  return {
    vatMode: s?.vatMode ?? "simple",
    accountingCodeEnabled: s?.accountingCodeEnabled ?? "false",
    typeEnabled: s?.typeEnabled ?? "true",
    limitReceiptAttachementFormat: s?.limitReceiptAttachementFormat ?? false,
  };
}
