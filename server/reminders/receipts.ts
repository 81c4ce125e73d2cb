import { formatDay, formatMoney } from "../../client/shared/intl.ts";
import { fromMinor } from "../../client/shared/currency_units.ts";
import { pushLink, pushTag } from "../../client/shared/push_links.ts";
import { needsReceipt } from "../../client/shared/transaction_rules.ts";
import type { Deps } from "../domain/env.ts";
import { pickLocale, translate } from "../i18n.ts";
import { addJobs } from "../push/outbox.ts";
import type { TransactionRecord } from "../store/transactions.ts";
import type { User } from "../store/users.ts";

// Reminders of missing receipts that stop when done (spec §5 missing receipts): a captured
// purchase still without a receipt and without a "no receipt" declaration RECEIPT_REMINDER_HOURS
// after its capture gets one push to its holder, and is listed in one weekly email digest per
// person. A periodic duty of the scheduler (server/jobs/scheduler.ts, every REMINDER_CHECK_MS,
// and Deno.cron's tick): every send is one atomic KV write checked against the absence of its mark —
// ["receipt_reminder", txOid] for the push, ["receipt_digest", userOid, week] for the mail —
// together with the push jobs or the queued mail, so a process stopping between two runs loses
// nothing and two processes (or two runs) never send the same reminder twice. The same code path
// runs on Deno KV and on the PostgreSQL store (its checked atomic writes, server/store/pg_kv.ts).

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
/** A transaction whose reminder fell due longer ago than this is not pushed any more. */
export const REMINDER_WINDOW_MS = 7 * DAY;
/** How often the job looks (cron ticks claim a run at most this often). */
export const REMINDER_CHECK_MS = 10 * 60_000;
const PUSH_MARK = "receipt_reminder";
const DIGEST_MARK = "receipt_digest";
/** Transactions listed in one digest, at most (the oldest first; the mail says how many more). */
export const DIGEST_MAX_ITEMS = 50;

/**
 * Whether a reminder is (still) due for `t`: a purchase that needs a receipt (spec §5), with
 * no declaration at all (a pending one stops reminders too: the holder has answered), captured
 * at least `hours` ago. Returns when it fell due, or null.
 */
export function reminderDueAt(t: TransactionRecord, hours: number, now: number): number | null {
  if (!needsReceipt(t) || t.declaration || t.capturedAt === null) return null;
  const at = t.capturedAt + hours * HOUR;
  return at <= now ? at : null;
}

/**
 * The ISO week `now` falls in, as "YYYY-Www" (UTC): the digest's period. The week starts on
 * Monday 00:00 UTC; the first run of the week that finds missing receipts sends it.
 */
export function isoWeek(now: number): string {
  const d = new Date(now);
  const day = (d.getUTCDay() + 6) % 7; // Monday 0
  const thursday = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - day + 3);
  const year = new Date(thursday).getUTCFullYear();
  const week = Math.floor((thursday - Date.UTC(year, 0, 1)) / WEEK) + 1;
  return `${year}-W${String(week).padStart(2, "0")}`;
}

const amountOf = (t: TransactionRecord, locale: string) =>
  formatMoney(fromMinor(t.originalAmount, t.originalCurrency), t.originalCurrency, locale);

/** One push per transaction whose reminder is due; the number of transactions announced. */
export async function pushReminders(deps: Deps): Promise<number> {
  const { store } = deps;
  const now = deps.now();
  const hours = deps.config.RECEIPT_REMINDER_HOURS;
  let sent = 0;
  // Captured between WINDOW + hours and hours ago: what falls due now (the missing-receipt
  // index, not everyone's transactions).
  const last = now - hours * HOUR;
  const missing = await store.transactions.missingByUser(last - REMINDER_WINDOW_MS, last + 1);
  for (const [userOid, list] of missing) {
    const due = list.filter((t) => {
      const at = reminderDueAt(t, hours, now);
      return at !== null && at > now - REMINDER_WINDOW_MS;
    });
    if (!due.length) continue;
    const subs = await store.pushSubs.forUser(userOid);
    if (!subs.length) continue;
    const user = await store.users.get(userOid);
    if (!user) continue;
    const locale = pickLocale(user.locale);
    const tr = await translate(locale);
    for (const t of due) {
      const key = [PUSH_MARK, t.oid];
      const mark = await store.kv.get(key);
      if (mark.value !== null) continue;
      const payload = {
        title: tr("push.reminder.title"),
        body: tr("push.reminder.body", {
          amount: amountOf(t, locale),
          merchant: t.merchantname,
          date: formatDay(t.createdAt, locale),
        }),
        url: pushLink("transaction", t.oid),
        tag: pushTag("transaction", t.oid),
      };
      const op = store.kv.atomic().check(mark).set(key, now, { expireIn: 2 * REMINDER_WINDOW_MS });
      addJobs(op, now, subs, JSON.stringify(payload), { urgency: "low", ttlSeconds: DAY / 1000 });
      if ((await op.commit()).ok) sent++;
    }
  }
  return sent;
}

/** The digest mail of one person: subject and text, in their language, a link to each item. */
export async function digestMail(
  deps: Deps,
  user: User,
  items: readonly TransactionRecord[],
): Promise<{ subject: string; text: string }> {
  const locale = pickLocale(user.locale);
  const tr = await translate(locale);
  const base = deps.config.PUBLIC_URL.replace(/\/+$/, "");
  const shown = items.slice(0, DIGEST_MAX_ITEMS);
  const lines = shown.map((t) =>
    `- ${formatDay(t.createdAt, locale)} · ${amountOf(t, locale)} · ${t.merchantname}\n  ${base}${
      pushLink("transaction", t.oid)
    }`
  );
  if (items.length > shown.length) {
    lines.push(tr("mail.digest.more", { count: items.length - shown.length }));
  }
  return {
    subject: tr("mail.digest.subject", { count: items.length }),
    text: tr("mail.digest.body", {
      fname: user.fname,
      count: items.length,
      list: lines.join("\n"),
    }),
  };
}

/**
 * One weekly digest per person with transactions whose reminder is due (oldest first): the
 * mail and the ["receipt_digest", userOid, week] mark in one checked write. The number sent.
 */
export async function sendDigests(deps: Deps): Promise<number> {
  const { store } = deps;
  const now = deps.now();
  const week = isoWeek(now);
  const hours = deps.config.RECEIPT_REMINDER_HOURS;
  let sent = 0;
  // Every purchase whose reminder fell due, whenever: the missing-receipt index up to then.
  const missing = await store.transactions.missingByUser(0, now - hours * HOUR + 1);
  for (const [userOid, list] of missing) {
    const items = list
      .filter((t) => reminderDueAt(t, hours, now) !== null)
      .sort((a, b) => a.createdAt - b.createdAt);
    if (!items.length) continue;
    const user = await store.users.get(userOid);
    if (!user) continue;
    const key = [DIGEST_MARK, user.oid, week];
    const mark = await store.kv.get(key);
    if (mark.value !== null) continue;
    const { subject, text } = await digestMail(deps, user, items);
    const op = store.kv.atomic().check(mark).set(key, now, { expireIn: 2 * WEEK });
    deps.messages.add(op, {
      channel: "email",
      purpose: "receipt-digest",
      to: user.email,
      subject,
      text,
      // A digest a mail server held back for a week is not sent late: next week's replaces it.
      expiresAt: now + WEEK,
      replaceKey: `receipt-digest:${user.oid}`,
    });
    if ((await op.commit()).ok) sent++;
  }
  return sent;
}

/** Both: the pushes due (when push is on) and the weekly digests. */
export async function runReminders(
  deps: Deps,
  opts: { push?: boolean } = {},
): Promise<{ pushed: number; mailed: number }> {
  const pushed = opts.push === false ? 0 : await pushReminders(deps);
  return { pushed, mailed: await sendDigests(deps) };
}
