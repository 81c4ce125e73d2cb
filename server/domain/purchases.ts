/**
 * The issuer's test mode, as Stripe's test helpers and Lithic's simulate calls
 * work: a developer or a newcomer makes purchases on the app's cards, captures, reverses and
 * refunds them, and sees each decision land in the app as a transaction. Used by the
 * `/_issuer` page and API (development only, loopback only) and by `deno task issuer`.
 * Card numbers and CVCs given here go to the issuer and nowhere else: not into answers, not
 * into logs, not into the app's records.
 */
import { fromMinor } from "../../client/shared/currency_units.ts";
import { refusedAbbreviation } from "../../client/shared/transaction_rules.ts";
import { badRequest, HttpError } from "../errors.ts";
import type { Deps } from "./env.ts";
import { type Authorization, IssuerError, parseMinor } from "../issuer/mod.ts";
import { recordAuthorization, statusOf } from "./transaction_ingest.ts";
import { type CardRef, type EventInput, expiryOf, type PurchaseInput } from "./purchase_input.ts";
import type { RefundInput } from "./purchase_input.ts";
import type * as z from "zod";

/** What every test-mode call answers: the transaction as the app now has it. */
export interface TestModeResult {
  transactionOid: string | null;
  authorizationId: string;
  approved: boolean;
  /** spec §3 transactionStatus (Captured, Authorised, Refused…). */
  status: string;
  refusedReason: string | null;
  /** spec §8 abbreviation of refusedReason. */
  refusedReasonDecoded: string;
  /** Card currency, then the merchant's; decimal amounts. */
  amount: number;
  currency: string;
  originalAmount: number;
  originalCurrency: string;
  exchangeRate: string | null;
  captured: number;
  refunded: number;
  /** The card's available amount after the event (card currency). */
  available: number | null;
}

const notFound = (what: string) => new IssuerError("card_not_found", what);

/** The issuer's token of the card a tester or a merchant names (see CardRef). */
export async function resolveCard(deps: Deps, ref: z.infer<typeof CardRef>): Promise<string> {
  const { issuer, store } = deps;
  if (ref.pan) {
    const token = await issuer.findCardByPan(ref.pan);
    if (!token) throw notFound("No card with this number");
    return token;
  }
  const card = ref.card;
  if (!card) throw badRequest("card_required", "Name the card: card (last 4 or oid), or pan");
  if (/^\d{4}$/.test(card)) {
    const tokens = await issuer.findCardsByLast4(card);
    if (tokens.length === 0) throw notFound(`No card ends with ${card}`);
    if (tokens.length > 1) {
      throw new HttpError(
        409,
        "ambiguous_card",
        `${tokens.length} cards end with ${card}: use its oid`,
      );
    }
    return tokens[0];
  }
  if (card.startsWith("ic_")) return card;
  const owner = await store.requests.owner(card);
  const token = owner ? (await store.requests.get(owner, card)).value?.card?.token : undefined;
  if (!token) throw notFound("No card with this oid");
  return token;
}

/** The issuer reports the event; the app records it; both answer together. */
async function settle(deps: Deps, a: Authorization): Promise<TestModeResult> {
  const t = await recordAuthorization(deps, a);
  const card = await deps.issuer.getCard(a.cardToken);
  const money = (n: number) => fromMinor(n, a.currency);
  const net = a.merchantCaptured > 0 ? a.amountCaptured - a.amountRefunded : a.amount;
  return {
    transactionOid: t?.oid ?? null,
    authorizationId: a.id,
    approved: a.approved,
    status: t?.transactionStatus ?? statusOf(a),
    refusedReason: a.reason,
    refusedReasonDecoded: refusedAbbreviation(a.reason),
    amount: money(a.kind === "refund" ? a.amount : net),
    currency: a.currency,
    originalAmount: fromMinor(a.merchantAmount, a.merchantCurrency),
    originalCurrency: a.merchantCurrency,
    exchangeRate: a.fx?.rate ?? null,
    captured: money(a.amountCaptured),
    refunded: money(a.amountRefunded),
    available: card ? money(card.amountAvailable) : null,
  };
}

function minor(amount: string, currency: string): number {
  const n = parseMinor(amount, currency);
  if (n === null || n <= 0) {
    throw badRequest("invalid_amount", `amount must be a positive amount of ${currency}`);
  }
  return n;
}

/** POST /_issuer/purchase: an authorization as a merchant asks for it. */
export async function purchase(deps: Deps, p: PurchaseInput): Promise<TestModeResult> {
  const token = await resolveCard(deps, p);
  const card = await deps.issuer.getCard(token);
  if (!card) throw notFound("No card with this token");
  const currency = p.currency ?? card.currency;
  const challenge = p.threeDS || p.threeDSPassword !== undefined;
  const a = await deps.issuer.authorize({
    token,
    amount: minor(p.amount, currency),
    currency,
    merchant: {
      name: p.merchantName,
      city: p.merchantCity ?? "",
      country: p.merchantCountry ?? "FR",
      mcc: p.mcc ?? "5999",
    },
    ...(p.cvc !== undefined ? { cvc: p.cvc } : {}),
    ...expiryOf(p),
    ...(challenge ? { threeDS: { password: p.threeDSPassword } } : {}),
    capture: p.capture ?? false,
    idempotencyKey: p.idempotencyKey,
  });
  return await settle(deps, a);
}

/** The authorization a test-mode event names, by its id or by the app's transaction oid. */
async function authorizationOf(deps: Deps, e: EventInput): Promise<Authorization> {
  let id = e.authorizationId;
  if (!id && e.transactionOid) {
    const { transactions } = deps.store;
    const owner = await transactions.owner(e.transactionOid);
    id = owner
      ? (await transactions.get(owner, e.transactionOid)).value?.authorizationId
      : undefined;
  }
  if (!id) {
    throw badRequest(
      "transaction_required",
      "Name the purchase: transactionOid or authorizationId",
    );
  }
  const a = await deps.issuer.getAuthorization(id);
  if (!a) throw new IssuerError("authorization_not_found", "No such authorization");
  return a;
}

export async function capture(deps: Deps, e: EventInput): Promise<TestModeResult> {
  const a = await authorizationOf(deps, e);
  return await settle(
    deps,
    await deps.issuer.capture({
      authorizationId: a.id,
      amount: e.amount === undefined ? undefined : minor(e.amount, a.merchantCurrency),
      final: e.final,
      idempotencyKey: e.idempotencyKey,
    }),
  );
}

export async function reverse(deps: Deps, e: EventInput): Promise<TestModeResult> {
  const a = await authorizationOf(deps, e);
  return await settle(
    deps,
    await deps.issuer.reverse({
      authorizationId: a.id,
      amount: e.amount === undefined ? undefined : minor(e.amount, a.merchantCurrency),
      idempotencyKey: e.idempotencyKey,
    }),
  );
}

/** A refund of a purchase (its ids), or without one a merchant's credit to a card. */
export async function refund(deps: Deps, r: RefundInput): Promise<TestModeResult> {
  if (r.authorizationId || r.transactionOid) {
    const a = await authorizationOf(deps, r);
    return await settle(
      deps,
      await deps.issuer.refund({
        authorizationId: a.id,
        amount: r.amount === undefined ? undefined : minor(r.amount, a.merchantCurrency),
        idempotencyKey: r.idempotencyKey,
      }),
    );
  }
  const token = await resolveCard(deps, r);
  const card = await deps.issuer.getCard(token);
  if (!card) throw notFound("No card with this token");
  if (r.amount === undefined) throw badRequest("invalid_amount", "amount is required");
  if (!r.merchantName) throw badRequest("invalid_body", "merchantName is required");
  const currency = r.currency ?? card.currency;
  const a = await deps.issuer.refund({
    token,
    amount: minor(r.amount, currency),
    currency,
    merchant: {
      name: r.merchantName,
      city: r.merchantCity ?? "",
      country: r.merchantCountry ?? "FR",
      mcc: r.mcc ?? "5999",
    },
    idempotencyKey: r.idempotencyKey,
  });
  return await settle(deps, a);
}
