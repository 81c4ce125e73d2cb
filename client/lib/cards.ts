/**
 * Card rules the wallet and the card detail show (spec §2 Wallet and Card detail, §4 Card
 * states, §9). Pure: no DOM, no signals, so they are unit-tested in Deno.
 */
import { formatNumber } from "../shared/intl.ts";

/** spec §4, §9: a revealed card number and CVC are masked again after 30 s. */
export const CARD_REVEAL_MS = 30_000;
/** spec §4, §9: a revealed 3-D Secure password is hidden again after 10 s. */
export const PASSWORD_REVEAL_MS = 10_000;
/** spec §9: the Secure side panel closes by itself after 300000 ms. */
export const SECURE_PANEL_TIMEOUT_MS = 300_000;

/** spec §2 wallet sub-filters (state/wallet.ts keeps the chosen one). */
export type WalletFilterKey = "notClosed" | "Active" | "Closed";
export const WALLET_FILTERS: readonly WalletFilterKey[] = ["notClosed", "Active", "Closed"];

/** spec §3 cardStatusCode: Active, Closed, or anything else, which means blocked. */
export type CardState = "Active" | "Blocked" | "Closed";

/** What the wallet needs of a request row (pwalists). */
export interface WalletRow {
  id: string;
  statusCode: string;
  hasCard: boolean;
  openCard: boolean;
  cardStatusCode: string | null;
}

/** spec §9: request ids ending with a dash and four digits are treated as closed cards. */
export function isClosedCardId(id: string): boolean {
  return /-\d{4}$/.test(id);
}

/** A request the wallet lists: it has a card, or its id marks a closed one. */
export function inWallet(r: WalletRow): boolean {
  return r.hasCard || isClosedCardId(r.id);
}

/**
 * What a wallet row opens: its card, or — for a row with no card of its own, an expense a flip
 * made from card transactions (id '…-0001', listed under Closed by spec §9) — the expense
 * itself. Such an expense has no card at the issuer: a card view would only answer 404.
 */
export function walletRowOpens(r: WalletRow): "card" | "request" {
  return r.hasCard ? "card" : "request";
}

/**
 * spec §3/§4: Active and Closed as the server says; a card with no open card, an id of a
 * closed card or a cancelled/moved request reads Closed; anything else is blocked.
 */
export function cardState(r: WalletRow): CardState {
  if (isClosedCardId(r.id) || r.cardStatusCode === "Closed" || !r.openCard) return "Closed";
  if (r.statusCode === "cancelled" || r.statusCode === "moved") return "Closed";
  return r.cardStatusCode === "Active" ? "Active" : "Blocked";
}

/** spec §2: notClosed (the default) keeps active and blocked cards. */
export function matchesWalletFilter(r: WalletRow, f: WalletFilterKey): boolean {
  const s = cardState(r);
  return f === "notClosed" ? s !== "Closed" : s === f;
}

/** spec §2: rows have the 'not active' style unless the card is Active or Closed. */
export function notActiveStyle(r: WalletRow): boolean {
  return cardState(r) === "Blocked";
}

/** A full card number in groups of four: '4242 4242 4242 4242' (digits only are kept). */
export function groupCardNumber(pan: string): string {
  return pan.replace(/\D/g, "").replace(/(\d{4})(?=\d)/g, "$1 ");
}

/** The masked number shown when nothing better is known (spec §8 last fallback). */
export function maskedNumber(last4?: string | null): string {
  const tail = last4 && /^\d{4}$/.test(last4) ? last4 : "••••";
  return `•••• •••• •••• ${tail}`;
}

/** spec §2 valid-thru 'MM/YY', each part in the 2.0-0 format of spec §9. */
export function validThru(month: number, year: number): string {
  return `${formatNumber(month, "2.0-0")}/${formatNumber(year % 100, "2.0-0")}`;
}

/** Whole seconds left until `until` (never below 0): the reveal's visible countdown. */
export function secondsLeft(until: number, now: number): number {
  return Math.max(0, Math.ceil((until - now) / 1000));
}
