/**
 * The issuer's error codes and error, in their own module so that every part of the issuer
 * (fx, params, vault…) throws them without importing the `Issuer` interface back (issuer.ts).
 */

export type IssuerErrorCode =
  /** No card with that token. */
  | "card_not_found"
  /** The card is closed: no change of state, no reveal. */
  | "card_closed"
  /** The card is frozen: no reveal (authorizations are declined, not refused). */
  | "card_frozen"
  /** No authorization with that id. */
  | "authorization_not_found"
  /** The authorization cannot take this event (declined, nothing left to capture…). */
  | "invalid_state"
  /** Unknown, already redeemed or expired reveal session. */
  | "session_invalid"
  /** The idempotency key was first used with other parameters. */
  | "idempotency_conflict"
  /** A parameter is malformed or out of range; `message` names it. */
  | "invalid_request"
  /** Too much contention on one card; safe to retry. */
  | "conflict"
  /** The vault cannot be decrypted with this key (a changed ISSUER_KEY?). */
  | "vault_unreadable";

/**
 * The only error the issuer throws on purpose; the app maps `code` to its HTTP answer. The
 * message never carries card data.
 */
export class IssuerError extends Error {
  constructor(readonly code: IssuerErrorCode, message: string) {
    super(message);
    this.name = "IssuerError";
  }
}

export const isIssuerError = (e: unknown, code?: IssuerErrorCode): e is IssuerError =>
  e instanceof IssuerError && (code === undefined || e.code === code);
