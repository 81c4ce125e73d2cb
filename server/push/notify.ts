import { formatDay, formatMoney } from "../../client/shared/intl.ts";
import { fromMinor } from "../../client/shared/currency_units.ts";
import { refusedKind, TX_STATUS } from "../../client/shared/transaction_rules.ts";
import {
  type PushAction,
  type PushKind,
  pushLink,
  type PushPayload,
  pushTag,
} from "../../client/shared/push_links.ts";
import type { TranslationKey } from "../../client/shared/i18n/locales/en.ts";
import type { DomainEvent } from "../domain/events.ts";
import { approvalFlags } from "../domain/approval_rules.ts";
import type { Deps } from "../domain/env.ts";
import { pickLocale, translate } from "../i18n.ts";
import { membersOf } from "../store/org_cache.ts";
import type { TransactionRecord } from "../store/transactions.ts";
import type { User } from "../store/users.ts";
import type { Urgency } from "./send.ts";

/** One notification for one user (all their subscribed devices get it). */
export interface Notice {
  userOid: string;
  payload: PushPayload;
  urgency: Urgency;
  ttlSeconds: number;
}

const DAY_S = 86_400;
type Tr = Awaited<ReturnType<typeof translate>>;

/** What a notice's body opens beyond its item, and its buttons (client/shared/push_links.ts). */
interface Actions {
  /** The body's action: a purchase's body opens the camera as its button does. */
  open?: PushAction;
  buttons?: { action: PushAction; title: string }[];
}

function notice(
  user: User,
  kind: PushKind,
  oid: string,
  text: { title: string; body: string },
  urgency: Urgency,
  ttlSeconds = DAY_S,
  actions: Actions = {},
): Notice {
  const buttons = actions.buttons?.map((b) => ({ ...b, url: pushLink(kind, oid, b.action) }));
  return {
    userOid: user.oid,
    payload: {
      ...text,
      url: pushLink(kind, oid, actions.open),
      tag: pushTag(kind, oid),
      // What changed, for the lists of an app on screen (the change channel's kind and id).
      change: { kind, id: oid },
      ...(buttons?.length ? { actions: buttons } : {}),
    },
    urgency,
    ttlSeconds,
  };
}

async function trOf(user: User): Promise<[Tr, string]> {
  const locale = pickLocale(user.locale);
  return [await translate(locale), locale];
}

/**
 * The notifications a domain event causes (spec §1 push notifications), each in its recipient's
 * language: an approval level opening → every user who may act on it now (team members and
 * delegates, by the same rule as the approval flags); a request decided → its author, with the
 * approver's note; a card purchase → the card's author, with the amount and the refused reason.
 * Other events notify nobody.
 */
export async function noticesFor(deps: Deps, e: DomainEvent): Promise<Notice[]> {
  switch (e.type) {
    case "approval.opened":
      return await approvalOpened(deps, e.approvalOid, e.level);
    case "request.decided":
      return await requestDecided(deps, e.userOid, e.requestOid, e.statusCode);
    case "card.purchase":
      return await purchase(deps, e.userOid, e.transactionOid);
    default:
      return [];
  }
}

async function approvalOpened(deps: Deps, approvalOid: string, level: number) {
  const a = (await deps.store.approvals.get(approvalOid)).value;
  // Decided or reissued before we got here: the level is no longer waiting for anyone.
  const open = a?.levels.find((l) => l.statusCode === "open");
  if (!a || a.statusCode !== "new" || open?.level !== level) return [];
  // The kept organisation: only the members of the approval's teams (and of the teams that
  // delegate to them) may decide, so only they are looked at.
  const snap = await deps.store.orgCache.snapshot();
  const teams = snap.teams;
  const named = new Set(a.levels.flatMap((l) => l.teamOids));
  for (const t of teams.values()) {
    if (t.delegatingTeamOid && named.has(t.oid)) named.add(t.delegatingTeamOid);
  }
  const users = [...new Set([...named].flatMap((t) => membersOf(snap, t)))];
  const author = snap.users.get(a.authorOid);
  const r = (await deps.store.requests.get(a.authorOid, a.requestOid)).value;
  const out: Notice[] = [];
  for (const u of users) {
    const flags = approvalFlags(a, u, teams);
    if (!flags.canApprove) continue;
    const [t, locale] = await trOf(u);
    // "Approve" and "Reject" open the approval with that decision pre-selected: it is sent
    // only from the app, after the person's unlock (docs/messages.md, push actions).
    const buttons: Actions["buttons"] = [{ action: "approve", title: t("approval.approve") }];
    if (flags.canReject) buttons.push({ action: "reject", title: t("approval.reject") });
    out.push(notice(
      u,
      "approval",
      a.oid,
      {
        title: t("push.approval.title"),
        body: t("push.approval.body", {
          author: author ? `${author.fname} ${author.lname}` : "",
          amount: formatMoney(a.amount, a.currency, locale),
          purpose: r?.purpose ?? "",
        }),
      },
      "normal",
      DAY_S,
      { buttons },
    ));
  }
  return out;
}

async function requestDecided(deps: Deps, userOid: string, requestOid: string, status: string) {
  const [u, r] = [
    await deps.store.users.get(userOid),
    (await deps.store.requests.get(userOid, requestOid)).value,
  ];
  if (!u || !r) return [];
  const [t, locale] = await trOf(u);
  const ok = status === "accepted";
  const params = { purpose: r.purpose, amount: formatMoney(r.amount, r.currency, locale) };
  let body = t(ok ? "push.accepted.body" : "push.rejected.body", params);
  if (r.approverNote) body += `\n${t("push.note", { note: r.approverNote })}`;
  return [
    notice(u, "request", r.oid, {
      title: t(ok ? "push.accepted.title" : "push.rejected.title"),
      body,
    }, "normal"),
  ];
}

async function purchase(deps: Deps, userOid: string, transactionOid: string) {
  const [u, tx] = [
    await deps.store.users.get(userOid),
    (await deps.store.transactions.get(userOid, transactionOid)).value,
  ];
  if (!u || !tx) return [];
  const [t, locale] = await trOf(u);
  const params = { amount: amountOf(tx, locale), merchant: tx.merchantname };
  const refused = tx.transactionStatus === TX_STATUS.refused;
  return [
    notice(
      u,
      "transaction",
      tx.oid,
      refused
        ? {
          title: t("push.refused.title"),
          // Why, in words, and what to do about it, at the till.
          body: t("push.declined.body", {
            ...params,
            why: t(`push.declined.${declineWhy(tx.refusedReason)}` as TranslationKey),
          }),
        }
        : { title: t("push.purchase.title"), body: t("push.purchase.body", params) },
      // A refusal at the till is what someone needs to know at once.
      refused ? "high" : "normal",
      // Stale an hour later: the person has long seen the till's answer.
      3600,
      // A purchase that went through wants its receipt, at the counter (push → capture), from
      // its button and from its body alike.
      refused
        ? {}
        : { open: "receipt", buttons: [{ action: "receipt", title: t("push.addReceipt") }] },
    ),
  ];
}

/** What a refusal's push says: the refused reason decoded (spec §8), each with its advice. */
export type DeclineWhy =
  | "frozen"
  | "closed"
  | "expired"
  | "invalidCard"
  | "cvc"
  | "mcc"
  | "exceedsMax"
  | "exceededMax"
  | "verification"
  | "threeDSecure"
  | "authentication"
  | "invalidCurrency"
  | "other";

/**
 * The refused reason (the issuer's words, spec §8 abbreviations) as what the holder can act on:
 * an unusable card split by its state (a blocked card can be unblocked in the wallet; a closed or
 * expired one cannot); a reason the spec does not name reads "other".
 */
export function declineWhy(reason: string | null | undefined): DeclineWhy {
  const kind = refusedKind(reason);
  if (kind === "invalidCard") {
    const detail = (reason ?? "").toLowerCase();
    if (/block|froz|freez|pause/.test(detail)) return "frozen";
    if (/expir/.test(detail)) return "expired";
    if (/clos|cancel/.test(detail)) return "closed";
    return "invalidCard";
  }
  if (kind === null || kind === "invalid") return "other";
  return kind;
}

/** The purchase's amount in the merchant's currency (what the till showed). */
function amountOf(tx: TransactionRecord, locale: string): string {
  return formatMoney(
    fromMinor(tx.originalAmount, tx.originalCurrency),
    tx.originalCurrency,
    locale,
  );
}

/** A receipt now overdue (server/push/overdue.ts): to the card's author. */
export async function overdueNotice(
  user: User,
  tx: TransactionRecord,
  dueAt: number,
): Promise<Notice> {
  const [t, locale] = await trOf(user);
  return notice(
    user,
    "transaction",
    tx.oid,
    {
      title: t("push.overdue.title"),
      body: t("push.overdue.body", {
        amount: amountOf(tx, locale),
        merchant: tx.merchantname,
        date: formatDay(dueAt, locale),
      }),
    },
    "low",
    3 * DAY_S,
  );
}
