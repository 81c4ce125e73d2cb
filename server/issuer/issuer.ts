/**
 * The card issuer as the app sees it (spec §3 Card). Shaped like the real card-issuing APIs
 * (Stripe Issuing, Lithic, Marqeta) so that one of them can replace the embedded simulator by
 * configuration: cards are addressed by an opaque token, amounts are integers in minor units of
 * an ISO 4217 currency, the full card number and CVC leave the issuer only through a one-time,
 * short-lived reveal session, and every write a client may replay carries an idempotency key.
 *
 * Nothing here depends on the rest of the app: no store, no domain, no HTTP. engineering.md §5
 * "Card data": the app keeps token, brand, last 4 and expiry; the issuer alone holds PAN and CVC.
 */

import type {
  Authorization,
  AuthorizeParams,
  CaptureParams,
  RefundParams,
  ReverseParams,
} from "./authorization.ts";
import type { RateTable } from "./fx.ts";

export type Brand = "visa" | "mastercard";

/** Lithic's OPEN | PAUSED | CLOSED, Stripe's active | inactive | canceled. Closed is final. */
export type CardStatus = "active" | "frozen" | "closed";

/** One-off: the whole amount is funded at creation. Budget: lines fund on their dates. */
export type CardKind = "one_off" | "budget";

/** A budget line as the app plans it: `amount` (minor units) becomes spendable on `date`. */
export interface FundingLine {
  /** YYYY-MM-DD, a UTC calendar day. */
  date: string;
  amount: number;
}

export interface IssuedLine extends FundingLine {
  funded: boolean;
  /** When the line was funded (epoch ms, the issuer's clock). */
  fundedAt?: number;
}

export interface CreateCardParams {
  /**
   * Replays with the same key answer the card the first call created (also when they race);
   * the same key with other parameters is refused with `idempotency_conflict`. Kept for the
   * life of the card, so a request id is a good key. 1–255 characters.
   */
  idempotencyKey: string;
  cardholderName: string;
  brand: Brand;
  /** ISO 4217, upper case (EUR, USD…). */
  currency: string;
  /** One-off card: funded at once. Exactly one of `amount` and `fundingLines`. */
  amount?: number;
  /** Budget card: at most 500 lines, each funded on its date (lines already due fund at once). */
  fundingLines?: FundingLine[];
  /** Last day the card may be used (YYYY-MM-DD, not before today); the expiry is its month. */
  validUntil: string;
  /** The app's own references (request oid…): at most 20 keys of 40, values of 500 chars. */
  metadata?: Record<string, string>;
  /**
   * The cardholder enrolled for 3-D Secure (whose password setThreeDSPassword holds): a
   * challenge on this card is answered with that holder's current password (spec §3 Secure
   * settings).
   */
  cardholderId?: string;
  /** Stripe's spending_controls: merchant categories (4-digit MCCs) declined on this card. */
  spendingControls?: { blockedCategories?: string[] };
}

/** A card as anyone but the card holder may see it: never the PAN or the CVC. */
export interface IssuedCard {
  token: string;
  brand: Brand;
  last4: string;
  /** 1–12, the month of `validUntil`. */
  expMonth: number;
  /** Four digits. */
  expYear: number;
  status: CardStatus;
  kind: CardKind;
  cardholderName: string;
  currency: string;
  /** One-off: the amount; budget: the sum of every line, funded or not. */
  amountAllocated: number;
  /** What has been made spendable so far. */
  amountFunded: number;
  /** Authorised and captured, net of reversals and refunds (purchases move it). */
  amountSpent: number;
  /** amountFunded − amountSpent: what the next authorization may take. */
  amountAvailable: number;
  validUntil: string;
  /** Budget lines in date order with their funded flags; empty for a one-off card. */
  lines: IssuedLine[];
  metadata: Record<string, string>;
  /** The 3-D Secure holder; null for a card made without one (no challenge can pass). */
  cardholderId: string | null;
  spendingControls: { blockedCategories: string[] };
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms, once closed. */
  closedAt?: number;
}

/** A one-time ticket to the card's full details, redeemed server-side. */
export interface RevealSession {
  /** Opaque, 256 random bits; a bearer secret until redeemed or expired. */
  sessionId: string;
  /** Epoch ms after which the session is refused. */
  expiresAt: number;
}

/**
 * The full card details, answered exactly once per reveal session. Never log or store it:
 * `Deno.inspect` / `console.log` print it masked, but `JSON.stringify` does not.
 */
export interface CardDetails {
  token: string;
  pan: string;
  cvc: string;
  expMonth: number;
  expYear: number;
}

export interface Issuer {
  /** "simulator" for the embedded one; a real issuer's adapter names itself. */
  readonly kind: string;

  /** Issues a virtual card, idempotent per `idempotencyKey`. */
  createCard(params: CreateCardParams): Promise<IssuedCard>;

  /** The masked card, or null when the token is unknown. */
  getCard(token: string): Promise<IssuedCard | null>;

  /**
   * Several masked cards in one call, in the order asked (null for an unknown token): the
   * wallet's balances in one round trip to the issuer, not one per card (Stripe's and
   * Lithic's list calls; the simulator reads them ten keys at a time).
   */
  getCards(tokens: readonly string[]): Promise<(IssuedCard | null)[]>;

  /**
   * Funds the budget lines dated on or before `today` (YYYY-MM-DD) that are not funded yet.
   * Idempotent; a closed card is answered unchanged (closed cards take no money).
   */
  fundDue(token: string, today: string): Promise<IssuedCard>;

  /** Runs fundDue for every card with a line due by `today`; how many cards it funded. */
  fundAllDue(today: string): Promise<number>;

  /** Opens a reveal session on an active card (frozen → card_frozen, closed → card_closed). */
  createRevealSession(token: string): Promise<RevealSession>;

  /**
   * The card details, exactly once: a second redeem, a concurrent one that lost, an expired or
   * unknown session are all `session_invalid`; a card frozen or closed since is refused too.
   */
  redeemRevealSession(sessionId: string): Promise<CardDetails>;

  /** active → frozen (frozen: unchanged); a closed card is refused with card_closed. */
  freeze(token: string): Promise<IssuedCard>;

  /** frozen → active (active: unchanged); a closed card is refused with card_closed. */
  unfreeze(token: string): Promise<IssuedCard>;

  /** Any state → closed, final (closed: unchanged, closedAt kept). */
  close(token: string): Promise<IssuedCard>;

  /**
   * 3-D Secure: the card holder's static password, held by the issuer like the card secrets
   * (a real issuer enrolls the cardholder for its ACS). A "pending" password waits until the
   * holder confirmed the change; promoting makes it current (false when nothing was pending).
   */
  setThreeDSPassword(
    holderId: string,
    password: string,
    slot: "pending" | "current",
  ): Promise<void>;
  promoteThreeDSPassword(holderId: string): Promise<boolean>;
  /** The current password, for the holder's own reveal; null when none is set. */
  revealThreeDSPassword(holderId: string): Promise<string | null>;

  /**
   * Approves or declines a purchase (spec §8 refused reasons), deciding in a fixed order: card
   * closed, frozen or expired; the CVC and expiry when sent; 3-D Secure when the merchant asks for
   * it; the merchant category; the amount against what is available (a budget line not yet funded).
   * Every decision, declines too, is recorded with the card's amounts in one checked write. Throws
   * only for malformed parameters or an unknown card.
   */
  authorize(params: AuthorizeParams): Promise<Authorization>;
  /** Captures (part of) what an approved authorization holds; several captures may follow. */
  capture(params: CaptureParams): Promise<Authorization>;
  /** Releases (part of) the uncaptured rest of an authorization. */
  reverse(params: ReverseParams): Promise<Authorization>;
  /** Refunds a capture, or credits the card (a new `refund` authorization) when unlinked. */
  refund(params: RefundParams): Promise<Authorization>;
  getAuthorization(id: string): Promise<Authorization | null>;
  /** A card's authorizations, newest first (at most `limit`, 100 by default). */
  listAuthorizations(token: string, opts?: { limit?: number }): Promise<Authorization[]>;
  /**
   * Authorizations changed (made, captured, reversed, refunded) at or after `since` (epoch ms,
   * the issuer's clock), oldest change first, a page at a time: what an app reads to catch up
   * on reports it missed (Stripe's events list, Lithic's event stream). `next` is the `after`
   * of the next page, null on the last one.
   */
  authorizationChanges(
    since: number,
    opts?: { after?: string; limit?: number },
  ): Promise<{ authorizations: Authorization[]; next: string | null }>;
  /** The newest authorizations of every card (the test-mode page), newest first. */
  recentAuthorizations(limit?: number): Promise<Authorization[]>;
  /** The card a merchant's number designates (its token), or null; never logs the number. */
  findCardByPan(pan: string): Promise<string | null>;
  /** Test mode: the tokens of the cards whose number ends with `last4`. */
  findCardsByLast4(last4: string): Promise<string[]>;
  /** Cards, newest first (the test-mode page), at most `limit` (100 by default). */
  listCards(limit?: number): Promise<IssuedCard[]>;
  /** The rate table purchases in other currencies are converted with. */
  rates(): RateTable;
}
