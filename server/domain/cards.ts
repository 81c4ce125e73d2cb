import type { Card, ObfuscatedCard } from "../../client/shared/contract/cards.ts";
import type { ExpenseRow } from "../../client/shared/contract/requests.ts";
import { fromMinor, toMinor } from "../../client/shared/currency_units.ts";
import { isoDay } from "../../client/shared/dates.ts";
import { sealForKey } from "../../client/shared/reveal_cipher.ts";
import { forbidden, HttpError, notFound } from "../errors.ts";
import type { Deps } from "./env.ts";
import { pickLocale, translate } from "../i18n.ts";
import { codesIn } from "../org/labels.ts";
import { isIssuerError, type IssuedCard } from "../issuer/mod.ts";
import type { CardRef, RequestRecord } from "../store/requests.ts";
import type { User } from "../store/users.ts";
import { requestFlags } from "./request_flags.ts";
import { ownRequest, typeOf } from "./request_views.ts";
import { RETRIES } from "./request_checks.ts";

// Virtual cards (spec §2 Wallet and Card detail, §3 Card, §4 Card states, §6, §7): an accepted
// request becomes a card at the issuer. The app keeps the issuer's token, brand, last 4 and
// expiry on the request; the card number and CVC stay with the issuer and leave it only inside
// a reveal, encrypted for the device's one-time key.

const DAY = 86_400_000;
/** Days a card stays usable when its type does not say (active-until = issue date + this). */
export const DEFAULT_VALIDITY_DAYS = 90;

const MASK = "••••";
export const masked = (last4: string) => `${MASK} ${MASK} ${MASK} ${last4}`;

/** spec §3 cardStatusCode from the issuer's status. */
export function cardStatusOf(status: IssuedCard["status"]): "Active" | "Blocked" | "Closed" {
  return status === "active" ? "Active" : status === "frozen" ? "Blocked" : "Closed";
}

async function cardRequest(deps: Deps, user: User, oid: string): Promise<RequestRecord> {
  const r = await ownRequest(deps, user, oid);
  if (!r.hasCard || !r.card) throw notFound();
  return r;
}

/** A request once the issuer made its card: the card's reference (holder, when) recorded. */
export function cardRecorded(
  r: RequestRecord,
  card: IssuedCard,
  holder: string,
  at: number,
): RequestRecord {
  const ref: CardRef = {
    token: card.token,
    brand: card.brand,
    last4: card.last4,
    expMonth: card.expMonth,
    expYear: card.expYear,
    validUntil: card.validUntil,
    holder,
    createdAt: at,
  };
  return withCard(r, ref, card);
}

/** The request's state after the issuer answered: flags and card status follow the card. */
function withCard(r: RequestRecord, ref: CardRef, card: IssuedCard): RequestRecord {
  const cardStatusCode = cardStatusOf(card.status);
  return {
    ...r,
    card: ref,
    hasCard: true,
    openCard: cardStatusCode !== "Closed",
    cardStatusCode,
    budget: r.budget.map((l) => ({
      ...l,
      budgetfunded: card.lines.some((x) => x.date === l.budgetdate && x.funded),
    })),
  };
}

/** Writes what the issuer says of a card onto its request, when that changed anything. */
async function sync(deps: Deps, r: RequestRecord, card: IssuedCard): Promise<RequestRecord> {
  const { requests, kv } = deps.store;
  for (let i = 0; i < RETRIES; i++) {
    const entry = await requests.get(r.authorOid, r.oid);
    const cur = entry.value;
    if (!cur?.card) return r;
    const next = withCard(cur, cur.card, card);
    if (
      next.cardStatusCode === cur.cardStatusCode &&
      next.budget.every((l, j) => l.budgetfunded === cur.budget[j]?.budgetfunded)
    ) return cur;
    next.updatedAt = deps.now();
    if ((await requests.put(kv.atomic().check(entry), next).commit()).ok) return next;
  }
  return r;
}

/** The issuer's card of a request, funded up to today, and the request in step with it. */
async function liveCard(deps: Deps, r: RequestRecord) {
  let card = await deps.issuer.getCard(r.card!.token);
  if (!card) throw notFound();
  if (card.kind === "budget" && card.status !== "closed") {
    card = await deps.issuer.fundDue(card.token, isoDay(deps.now()));
  }
  return { card, request: await sync(deps, r, card) };
}

/** spec §6: card reveal needs canReveal and the organisation's reveal-enabled setting. */
async function revealAllowed(deps: Deps, r: RequestRecord, card: IssuedCard, userOid: string) {
  const meta = await deps.store.org.meta();
  return r.authorOid === userOid && card.status === "active" && !!meta?.settings.revealEnabled;
}

/** The card's view for `userOid`; the organisation's words (cost center, GL, project) in `lang`. */
export async function toCard(
  deps: Deps,
  r: RequestRecord,
  card: IssuedCard,
  userOid: string,
  lang = "en",
) {
  const f = requestFlags(r, userOid);
  const open = card.status !== "closed";
  // Whole calendar days (UTC) from today to the last usable day.
  const days = Math.round(
    (Date.parse(`${card.validUntil}T00:00:00Z`) - Date.parse(`${isoDay(deps.now())}T00:00:00Z`)) /
      DAY,
  );
  const view: Card = {
    oid: r.oid,
    id: r.id,
    statusCode: r.status,
    cardStatusCode: cardStatusOf(card.status),
    cardNumber: masked(card.last4),
    last4: card.last4,
    expirationMonth: card.expMonth,
    expirationYear: card.expYear,
    validityToDate: card.validUntil,
    validityDays: open ? Math.max(0, days) : null,
    activeCard: card.status === "active",
    cvc: "•••",
    cardHolderName: card.cardholderName.toUpperCase(),
    type: card.brand === "visa" ? "visa" : "mc",
    canReveal: await revealAllowed(deps, r, card, userOid),
    canClose: f.canClose,
    canCancel: f.canCancel,
    canFreeze: r.authorOid === userOid && card.status === "active" && f.canClose,
    canUnfreeze: r.authorOid === userOid && card.status === "frozen" && f.canClose,
    amountAvailable: fromMinor(card.amountAvailable, card.currency),
    amountAllocated: fromMinor(card.amountAllocated, card.currency),
    amountCurrency: card.currency,
    purpose: r.purpose,
    issueDate: new Date(r.issueDate).toISOString(),
    ...codesIn(r, lang),
    budget: r.budget,
  };
  return view;
}

/**
 * spec §7 pwanewqcard: the author of an accepted request with canGenerate and 3-D Secure
 * defined gets a card for its amount and currency (a budget request: its lines, funded on
 * their dates). Idempotent per request: the issuer answers the same card to every call with
 * the request's oid as idempotency key, and the request records it once.
 */
export async function generateCard(deps: Deps, user: User, oid: string): Promise<Card> {
  const tr = await translate(user.locale);
  const r = await ownRequest(deps, user, oid);
  if (r.hasCard && r.card) return await cardView(deps, user, oid);
  if (!requestFlags(r, user.oid).canGenerate) throw forbidden("not_allowed", tr("card.notAllowed"));
  const secure = (await deps.store.secure.get(user.oid)).value;
  if (!secure?.defined) throw forbidden("secure_required", tr("card.secureRequired"));
  const type = await typeOf(deps, r.typeOid);
  const today = isoDay(deps.now());
  const validity = type?.cardValidityDays ?? DEFAULT_VALIDITY_DAYS;
  const lastLine = r.budget.at(-1)?.budgetdate;
  const from = lastLine && lastLine > today ? Date.parse(`${lastLine}T00:00:00Z`) : deps.now();
  const holder = `${user.fname} ${user.lname}`;
  const card = await deps.issuer.createCard({
    idempotencyKey: `request:${r.oid}`,
    cardholderName: holder,
    brand: type?.cardBrand ?? "visa",
    currency: r.currency,
    ...(r.budget.length
      ? {
        fundingLines: r.budget.map((l) => ({
          date: l.budgetdate,
          amount: toMinor(l.budgetamount, r.currency),
        })),
      }
      : { amount: toMinor(r.amount, r.currency) }),
    validUntil: isoDay(from + validity * DAY),
    metadata: { requestOid: r.oid, requestId: r.id, userOid: user.oid },
    // spec §3 Secure settings: purchase challenges answer the holder's 3-D Secure password
    // (secure.ts keeps it at the issuer under the user's oid); the type's policy blocks merchant
    // categories.
    cardholderId: user.oid,
    spendingControls: { blockedCategories: type?.blockedMccs ?? [] },
  });
  const recordedAt = deps.now();
  const { requests, kv } = deps.store;
  for (let i = 0; i < RETRIES * 4; i++) {
    const entry = await requests.get(user.oid, oid);
    const cur = entry.value;
    if (!cur) throw notFound();
    // A concurrent call recorded it first: the issuer made one card for both.
    if (cur.hasCard && cur.card) {
      return await toCard(deps, cur, card, user.oid, pickLocale(user.locale));
    }
    if (!requestFlags(cur, user.oid).canGenerate) {
      throw forbidden("not_allowed", tr("card.notAllowed"));
    }
    const next = { ...cardRecorded(cur, card, holder, recordedAt), updatedAt: deps.now() };
    if ((await requests.put(kv.atomic().check(entry), next).commit()).ok) {
      await deps.events.publish({ type: "card.issued", userOid: user.oid, requestOid: oid });
      return await toCard(deps, next, card, user.oid, pickLocale(user.locale));
    }
  }
  throw new HttpError(409, "conflict", tr("request.busy"));
}

/** spec §7 pwaexpensecard: the masked card with every §3 field. */
export async function cardView(deps: Deps, user: User, oid: string): Promise<Card> {
  const r = await cardRequest(deps, user, oid);
  const { card, request } = await liveCard(deps, r);
  return await toCard(deps, request, card, user.oid, pickLocale(user.locale));
}

/** spec §7 pwaexpensecardobfuscated / §8: what the app itself knows, no issuer call. */
export async function obfuscatedView(deps: Deps, user: User, oid: string): Promise<ObfuscatedCard> {
  const r = await cardRequest(deps, user, oid);
  const c = r.card!;
  return {
    oid: r.oid,
    cardNumber: masked(c.last4),
    last4: c.last4,
    type: c.brand === "visa" ? "visa" : "mc",
    cardHolderName: c.holder.toUpperCase(),
    expirationMonth: c.expMonth,
    expirationYear: c.expYear,
    cardStatusCode: r.cardStatusCode ?? "Active",
  };
}

/**
 * spec §7 pwaexpensecardreveal: PAN and CVC sealed for the device's key, through a one-time
 * reveal session at the issuer. Only the author, with the reveal setting on, of an active
 * card; every reveal is recorded (who, when), and limited per user.
 */
export async function revealCard(
  deps: Deps,
  user: User,
  oid: string,
  key: string,
): Promise<string> {
  const tr = await translate(user.locale);
  const r = await cardRequest(deps, user, oid);
  const { card } = await liveCard(deps, r);
  if (!(await revealAllowed(deps, r, card, user.oid))) {
    throw forbidden("reveal_not_allowed", tr("card.revealNotAllowed"));
  }
  if (!(await deps.store.rateLimits.hit("reveal", user.oid, 30, 3_600_000))) {
    throw new HttpError(429, "rate_limited", tr("activation.tooMany"));
  }
  try {
    const session = await deps.issuer.createRevealSession(card.token);
    const d = await deps.issuer.redeemRevealSession(session.sessionId);
    const at = deps.now();
    await deps.store.kv.set(["card_reveal", r.oid, `${at}-${crypto.randomUUID()}`], {
      userOid: user.oid,
      at,
    });
    await deps.events.publish({ type: "card.revealed", userOid: user.oid, requestOid: oid });
    return await sealForKey(key, JSON.stringify({ pan: d.pan, cvc: d.cvc }));
  } catch (err) {
    if (isIssuerError(err, "card_frozen") || isIssuerError(err, "card_closed")) {
      throw forbidden("reveal_not_allowed", tr("card.revealNotAllowed"));
    }
    throw err;
  }
}

/** Freeze / unfreeze (beyond the spec): the author pauses an active card and resumes it. */
export async function setFrozen(
  deps: Deps,
  user: User,
  oid: string,
  frozen: boolean,
): Promise<Card> {
  const tr = await translate(user.locale);
  const r = await cardRequest(deps, user, oid);
  const { card } = await liveCard(deps, r);
  const allowed = frozen ? card.status === "active" : card.status === "frozen";
  if (!allowed || !requestFlags(r, user.oid).canClose) {
    throw forbidden("not_allowed", tr("card.notAllowed"));
  }
  const next = frozen
    ? await deps.issuer.freeze(card.token)
    : await deps.issuer.unfreeze(card.token);
  const request = await sync(deps, r, next);
  await deps.events.publish({
    type: frozen ? "card.frozen" : "card.unfrozen",
    userOid: user.oid,
    requestOid: oid,
  });
  return await toCard(deps, request, next, user.oid, pickLocale(user.locale));
}

/** Closes a request's card at the issuer (final), before the request records it. */
export async function closeCardOf(deps: Deps, r: RequestRecord): Promise<IssuedCard | null> {
  if (!r.card) return null;
  return await deps.issuer.close(r.card.token);
}

/**
 * spec §2 Wallet: each row of a card that is not closed carries what is left on it (the
 * issuer holds the balance: it is asked once for all the open cards of the list). A closed card,
 * or one the issuer does not answer for, gets null: the row then shows no spendable amount.
 */
export async function withCardAmounts(
  deps: Deps,
  user: User,
  rows: ExpenseRow[],
  /** The records `rows` were made from, when the caller has them (pwalists). */
  known?: readonly RequestRecord[],
): Promise<ExpenseRow[]> {
  const recs = known ?? await deps.store.requests.byUser(user.oid);
  const open = recs.filter((r) => r.hasCard && r.openCard && r.card);
  if (!open.length) return rows;
  // One call to the issuer for every open card of the list.
  let cards: (IssuedCard | null)[];
  try {
    cards = await deps.issuer.getCards(open.map((r) => r.card!.token));
  } catch {
    cards = open.map(() => null);
  }
  const left = new Map<string, number | null>(open.map((r, i) => {
    const card = cards[i];
    return [
      r.oid,
      card && card.status !== "closed" ? fromMinor(card.amountAvailable, card.currency) : null,
    ];
  }));
  return rows.map((r) => left.has(r.oid) ? { ...r, cardAvailable: left.get(r.oid) } : r);
}
