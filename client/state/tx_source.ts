import { signal } from "@preact/signals-react";

// Where the open transaction's detail came from (spec §1 offline: the app stays usable on its
// cached data). Signals only: actions/tx_cache.ts writes it.

/**
 * The oid of the open transaction when its detail was made from its row of the cached list:
 * offline, never opened on this phone before, so neither the server nor the cache had it.
 * Photos, receipts and comments still work (they wait in the offline queue); what needs the
 * server (VAT, documents) says so in words. Null once the server's copy is shown.
 */
export const txFromRow = signal<string | null>(null);
