import * as z from "zod/mini";
import { endpoint } from "./endpoint.ts";
import { Declaration, Transaction } from "./transactions.ts";
import { ReceiptRead } from "./documents.ts";

// "No receipt" declarations (spec §5 missing receipts; the spec names no path): the card
// holder declares that a receipt cannot be had, and may withdraw it until the transaction is
// reviewed; where the organisation requires approval of declarations, an approver of the
// card's request accepts or refuses it.

const E = "/scmapi/expense";
const Oid = z.string().check(z.minLength(1), z.maxLength(64));
/** What was bought, and why there is no receipt: the limits of the form's fields. */
export const DECLARATION_WHAT_MAX = 200;
export const DECLARATION_REASON_MAX = 1000;
const Text = (max: number) => z.string().check(z.trim(), z.minLength(1), z.maxLength(max));

export const DeclareBody = z.object({
  oid: Oid,
  what: Text(DECLARATION_WHAT_MAX),
  reason: Text(DECLARATION_REASON_MAX),
  /** The holder's confirmation checkbox: it must be ticked. */
  confirm: z.literal(true),
});
export type DeclareBody = z.infer<typeof DeclareBody>;

/** What an approver sees of a declaration to decide (no card data). */
export const DeclarationReview = z.object({
  transactionOid: z.string(),
  holderName: z.string(),
  merchantname: z.string(),
  monetaryAmount: z.number(),
  pricingCurrency: z.string(),
  transactionCreateDate: z.string(),
  reviewed: z.boolean(),
  declaration: Declaration,
  canDecide: z.boolean(),
});
export type DeclarationReview = z.infer<typeof DeclarationReview>;

/**
 * What an approver sees of the receipts read on the holder's phone (docs/receipts.md): a card
 * transaction of the approval's request and what was read from each of its receipts, as sent.
 */
export const ReceiptCheck = z.object({
  transactionOid: z.string(),
  holderName: z.string(),
  merchantname: z.string(),
  monetaryAmount: z.number(),
  pricingCurrency: z.string(),
  displayMonetaryAmount: z.number(),
  originalCurrency: z.string(),
  transactionCreateDate: z.string(),
  reads: z.array(ReceiptRead),
});
export type ReceiptCheck = z.infer<typeof ReceiptCheck>;

export const declarations = {
  /** The holder declares "no receipt": answers the transaction, its block lifted (or pending). */
  declare: endpoint({
    method: "POST",
    path: `${E}/pwadeclarenoreceipt`,
    auth: "bearer",
    body: DeclareBody,
    response: z.object({ transaction: Transaction }),
  }),
  /** The holder withdraws it (until the transaction is reviewed). */
  withdraw: endpoint({
    method: "POST",
    path: `${E}/pwawithdrawnoreceipt`,
    auth: "bearer",
    body: z.object({ oid: Oid }),
    response: z.object({ transaction: Transaction }),
  }),
  /**
   * The declarations on the transactions of an approval's request (its card), for those who
   * see that approval (404 for anyone else): the approval detail shows them.
   */
  reviews: endpoint({
    method: "GET",
    path: `${E}/pwanoreceipts`,
    auth: "bearer",
    query: z.object({ approval: Oid }),
    response: z.object({ reviews: z.array(DeclarationReview) }),
  }),
  /**
   * The receipts read on the holder's phone, on the transactions of an approval's request, for
   * those who see that approval (404 for anyone else): the approval detail says what differs.
   */
  receiptChecks: endpoint({
    method: "GET",
    path: `${E}/pwareceiptchecks`,
    auth: "bearer",
    query: z.object({ approval: Oid }),
    response: z.object({ checks: z.array(ReceiptCheck) }),
  }),
  /** Organisations that require approval: an approver accepts (or refuses) a pending one. */
  decide: endpoint({
    method: "POST",
    path: `${E}/pwadecidenoreceipt`,
    auth: "bearer",
    body: z.object({ oid: Oid, approve: z.boolean() }),
    response: z.object({ review: z.nullable(DeclarationReview) }),
  }),
} as const;
