import { signal } from "@preact/signals-react";
import type { Card, ObfuscatedCard, SecureSettings } from "../shared/contract/cards.ts";
import type { Comment, ExpenseRow } from "../shared/contract/requests.ts";
import type { WalletFilterKey } from "../lib/cards.ts";

// Wallet and card state (spec §2 Wallet, Card detail, Secure side panel). Signals only: this
// module is in the first-load chunk (logout and lock reset it), the rules are elsewhere.

/** spec §2 wallet sub-filters; closing a request switches to Closed (spec §4). */
export type WalletFilter = WalletFilterKey;
export const walletFilter = signal<WalletFilter>("notClosed");

/**
 * Where the card on screen came from (spec §8: a failed card fetch falls back to the
 * obfuscated card, then to a masked number from what is cached).
 */
export type CardSource = "network" | "cache" | "obfuscated" | "masked";

/** The card shown in the card detail panel. Never holds a card number or a CVC. */
export interface CardView {
  oid: string;
  row: ExpenseRow | null;
  card: Card | null;
  fallback: ObfuscatedCard | null;
  source: CardSource | null;
  comments: Comment[];
}
export const cardDetail = signal<CardView | null>(null);

/** spec §3 Secure settings as last read (the password is a placeholder, never the secret). */
export const secureSettings = signal<SecureSettings | null>(null);

/**
 * A revealed card number and CVC (spec §4: 30 s). In memory only: never cached, never
 * stored; dropped when masked again, when the card panel closes, on logout and on lock.
 */
export interface RevealedCardState {
  oid: string;
  pan: string;
  cvc: string;
  /** Date.now() when it is masked again. */
  until: number;
}
export const revealedCard = signal<RevealedCardState | null>(null);

/** The stored 3-D Secure password, shown for 10 s (spec §4, §9); memory only as well. */
export const revealedPassword = signal<{ password: string; until: number } | null>(null);

/** Forgets every revealed secret at once (logout, lock, wipe). */
export function dropRevealed(): void {
  revealedCard.value = null;
  revealedPassword.value = null;
}

/** Logout and wipe: nothing of the previous session's cards stays in memory. */
export function resetWallet(): void {
  dropRevealed();
  cardDetail.value = null;
  secureSettings.value = null;
  walletFilter.value = "notClosed";
}
