import { needsReceipt, receiptDueAt } from "../../client/shared/transaction_rules.ts";
import { overdueDays } from "../domain/transactions.ts";
import type { Deps } from "../domain/env.ts";
import { overdueNotice } from "./notify.ts";
import { addJobs } from "./outbox.ts";

/** A receipt that crossed its due date longer ago than this is not announced any more. */
export const OVERDUE_WINDOW_MS = 7 * 86_400_000;
const MARK = "push_overdue";

/**
 * Receipts that became overdue (spec §5: captured purchases without receipts past the
 * organisation's delay) are pushed once per transaction to the card's author. Time-based,
 * so checked periodically (the scheduler); only the receipts that fell due lately are read
 * (the missing-receipt index), and only users with a push subscription are told.
 * The ["push_overdue", txOid] mark and the push jobs are one atomic write checked against
 * the mark's absence: several processes checking at once still notify once. Returns how
 * many transactions were announced.
 */
export async function checkOverdue(deps: Deps): Promise<number> {
  const { store } = deps;
  const now = deps.now();
  const days = await overdueDays(deps);
  let announced = 0;
  // Captured between WINDOW + days and days ago: the receipts that became overdue lately (the
  // missing-receipt index, not everyone's transactions).
  const last = now - days * 86_400_000;
  const missing = await store.transactions.missingByUser(last - OVERDUE_WINDOW_MS, last + 1);
  for (const [userOid, list] of missing) {
    const subs = await store.pushSubs.forUser(userOid);
    if (!subs.length) continue;
    const user = await store.users.get(userOid);
    if (!user) continue;
    const due = list.flatMap((t) => {
      if (!needsReceipt(t) || t.capturedAt === null) return [];
      const at = receiptDueAt(t.capturedAt, days);
      return at <= now && at > now - OVERDUE_WINDOW_MS ? [{ t, at }] : [];
    });
    if (!due.length) continue;
    const marks = await getManyIn(store.kv, due.map(({ t }) => [MARK, t.oid]));
    for (const [i, { t, at }] of due.entries()) {
      if (marks[i].value !== null) continue;
      const n = await overdueNotice(user, t, at);
      const op = store.kv.atomic().check(marks[i])
        .set([MARK, t.oid], at, { expireIn: 2 * OVERDUE_WINDOW_MS });
      addJobs(op, now, subs, JSON.stringify(n.payload), n);
      if ((await op.commit()).ok) announced++;
    }
  }
  return announced;
}

/** kv.getMany in slices of 10 (its limit). */
async function getManyIn(kv: Deno.Kv, keys: Deno.KvKey[]) {
  const out: Deno.KvEntryMaybe<unknown>[] = [];
  for (let i = 0; i < keys.length; i += 10) out.push(...await kv.getMany(keys.slice(i, i + 10)));
  return out;
}
