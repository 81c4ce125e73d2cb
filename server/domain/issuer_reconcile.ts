import type { Deps } from "./env.ts";
import { ingest } from "./transaction_ingest.ts";

// Reconciliation with the issuer (the transaction ingest, made whole): the issuer's record of an
// authorization is written before the app's transaction (transaction_ingest.ts), so a process
// that dies between the two leaves money taken with no transaction, and a report that never
// came leaves a transaction behind its authorization. Like an app that missed webhooks and
// reads the issuer's event list, every authorization changed since the last run is recorded
// again through the same idempotent ingest: one that has its transaction in step costs two
// reads, a missing one is created (the write is checked on the authorization's link being
// absent, so concurrent runs and a late report make one transaction), one behind is updated.

/** Where the next run starts (epoch ms of the issuer's clock), after a complete run only. */
const CURSOR: Deno.KvKey = ["issuer_reconcile", "cursor"];
/**
 * How far back each run starts before the previous run began: an authorization's change time
 * is read before its write commits, and processes' clocks differ; a minute covers both.
 */
export const RECONCILE_OVERLAP_MS = 60_000;
const PAGE = 200;

export interface ReconcileResult {
  /** Authorizations read from the issuer's change feed. */
  seen: number;
  /** Transactions this run created (authorizations that had none). */
  created: number;
}

/**
 * One reconciliation run. Safe to stop at any point (the cursor moves only once every change
 * since it was recorded) and to run in several processes at once (the ingest's writes are
 * checked); `since` overrides the stored cursor (0: everything the issuer has).
 */
export async function reconcileAuthorizations(
  deps: Deps,
  opts: { since?: number } = {},
): Promise<ReconcileResult> {
  const { kv } = deps.store;
  const cur = await kv.get<{ since: number }>(CURSOR);
  const since = opts.since ?? cur.value?.since ?? 0;
  const began = deps.now();
  let seen = 0, created = 0;
  let after: string | undefined;
  do {
    const page = await deps.issuer.authorizationChanges(since, { after, limit: PAGE });
    for (const a of page.authorizations) {
      seen++;
      if ((await ingest(deps, a)).created) created++;
    }
    after = page.next ?? undefined;
  } while (after);
  // Only forward, and only against the cursor read at the start: a run that lost to another
  // leaves the other's cursor (both covered at least what the older cursor promised).
  const next = Math.max(0, began - RECONCILE_OVERLAP_MS);
  if (next > (cur.value?.since ?? 0)) {
    await kv.atomic().check(cur).set(CURSOR, { since: next }).commit();
  }
  return { seen, created };
}
