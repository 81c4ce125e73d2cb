import type * as z from "zod/mini";
import type { session as Contract } from "../shared/contract/session.ts";
import { sessionCalls as session, sessionContract } from "../api/session_calls.ts";
import { ApiError, call, NetworkError } from "../api/http.ts";
import { t } from "../i18n/index.ts";
import { accounting } from "../state/receipts.ts";
import { fromCache, profile } from "../state/session.ts";
import { dropBanners, pushBanner } from "../state/ui.ts";
import { readCache, writeCache } from "./cache.ts";
import { messageOf } from "./messages.ts";
import { refreshEveryList, registerList, startChanges, stopChanges } from "./changes.ts";

// The session's lists (spec §1 cache first, §2 lists, §4 automatic mode switch): pwalists (the
// requests' rows and the transactions) is read here; the other list models — approvals — are
// handed over when unlocked (`openLists`). What refreshes a list after unlock is the change
// registry (actions/changes.ts): the server's stream, this phone's writes and the offline
// queue's replays all go through it; this module imports no entity action (only the row
// appliers, lazily).

/** A list model beside pwalists: what it does when a session opens, refreshes or ends. */
export interface ListModel {
  /** At unlock, beside pwalists (cache first). */
  open?(): Promise<void>;
  /** Once pwalists and every model's `open` are in (spec §4: the automatic mode switch). */
  settled?(): void;
  /** Logout and wipe: nothing of the session stays in memory. */
  reset?(): void;
}

const models: ListModel[] = [];

// pwalists in the change registry: requests, cards (on their requests), transactions and the
// receipt counts on their rows.
registerList({
  name: "pwalists",
  kinds: ["request", "transaction", "receipt"],
  refresh: () => refreshLists({ networkFirst: true }),
});

/** The session's answer to a refused token (client/actions/session.ts registers it). */
let refused: () => Promise<void> = async () => {};

export function onListsRefused(fn: () => Promise<void>): void {
  refused = fn;
}

/** QCDB `lists` key of pwalists (its transactions are under their own keys). */
const LISTS_KEY = "pwalists";
/**
 * The lists' code (rows, transactions cache): not needed to type a PIN, so it is left out of
 * the first load and fetched with the lists (the main screen's chunk has it by then).
 */
const requestRows = () => import("./request_rows.ts");
const transactionLists = () => import("./transaction_lists.ts");

type Lists = z.infer<typeof Contract.lists.response>;

function showLists(
  data: Lists,
  showRequests: (rows: Lists["expenses"]["expenseslist"]) => void,
): void {
  profile.value = {
    username: data.username,
    fname: data.fname,
    lname: data.lname,
    canRequest: data.canRequest,
    finance: data.finance ?? false,
  };
  accounting.value = {
    vatMode: data.vatMode,
    accountingCodeEnabled: data.accountingCodeEnabled,
    typeEnabled: data.typeEnabled,
    limitReceiptAttachementFormat: data.limitReceiptAttachementFormat,
  };
  showRequests(data.expenses.expenseslist);
}

/**
 * pwalists, cache first; `networkFirst` after a write, whose result is already on screen.
 * Its transactions are cached under their own keys (actions/transaction_lists.ts): the
 * newest ones are shown with the requests, every one right after the first paint.
 */
export async function refreshLists(
  opts: { networkFirst?: boolean; after?: Promise<void> } = {},
): Promise<void> {
  let fresh = false;
  // Marks read by `deno task bench` (Requests and Transactions from cache).
  if (!opts.networkFirst) performance.mark("qc:lists:cache-read");
  const modules = Promise.all([requestRows(), transactionLists(), sessionContract()]);
  const fromCached = async (): Promise<void> => {
    const [{ showRequests }, txl, contract] = await modules;
    const [data, head] = await Promise.all([
      readCache("lists", LISTS_KEY, contract.lists.response),
      txl.readCachedHead(),
    ]);
    if (!data || fresh) return;
    performance.mark("qc:lists:cache-shown");
    showLists(data, showRequests);
    // A cache written before transactions had their own keys still has them inline.
    if (head) txl.showTransactions(head.rows, head.attention);
    else txl.showTransactions(data.transactions.receiptslist);
    if (head) txl.afterPaint(() => void txl.showAllCachedTransactions(() => fresh));
  };
  try {
    if (!opts.networkFirst) await fromCached();
    // The change stream's first answer, when one is opening: a change after it is not missed.
    await opts.after;
    try {
      const [data, [{ showRequests }, txl]] = await Promise.all([call(session.lists), modules]);
      fresh = true;
      // The server answers again: 'offline' and 'could not be reached' messages are stale.
      dropBanners([t("common.offline"), t("common.networkError")]);
      showLists(data, showRequests);
      txl.showTransactions(data.transactions.receiptslist);
      fromCache.value = false;
      await Promise.all([
        writeCache("lists", LISTS_KEY, {
          ...data,
          transactions: { receiptslist: [] },
        }),
        txl.writeCachedTransactions(data.transactions.receiptslist),
      ]);
    } catch (err) {
      if (!(err instanceof NetworkError)) throw err;
      if (opts.networkFirst) await fromCached();
      fromCache.value = true;
      pushBanner(t("common.offline"));
    }
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return await refused();
    pushBanner(messageOf(err));
  }
}

/**
 * Unlocked: the change stream opens, pwalists (cache first, then the network once the stream
 * has answered) and, once `loaded`, the other models (they register their lists with the
 * change registry) are opened; then the models settle (spec §2/§4: the automatic mode switch
 * once both lists are in). pwalists does not wait for the models' code.
 */
export async function openLists(loaded: Promise<ListModel[]>): Promise<void> {
  const after = startChanges({ fresh: true });
  const others = loaded.then(async (ms) => {
    models.splice(0, models.length, ...ms);
    await after;
    await Promise.all(models.map((m) => m.open?.()));
  });
  await Promise.allSettled([refreshLists({ after }), others]);
  await loaded.catch(() => {});
  for (const m of models) m.settled?.();
}

/** The header's refresh and pull-to-refresh: every list from the network. */
export async function refreshAll(): Promise<void> {
  await refreshEveryList();
}

/** Logout and wipe: the stream ends, every list model forgets this session's data. */
export function resetLists(): void {
  stopChanges();
  void requestRows().then((m) => m.resetRequests()).catch(() => {/* nothing was listed */});
  for (const m of models) m.reset?.();
  models.length = 0;
}
