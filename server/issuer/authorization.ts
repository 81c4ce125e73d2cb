/**
 * The card lifecycle at the issuer (spec §3 Transaction statuses), as the real issuers model it
 * (Stripe Issuing authorizations with `approved` and `request_history.reason`, captures and
 * refunds; Lithic's authorize / clearing / void / return): an authorization is approved or declined
 * with a reason, an approved one holds money on the card until it is captured (at once, partially,
 * several times), reversed (the uncaptured rest) or refunded (after capture). Amounts are integers
 * in minor units; `merchant*` amounts are in the merchant's currency, the others in the card's.
 * Nothing here carries a card number or a CVC.
 */

export interface Merchant {
  name: string;
  city: string;
  /** ISO 3166 alpha-2. */
  country: string;
  /** ISO 18245 merchant category code, 4 digits. */
  mcc: string;
}

export interface AuthorizeParams {
  /** The card, by token (a merchant's PAN is first turned into a token by findCardByPan). */
  token: string;
  /** Minor units of `currency`, positive. */
  amount: number;
  /** ISO 4217 of the merchant's charge; converted to the card's currency at the rate table. */
  currency: string;
  merchant: Merchant;
  /** What a merchant may send besides the number; each is checked only when sent. */
  cvc?: string;
  expMonth?: number;
  expYear?: number;
  /**
   * The merchant asks for a 3-D Secure challenge; `password` is the cardholder's answer
   * (absent: the challenge was not answered).
   */
  threeDS?: { password?: string };
  /** Capture the whole amount at once (card-present style); otherwise a hold. */
  capture?: boolean;
  /** Replays with one key answer the first decision; 1–255 characters. */
  idempotencyKey?: string;
}

export interface CaptureParams {
  authorizationId: string;
  /** Merchant-currency minor units; the whole uncaptured rest when absent. */
  amount?: number;
  /** Release whatever stays uncaptured after this capture (Stripe's final capture). */
  final?: boolean;
  idempotencyKey?: string;
}

export interface ReverseParams {
  authorizationId: string;
  /** Merchant-currency minor units of the uncaptured rest to release; all of it if absent. */
  amount?: number;
  idempotencyKey?: string;
}

/** A refund of a capture (authorizationId) or, without one, a merchant's credit to the card. */
export interface RefundParams {
  authorizationId?: string;
  /** Unlinked refunds: the card, the merchant and the currency of the credit. */
  token?: string;
  merchant?: Merchant;
  currency?: string;
  /** Minor units of the merchant's currency; linked: all that is captured and not refunded. */
  amount?: number;
  idempotencyKey?: string;
}

/** Why an authorization was declined, in the decision order. */
export type DeclineCode =
  | "card_closed"
  | "card_frozen"
  | "card_expired"
  | "incorrect_cvc"
  | "cvc_locked"
  | "expiry_mismatch"
  | "three_ds_not_enrolled"
  | "three_ds_missing"
  | "three_ds_failed"
  | "three_ds_locked"
  | "mcc_blocked"
  | "currency_unsupported"
  | "insufficient_funds"
  | "budget_not_funded";

/**
 * The decline reasons in the issuers' wording (what `refusedReason` shows): a category, a
 * slash, the detail. The app abbreviates them by spec §8 (CVC, MCC, Exceeds maximum,
 * Exceeded maximum, Verification, 3Dsecure, Authentication; Invalid → the text before '/').
 */
export const DECLINE_REASONS: Readonly<Record<DeclineCode, string>> = {
  card_closed: "Invalid card status/the card is closed",
  card_frozen: "Invalid card status/the card is blocked",
  card_expired: "Invalid card status/the card has expired",
  incorrect_cvc: "CVC check failed/the security code does not match",
  cvc_locked: "CVC check failed/too many wrong security codes, try again later",
  expiry_mismatch: "Verification failed/the expiry date does not match",
  three_ds_not_enrolled: "3Dsecure not enrolled/the cardholder has no 3-D Secure password",
  three_ds_missing: "Authentication required/the 3-D Secure challenge was not answered",
  three_ds_failed: "Authentication failed/wrong 3-D Secure password",
  three_ds_locked: "Authentication failed/too many wrong 3-D Secure passwords, try again later",
  mcc_blocked: "MCC blocked/this merchant category is not allowed on this card",
  currency_unsupported: "Invalid currency/the currency is not in the issuer's rate table",
  insufficient_funds: "Exceeds maximum/the amount is over the card's available balance",
  budget_not_funded:
    "Exceeded maximum/the amount is over what is funded so far, a budget line is not funded yet",
};

/**
 * pending: approved and holding money; closed: nothing held any more (captured and/or
 * released); reversed: released before any capture; declined: never held anything.
 */
export type AuthorizationStatus = "pending" | "closed" | "reversed" | "declined";

export interface LifecycleEvent {
  type: "authorization" | "capture" | "reversal" | "refund";
  /** Epoch ms. */
  at: number;
  merchantAmount: number;
  amount: number;
}

export interface Authorization {
  /** "iauth_…" (Stripe's authorizations are "iauth_…"). */
  id: string;
  /** purchase: a charge; refund: a merchant's credit not linked to a capture. */
  kind: "purchase" | "refund";
  cardToken: string;
  /** The card's metadata at the decision (the app's own references). */
  cardMetadata: Record<string, string>;
  approved: boolean;
  declineCode: DeclineCode | null;
  /** The decline reason in the issuers' wording; null when approved. */
  reason: string | null;
  status: AuthorizationStatus;
  merchant: Merchant;
  merchantCurrency: string;
  /** What the merchant asked for, in its currency. */
  merchantAmount: number;
  /** The card's currency. */
  currency: string;
  /** merchantAmount converted (0 when the currency could not be priced). */
  amount: number;
  /** The conversion used (null in the card's own currency); later events reuse it. */
  fx: { rate: string; fromPerBase: string; toPerBase: string } | null;
  merchantCaptured: number;
  merchantReversed: number;
  merchantRefunded: number;
  /** Card currency: held now, captured, released by reversals, refunded so far. */
  amountHeld: number;
  amountCaptured: number;
  amountReversed: number;
  amountRefunded: number;
  /** "not_requested" | "passed" | "failed" (the challenge's outcome). */
  threeDS: "not_requested" | "passed" | "failed";
  history: LifecycleEvent[];
  createdAt: number;
  /** Epoch ms of the first capture; null until then. */
  capturedAt: number | null;
  updatedAt: number;
  /** 1 at the decision, +1 at every later event: consumers keep the highest they saw. */
  version: number;
}
