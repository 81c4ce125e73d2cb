import * as z from "zod/mini";
import { endpoint } from "./endpoint.ts";
import { DocumentInfo } from "./documents.ts";
import { ArchiveParam, Comment, ExpenseRequest } from "./requests.ts";
import { CommentBody } from "./request_bodies.ts";
import { MAX_FLIP } from "../transaction_rules.ts";

// Card transactions (spec §2 Transactions and Transaction detail, §3 Transaction
// and Flip payload, §7 pwalists receiptslist and pwaflip). Field names are spec §3's; shapes
// are ours. Amounts are numbers in major units: monetaryAmount in pricingCurrency (the card's
// currency), displayMonetaryAmount in originalCurrency (the merchant's). No card number, CVC
// or card token is in any of them.

const E = "/scmapi/expense";
const Oid = z.string().check(z.minLength(1), z.maxLength(64));
const OptOid = z.optional(z.nullable(z.string().check(z.maxLength(64))));

/**
 * One row of pwalists `transactions.receiptslist` (the Transactions tab, the card detail's
 * list, the badge): what the list needs for 5,000 transactions, nothing more.
 */
export const TransactionRow = z.object({
  oid: z.string(),
  archive: z.boolean(),
  /** The expense it belongs to now: the card's request, or the expense a flip made. */
  expenseOid: z.string(),
  /** The card's request (cards are addressed by it) and its id: spec's cardId. */
  cardOid: z.string(),
  cardId: z.string(),
  /** Captured, Authorised, Moved, Refused, Reversed, Refunded. */
  transactionStatus: z.string(),
  /** The issuer's state: pending, closed, reversed, declined. */
  status: z.string(),
  /** Purchase, or Refund (a merchant's credit to the card). */
  transactionType: z.string(),
  /** ISO 8601, UTC: when the issuer decided. */
  transactionCreateDate: z.string(),
  merchantname: z.string(),
  merchantcity: z.string(),
  merchantcountry: z.string(),
  /** The purpose of the card's request (searchable). */
  originalPurpose: z.string(),
  monetaryAmount: z.number(),
  displayMonetaryAmount: z.number(),
  originalCurrency: z.string(),
  pricingCurrency: z.string(),
  nbReceipts: z.number(),
  /** Set on a transaction a flip made (the expense it was flipped from): the flip marker. */
  flipExtOid: z.nullable(z.string()),
  /** Moved originals: the expense and the transaction they moved to (the status link). */
  movedToExpenseOid: z.nullable(z.string()),
  movedToOid: z.nullable(z.string()),
  /** The issuer's wording, whole; refusedAbbreviation() gives what to show (spec §8). */
  refusedReason: z.nullable(z.string()),
  /** A receipt is overdue: counted in the main badge (spec §2), blocks new requests (§5). */
  needsAttention: z.boolean(),
  /** Captured purchases without a receipt: ISO 8601 when it becomes overdue; else null. */
  receiptDueDate: z.nullable(z.string()),
  canFlip: z.boolean(),
});
export type TransactionRow = z.infer<typeof TransactionRow>;

/**
 * spec §5 missing receipts: the holder's "no receipt" declaration on a transaction — what was
 * bought, why there is no receipt, who confirmed it and when (ISO 8601); "pending" while an
 * approver must still accept it (organisations that require approval of declarations).
 */
export const Declaration = z.object({
  what: z.string(),
  reason: z.string(),
  byName: z.string(),
  at: z.string(),
  state: z.enum(["valid", "pending"]),
  decidedByName: z.nullable(z.string()),
  decidedAt: z.nullable(z.string()),
  /** Until the transaction is reviewed, its holder may withdraw it. */
  canWithdraw: z.boolean(),
});
export type Declaration = z.infer<typeof Declaration>;

/** spec §3 Transaction, every field: the detail screen's. */
export const Transaction = z.extend(TransactionRow, {
  /** The "no receipt" declaration, if any (spec §5). */
  declaration: z.optional(z.nullable(Declaration)),
  /** Whether its holder may declare "no receipt" on it now (pwatransaction fills it). */
  canDeclare: z.optional(z.boolean()),
  /** For a flip's transaction, the original it was made from; null otherwise. */
  originOid: z.nullable(z.string()),
  /** The issuer's authorization id (test mode's capture, reverse and refund take it). */
  authorizationId: z.nullable(z.string()),
  /** spec §8 abbreviation of refusedReason, and refusedReason cut at 130 characters. */
  refusedReasonDecoded: z.string(),
  refusedReasonText: z.string(),
  mcc: z.string(),
  /** 1 originalCurrency = exchangeRate pricingCurrency (display; the issuer's is exact). */
  exchangeRate: z.nullable(z.string()),
  /** Card currency: authorised, captured and refunded so far. */
  amountAuthorized: z.number(),
  amountCaptured: z.number(),
  amountRefunded: z.number(),
  /** ISO 8601 of the first capture, or null. */
  capturedDate: z.nullable(z.string()),
  nbDocuments: z.number(),
  /** spec §3: its documents, receipts' files included (pwatransaction fills them; other answers leave it empty). */
  documents: z.array(DocumentInfo),
  reviewed: z.boolean(),
  /** spec §4 VAT flag: null unknown, false no VAT, true has VAT (the receipts issue). */
  collectVatFlag: z.nullable(z.boolean()),
  readOnlyVAT: z.boolean(),
  reviewEnabled: z.boolean(),
  typeOid: z.nullable(z.string()),
  accountingCodeOid: z.nullable(z.string()),
  countryId: z.nullable(z.string()),
  vat1Oid: z.nullable(z.string()),
  vat2Oid: z.nullable(z.string()),
  vat3Oid: z.nullable(z.string()),
  vat1Amount: z.nullable(z.number()),
  vat2Amount: z.nullable(z.number()),
  vat3Amount: z.nullable(z.number()),
});
export type Transaction = z.infer<typeof Transaction>;

/**
 * spec §3 Flip payload. `oid` names the expense the transactions are on now (the card's
 * request): when sent it must be theirs, so a stale screen cannot flip other ones. The flip
 * always makes a new expense, '<that expense's id>-0001' onwards (spec §9: such ids are
 * closed cards), with the form's purpose and codes.
 */
export const FlipBody = z.object({
  transactionoids: z.array(Oid).check(z.minLength(1), z.maxLength(MAX_FLIP)),
  purpose: z.optional(z.nullable(z.string().check(z.maxLength(2000)))),
  oid: OptOid,
  archive: z.optional(z.boolean()),
  ccoid: OptOid,
  gloid: OptOid,
  projoid: OptOid,
});
export type FlipBody = z.infer<typeof FlipBody>;

export const transactions = {
  /** One transaction with every §3 field (404 for anyone but the card's author). */
  transaction: endpoint({
    method: "GET",
    path: `${E}/pwatransaction`,
    auth: "bearer",
    query: z.object({ oid: Oid, archive: ArchiveParam }),
    response: z.object({ transaction: Transaction }),
  }),
  /** spec §7 pwaflip: answers the new expense (and the transactions now on it). */
  flip: endpoint({
    method: "POST",
    path: `${E}/pwaflip`,
    auth: "bearer",
    body: FlipBody,
    response: z.object({ expenseRequest: ExpenseRequest, transactions: z.array(Transaction) }),
  }),
  /**
   * spec §2 transaction detail 'comments' (the spec names no path): the card author's notes
   * on a transaction, oldest first; deleted with pwadeletecomment like a request's.
   */
  comments: endpoint({
    method: "GET",
    path: `${E}/pwatransactioncomments`,
    auth: "bearer",
    query: z.object({ oid: Oid, archive: ArchiveParam }),
    response: z.object({ comments: z.array(Comment) }),
  }),
  addComment: endpoint({
    method: "POST",
    path: `${E}/pwaaddtransactioncomment`,
    auth: "bearer",
    body: CommentBody,
    response: z.object({ comment: Comment }),
  }),
} as const;
