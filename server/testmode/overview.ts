import { fromMinor } from "../../client/shared/currency_units.ts";
import type { Deps } from "../domain/env.ts";
import { statusOf } from "../domain/transaction_ingest.ts";

/** The page's and the JSON API's view of the issuer: masked cards, recent transactions. */
export async function overview(deps: Deps, limit = 30) {
  const { issuer, store } = deps;
  const cards = (await issuer.listCards(100)).map((c) => ({
    oid: c.metadata.requestOid ?? null,
    requestId: c.metadata.requestId ?? null,
    token: c.token,
    last4: c.last4,
    cardNumber: `•••• •••• •••• ${c.last4}`,
    brand: c.brand,
    holder: c.cardholderName,
    status: c.status,
    currency: c.currency,
    available: fromMinor(c.amountAvailable, c.currency),
    allocated: fromMinor(c.amountAllocated, c.currency),
    blockedMccs: c.spendingControls.blockedCategories,
  }));
  const last4 = new Map(cards.map((c) => [c.token, c.last4]));
  const transactions = [];
  for (const a of await issuer.recentAuthorizations(limit)) {
    const link = (await store.transactions.byAuthorization(a.id)).value;
    transactions.push({
      authorizationId: a.id,
      transactionOid: link?.oid ?? null,
      cardLast4: last4.get(a.cardToken) ?? null,
      createdAt: new Date(a.createdAt).toISOString(),
      kind: a.kind,
      merchant: a.merchant,
      status: statusOf(a),
      issuerStatus: a.status,
      refusedReason: a.reason,
      originalAmount: fromMinor(a.merchantAmount, a.merchantCurrency),
      originalCurrency: a.merchantCurrency,
      amount: fromMinor(a.amount, a.currency),
      currency: a.currency,
      held: fromMinor(a.amountHeld, a.currency),
      captured: fromMinor(a.amountCaptured, a.currency),
      refunded: fromMinor(a.amountRefunded, a.currency),
      canCapture: a.status === "pending",
      canRefund: a.kind === "purchase" && a.merchantCaptured > a.merchantRefunded,
    });
  }
  return { cards, transactions, rates: issuer.rates() };
}
export type Overview = Awaited<ReturnType<typeof overview>>;
