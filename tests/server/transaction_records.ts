/**
 * Transaction records written straight into the repository (spec §3 Transaction), for tests that
 * need a user's transactions in a given state without going through the issuer, and for the bench.
 */
import { type TransactionRecord, unaccounted } from "../../server/store/transactions.ts";

const DAY = 86_400_000;

/** A captured EUR purchase of 12.50, eight days old (its receipt overdue by the default 7). */
export function transactionRecord(
  userOid: string,
  over: Partial<TransactionRecord> = {},
): TransactionRecord {
  const at = Date.now() - 8 * DAY;
  const oid = crypto.randomUUID();
  return {
    v: 2,
    oid,
    userOid,
    expenseOid: "expense-1",
    cardOid: "expense-1",
    cardId: "R000001",
    cardToken: "ic_aaaaaaaaaaaaaaaaaaaaaaaaaa",
    authorizationId: `iauth_${oid}`,
    issuerVersion: 1,
    transactionType: "Purchase",
    transactionStatus: "Captured",
    status: "closed",
    createdAt: at,
    capturedAt: at,
    updatedAt: at,
    merchantname: "Café de la Gare",
    merchantcity: "Lyon",
    merchantcountry: "FR",
    mcc: "5812",
    amount: 1_250,
    pricingCurrency: "EUR",
    originalAmount: 1_250,
    originalCurrency: "EUR",
    rate: null,
    amountAuthorized: 1_250,
    amountCaptured: 1_250,
    amountRefunded: 0,
    refusedReason: null,
    originalPurpose: "Train to Lyon",
    ...unaccounted(),
    ...over,
  };
}
