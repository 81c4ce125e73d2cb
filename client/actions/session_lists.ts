import { approvalsModel, refreshApprovals } from "./approvals.ts";
import { refreshOpenCard } from "./cards.ts";
import { registerList } from "./changes.ts";
import type { ListModel } from "./lists.ts";
import { loadReceipts, reloadTransaction } from "./receipts.ts";
import { cardDetail } from "../state/wallet.ts";
import { txDetail } from "../state/transactions.ts";

/**
 * The lists of an unlocked session beside pwalists (which actions/lists.ts registers), in the
 * one change registry (actions/changes.ts): which kinds of change each follows and how it is
 * read again. Called once per unlock, when the main screen's chunk is in; registering again
 * replaces the entries by name.
 */
export function sessionLists(): ListModel[] {
  registerList({
    name: "approvals",
    kinds: ["approval"],
    refresh: () => refreshApprovals({ networkFirst: true }),
  });
  // A card lives on its request: the open card follows its request's changes.
  registerList({
    name: "open card",
    kinds: ["request"],
    ids: () => (cardDetail.value ? [cardDetail.value.oid] : []),
    refresh: refreshOpenCard,
  });
  registerList({
    name: "open transaction",
    kinds: ["transaction", "receipt", "comment"],
    ids: () => (txDetail.value ? [txDetail.value.oid] : []),
    refresh: async () => {
      const oid = txDetail.value?.oid;
      if (!oid) return;
      await Promise.all([reloadTransaction(oid), loadReceipts(oid, true)]);
    },
  });
  return [approvalsModel];
}
