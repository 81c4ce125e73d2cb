/**
 * Receipt against payment (docs/receipts.md): the total and date read from a receipt
 * (client/shared/receipt_text.ts) compared with the card transaction. A match is said only
 * when the total was read for sure and equals the payment in the receipt's currency, and the
 * date is within the days a purchase and its authorisation can lie apart; otherwise what
 * differs is listed, with the likely reason where there is one (a tip: the payment a little
 * more than the receipt; a partial capture: less). Pure. Neither result blocks sending.
 */
import type { ReadReceipt } from "./receipt_text.ts";

/** The transaction's side: amounts in major units, the date as the issuer sent it (UTC ISO). */
export interface PaymentSide {
  monetaryAmount: number;
  pricingCurrency: string;
  displayMonetaryAmount: number;
  originalCurrency: string;
  transactionCreateDate: string;
}

export type Difference =
  | { field: "total"; receipt: number; payment: number; currency: string; reason: Reason }
  | { field: "date"; receipt: string; payment: string };
/** Why a total may differ: a tip (payment up to 30 % more), a partial capture (less). */
export type Reason = "tip" | "partial" | null;

export interface MatchResult {
  /** "match": say so; "differs": list `differences`; "unknown": too little was read. */
  kind: "match" | "differs" | "unknown";
  differences: Difference[];
}

/** A receipt's date may be this many days before the payment's (a hotel stay, a late batch). */
const DAYS_BEFORE = 3;
/** …and one day after (time zones: the payment's date is UTC). */
const DAYS_AFTER = 1;
/** A payment up to this share over the receipt's total reads as a tip. */
const TIP_SHARE = 0.3;

const cents = (n: number) => Math.round(n * 100);
const day = (iso: string) => Date.parse(`${iso.slice(0, 10)}T00:00:00Z`) / 86_400_000;

export function matchPayment(read: ReadReceipt, tx: PaymentSide): MatchResult {
  const differences: Difference[] = [];
  let totalCompared = false;
  if (read.total !== null && !read.unsure.includes("total")) {
    // The receipt's currency is the merchant's; a receipt in the card's currency compares
    // with what the card was charged.
    const currency = read.currency ?? tx.originalCurrency;
    const payment = currency === tx.originalCurrency
      ? tx.displayMonetaryAmount
      : currency === tx.pricingCurrency
      ? tx.monetaryAmount
      : null;
    if (payment !== null) {
      totalCompared = true;
      const diff = cents(Math.abs(payment)) - cents(read.total);
      if (diff !== 0) {
        const reason: Reason = diff > 0 && diff <= cents(read.total) * TIP_SHARE
          ? "tip"
          : diff < 0
          ? "partial"
          : null;
        differences.push({
          field: "total",
          receipt: read.total,
          payment: Math.abs(payment),
          currency,
          reason,
        });
      }
    }
  }
  if (read.date && tx.transactionCreateDate) {
    const gap = day(tx.transactionCreateDate) - day(read.date);
    if (gap > DAYS_BEFORE || gap < -DAYS_AFTER) {
      differences.push({
        field: "date",
        receipt: read.date,
        payment: tx.transactionCreateDate.slice(0, 10),
      });
    }
  }
  if (differences.length) return { kind: "differs", differences };
  // A match needs the total: a date alone proves nothing.
  return { kind: totalCompared ? "match" : "unknown", differences };
}
