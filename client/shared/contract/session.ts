import * as z from "zod/mini";
import { endpoint } from "./endpoint.ts";
import { sessionRoutes as R } from "./routes.ts";
import { ExpenseRow } from "./requests.ts";
import { sessionStart, Settings } from "./session_start.ts";
import { TransactionRow } from "./transactions.ts";

// spec §7 'Registration and session'. Field names are the spec's; response shapes are ours.
// pwalists here, every other call in session_start.ts (built without the lists' schemas).

export { Pin6, Settings, Token, VerificationCode } from "./session_start.ts";

const { initialize, appcolor, translation, ...rest } = sessionStart;

export const session = {
  initialize,
  appcolor,
  translation,
  lists: endpoint({
    ...R.lists,
    response: z.extend(Settings, {
      expenses: z.object({ expenseslist: z.array(ExpenseRow) }),
      transactions: z.object({ receiptslist: z.array(TransactionRow) }),
      username: z.string(),
      fname: z.string(),
      lname: z.string(),
      canRequest: z.boolean(),
      /** A member of a finance team (docs/export.md): the menu offers the accounting export. */
      finance: z.optional(z.boolean()),
    }),
  }),
  ...rest,
};
