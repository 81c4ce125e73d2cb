/**
 * Card transactions' rules that the server decides and the app shows (spec §2 Transactions
 * and Transaction detail, §4 Refused/Moved/Flip, §5 Flip and missing receipts, §8 refused
 * reasons, §9 130-character cut). Pure: both sides import them.
 */
import { MAX_PURPOSE } from "./request_rules.ts";

/** spec §3 transactionStatus values this app produces ("others": Reversed, Refunded). */
export const TX_STATUS = {
  captured: "Captured",
  authorised: "Authorised",
  moved: "Moved",
  refused: "Refused",
  reversed: "Reversed",
  refunded: "Refunded",
} as const;

/** spec §9: the refused reason is cut at 130 characters. */
export const REFUSED_REASON_MAX = 130;

/** How many days after its capture a transaction's missing receipt becomes overdue. */
export const DEFAULT_RECEIPT_OVERDUE_DAYS = 7;

/** Transactions flipped in one call, at most (one checked KV write holds them all). */
export const MAX_FLIP = 8;

const DAY = 86_400_000;

/** spec §8, in this order: the first one the reason contains is shown. */
const ABBREVIATIONS = [
  "CVC",
  "MCC",
  "Exceeds maximum",
  "Exceeded maximum",
  "Verification",
  "3Dsecure",
  "Authentication",
] as const;

/** The issuers' '3Dsecure' is shown as the app spells it everywhere else: '3-D Secure'. */
const SHOWN_AS: Partial<Record<(typeof ABBREVIATIONS)[number], string>> = {
  "3Dsecure": "3-D Secure",
};

/**
 * spec §8: a refused reason as its abbreviation — CVC, MCC, Exceeds maximum, Exceeded
 * maximum, Verification, 3Dsecure, Authentication, or for Invalid the text before the slash;
 * any other reason cut at 130 characters. Empty for no reason.
 */
export function refusedAbbreviation(reason: string | null | undefined): string {
  if (!reason) return "";
  for (const a of ABBREVIATIONS) if (reason.includes(a)) return SHOWN_AS[a] ?? a;
  if (reason.includes("Invalid")) return reason.split("/")[0].trim();
  return cutReason(reason);
}

/** What a refused reason says, for its translated label and sentence (spec §8's abbreviations). */
export type RefusedKind =
  | "cvc"
  | "mcc"
  | "exceedsMax"
  | "exceededMax"
  | "verification"
  | "threeDSecure"
  | "authentication"
  | "invalidCard"
  | "invalidCurrency"
  | "invalid";

const KIND_OF: Record<(typeof ABBREVIATIONS)[number], RefusedKind> = {
  CVC: "cvc",
  MCC: "mcc",
  "Exceeds maximum": "exceedsMax",
  "Exceeded maximum": "exceededMax",
  Verification: "verification",
  "3Dsecure": "threeDSecure",
  Authentication: "authentication",
};

/**
 * spec §8: which abbreviation a refused reason has (the same order as refusedAbbreviation),
 * Invalid split by what is invalid; null for a reason the spec does not name (shown as is).
 */
export function refusedKind(reason: string | null | undefined): RefusedKind | null {
  if (!reason) return null;
  for (const a of ABBREVIATIONS) if (reason.includes(a)) return KIND_OF[a];
  if (!reason.includes("Invalid")) return null;
  const head = reason.split("/")[0];
  if (/card/i.test(head)) return "invalidCard";
  if (/currency/i.test(head)) return "invalidCurrency";
  return "invalid";
}

/** spec §9: the full refused reason as the detail shows it, 130 characters at most. */
export function cutReason(reason: string | null | undefined): string {
  return (reason ?? "").slice(0, REFUSED_REASON_MAX);
}

type Status = { transactionStatus: string };

/** spec §2: the flip marker, when the status contains Captured or is Authorised and a flip id exists. */
export function hasFlipMarker(t: Status & { flipExtOid: string | null }): boolean {
  const s = t.transactionStatus;
  return (s.includes(TX_STATUS.captured) || s === TX_STATUS.authorised) && !!t.flipExtOid;
}

/**
 * Whether a transaction may be flipped (spec §4): captured or authorised, a
 * purchase, not reviewed; refused, reversed, refunded and moved ones may not.
 */
export function canFlip(t: Status & { transactionType: string; reviewed: boolean }): boolean {
  const s = t.transactionStatus;
  return t.transactionType === "Purchase" && !t.reviewed &&
    (s === TX_STATUS.captured || s === TX_STATUS.authorised);
}

/**
 * A "no receipt" declaration's state (spec §5 missing receipts): "valid" stands in for the
 * receipt; "pending" waits for an approver when the organisation requires approval of them.
 */
export type DeclarationState = "valid" | "pending";

/** What the missing-receipt rules read of a declaration (absent on older records). */
type Declared = { declaration?: { state: string } | null };

/** A declaration that stands in for the receipt: lifts the block and the marker (spec §5). */
export function declarationCounts(t: Declared): boolean {
  return t.declaration?.state === "valid";
}

/**
 * A captured purchase without a receipt (or a valid "no receipt" declaration), not reviewed
 * yet: it needs one (spec §5).
 */
export function needsReceipt(
  t: Status & { transactionType: string; nbReceipts: number; reviewed: boolean } & Declared,
): boolean {
  return t.transactionType === "Purchase" && t.transactionStatus === TX_STATUS.captured &&
    t.nbReceipts === 0 && !t.reviewed && !declarationCounts(t);
}

/** When a missing receipt becomes overdue: `days` after the capture (epoch ms). */
export function receiptDueAt(capturedAt: number, days: number): number {
  return capturedAt + days * DAY;
}

/** spec §5 missing receipts: a needed receipt whose time is up blocks new requests. */
export function receiptOverdue(
  t: Status & { transactionType: string; nbReceipts: number; reviewed: boolean } & Declared,
  capturedAt: number | null,
  days: number,
  now: number,
): boolean {
  return needsReceipt(t) && capturedAt !== null && receiptDueAt(capturedAt, days) <= now;
}

/** spec §5 'Flip: purpose required' (and the purpose's length, as for requests). */
export function checkFlipPurpose(
  purpose: string | null | undefined,
): "request.purposeRequired" | "request.purposeTooLong" | null {
  const p = (purpose ?? "").trim();
  if (!p) return "request.purposeRequired";
  if (p.length > MAX_PURPOSE) return "request.purposeTooLong";
  return null;
}
