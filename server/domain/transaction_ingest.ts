import { TX_STATUS } from "../../client/shared/transaction_rules.ts";
import { conflict } from "../errors.ts";
import type { Deps } from "./env.ts";
import { notifyAfter } from "./events.ts";
import type { Authorization } from "../issuer/mod.ts";
import type { RequestRecord } from "../store/requests.ts";
import { type TransactionRecord, unaccounted } from "../store/transactions.ts";
import { vatCodes } from "./vat.ts";
import { linesFor, oidKey, SLOTS } from "./vat_checks.ts";

// How the issuer's decisions become the app's transactions (spec §3 Transaction). The issuer
// reports an authorization after each event, the way a real one sends webhooks (Stripe's
// issuing_authorization.* events); the app records it here, idempotently: each authorization
// carries a version that grows with its events, and a report older than what the app has changes
// nothing, so repeats and reports out of order are harmless. The embedded set-up reports in the
// same flow that made the event (test mode, the command line).

const TRIES = 20;

/** spec §3 transactionStatus of an authorization as it stands. */
export function statusOf(a: Authorization): string {
  if (!a.approved) return TX_STATUS.refused;
  if (a.kind === "refund") return TX_STATUS.refunded;
  if (a.merchantCaptured > 0) {
    return a.merchantRefunded >= a.merchantCaptured ? TX_STATUS.refunded : TX_STATUS.captured;
  }
  return a.status === "reversed" ? TX_STATUS.reversed : TX_STATUS.authorised;
}

/** The issuer's part of a transaction: state, amounts, dates. */
function issuerPart(a: Authorization) {
  const status = statusOf(a);
  const captured = a.merchantCaptured > 0 && a.kind === "purchase";
  const [amount, originalAmount] = captured
    ? [a.amountCaptured - a.amountRefunded, a.merchantCaptured - a.merchantRefunded]
    : status === TX_STATUS.authorised
    ? [a.amountHeld, a.merchantAmount - a.merchantReversed]
    : [a.amount, a.merchantAmount];
  return {
    issuerVersion: a.version,
    transactionStatus: status,
    status: a.status,
    capturedAt: a.capturedAt,
    amount,
    originalAmount,
    amountAuthorized: a.approved ? a.amount : 0,
    amountCaptured: a.amountCaptured,
    amountRefunded: a.amountRefunded,
    refusedReason: a.reason,
  };
}

/**
 * The app's new transaction of an authorization on a card of `request` (the record an issuer's
 * first report makes): the issuer's part, the card's expense, nothing accounted for yet.
 */
export function newTransaction(
  request: RequestRecord,
  a: Authorization,
  now: number,
): TransactionRecord {
  return {
    v: 2,
    oid: crypto.randomUUID(),
    userOid: request.authorOid,
    expenseOid: request.oid,
    cardOid: request.oid,
    cardId: request.id,
    cardToken: a.cardToken,
    authorizationId: a.id,
    ...issuerPart(a),
    transactionType: a.kind === "refund" ? "Refund" : "Purchase",
    createdAt: a.createdAt,
    updatedAt: now,
    merchantname: a.merchant.name,
    merchantcity: a.merchant.city,
    merchantcountry: a.merchant.country,
    mcc: a.merchant.mcc,
    pricingCurrency: a.currency,
    originalCurrency: a.merchantCurrency,
    rate: a.fx?.rate ?? null,
    originalPurpose: request.purpose,
    ...unaccounted(),
  };
}

/**
 * Records what the issuer says of an authorization; answers the app's transaction (the live
 * one, after a flip), or null for a card the app did not make (no request in its metadata).
 */
export async function recordAuthorization(
  deps: Deps,
  a: Authorization,
): Promise<TransactionRecord | null> {
  return (await ingest(deps, a)).t;
}

/** recordAuthorization, telling whether this call created the transaction. */
export async function ingest(
  deps: Deps,
  a: Authorization,
): Promise<{ t: TransactionRecord | null; created: boolean }> {
  const none = { t: null, created: false };
  const { transactions, requests, kv } = deps.store;
  const userOid = a.cardMetadata.userOid;
  const requestOid = a.cardMetadata.requestOid;
  if (!userOid || !requestOid) return none;
  for (let i = 0; i < TRIES; i++) {
    const link = await transactions.byAuthorization(a.id);
    const now = deps.now();
    if (link.value) {
      const e = await transactions.get(link.value.userOid, link.value.oid);
      const cur = e.value;
      if (!cur) return none;
      if (cur.issuerVersion >= a.version) return { t: cur, created: false };
      const next: TransactionRecord = { ...cur, ...issuerPart(a), updatedAt: now };
      // VAT lines follow the amount (a capture for another amount, a refund): recomputed.
      if (next.amount !== cur.amount && SLOTS.some((i) => cur.vat[oidKey(i)] !== null)) {
        const codes = new Map((await vatCodes(deps)).map((c) => [c.oid, c]));
        next.vat = linesFor(cur, next.amount, codes);
      }
      if ((await transactions.put(kv.atomic().check(e, link), next).commit()).ok) {
        return { t: next, created: false };
      }
      continue;
    }
    const request = (await requests.get(userOid, requestOid)).value;
    if (!request) return none;
    const t = newTransaction(request, a, now);
    const op = kv.atomic().check(link);
    transactions.put(op, t);
    transactions.link(op, t);
    // A new purchase, authorised or refused: its author hears of it (spec §1 push
    // notifications), durably with the transaction.
    if (a.kind === "purchase") {
      notifyAfter(op, now, {
        type: "card.purchase",
        userOid,
        transactionOid: t.oid,
        approved: a.approved,
      });
    }
    // Checked on the link being absent: a report and a reconciliation (issuer_reconcile.ts)
    // racing each other make one transaction, never two.
    await deps.faults?.beforeCommit?.("transaction.ingest");
    if ((await op.commit()).ok) {
      await deps.faults?.afterCommit?.("transaction.ingest");
      if (a.kind === "purchase") {
        await deps.events.publish({
          type: "card.purchase",
          userOid,
          transactionOid: t.oid,
          approved: a.approved,
        });
      }
      return { t, created: true };
    }
  }
  throw conflict("The transaction changed meanwhile, please retry");
}
