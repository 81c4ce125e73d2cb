import { computed } from "@preact/signals-react";
import {
  inWallet,
  matchesWalletFilter,
  WALLET_FILTERS,
  type WalletFilterKey,
} from "../lib/cards.ts";
import { requestRows } from "./requests.ts";
import { walletFilter } from "./wallet.ts";

/** spec §2 Wallet: the requests that have (or had) a card, in pwalists order. */
export const walletRows = computed(() => requestRows.value.filter(inWallet));

/** The rows of the chosen sub-filter. */
export const visibleWalletRows = computed(() => {
  const f = walletFilter.value;
  return walletRows.value.filter((r) => matchesWalletFilter(r, f));
});

export const walletCounts = computed(() => {
  const out = {} as Record<WalletFilterKey, number>;
  for (const f of WALLET_FILTERS) {
    out[f] = walletRows.value.filter((r) => matchesWalletFilter(r, f)).length;
  }
  return out;
});
