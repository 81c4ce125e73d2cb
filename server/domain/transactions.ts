import type {
  Declaration,
  Transaction,
  TransactionRow,
} from "../../client/shared/contract/transactions.ts";
import { fromMinor } from "../../client/shared/currency_units.ts";
import {
  canFlip,
  cutReason,
  DEFAULT_RECEIPT_OVERDUE_DAYS,
  needsReceipt,
  receiptDueAt,
  receiptOverdue,
  refusedAbbreviation,
  TX_STATUS,
} from "../../client/shared/transaction_rules.ts";
import { notFound } from "../errors.ts";
import type { Deps } from "./env.ts";
import type { DeclarationRecord, TransactionRecord } from "../store/transactions.ts";
import type { User } from "../store/users.ts";
import type { OrgMeta } from "../store/org.ts";

// How card transactions are shown (spec §2 Transactions tab and detail, §3 Transaction,
// §7 pwalists receiptslist), and the missing-receipts rule of spec §5 they feed.

const iso = (ms: number) => new Date(ms).toISOString();

/** The organisation's receipt delay (days after capture before a missing receipt is overdue). */
export async function overdueDays(deps: Deps): Promise<number> {
  return overdueDaysOf(await deps.store.org.meta());
}

/** The same, from the organisation's record already read. */
export function overdueDaysOf(meta: OrgMeta | null): number {
  return meta?.settings.receiptOverdueDays ?? DEFAULT_RECEIPT_OVERDUE_DAYS;
}

/** spec §5: a captured purchase without receipts past the organisation's delay. */
export function isOverdue(t: TransactionRecord, days: number, now: number): boolean {
  return receiptOverdue(t, t.capturedAt, days, now);
}

/** A row of the Transactions list (spec §2) and of pwalists receiptslist. */
export function toRow(t: TransactionRecord, days: number, now: number): TransactionRow {
  const due = needsReceipt(t) && t.capturedAt !== null ? receiptDueAt(t.capturedAt, days) : null;
  return {
    oid: t.oid,
    archive: t.archive,
    expenseOid: t.expenseOid,
    cardOid: t.cardOid,
    cardId: t.cardId,
    transactionStatus: t.transactionStatus,
    status: t.status,
    transactionType: t.transactionType,
    transactionCreateDate: iso(t.createdAt),
    merchantname: t.merchantname,
    merchantcity: t.merchantcity,
    merchantcountry: t.merchantcountry,
    originalPurpose: t.originalPurpose,
    monetaryAmount: fromMinor(t.amount, t.pricingCurrency),
    displayMonetaryAmount: fromMinor(t.originalAmount, t.originalCurrency),
    originalCurrency: t.originalCurrency,
    pricingCurrency: t.pricingCurrency,
    nbReceipts: t.nbReceipts,
    flipExtOid: t.flipExtOid,
    movedToExpenseOid: t.movedToExpenseOid,
    movedToOid: t.movedToOid,
    refusedReason: t.refusedReason,
    needsAttention: due !== null && due <= now,
    receiptDueDate: due === null ? null : iso(due),
    canFlip: canFlip(t),
  };
}

/** spec §3 Transaction with every field, for its detail. */
export function toTransaction(t: TransactionRecord, days: number, now: number): Transaction {
  const money = (minor: number) => fromMinor(minor, t.pricingCurrency);
  return {
    ...toRow(t, days, now),
    originOid: t.originOid,
    authorizationId: t.authorizationId,
    refusedReasonDecoded: refusedAbbreviation(t.refusedReason),
    refusedReasonText: cutReason(t.refusedReason),
    mcc: t.mcc,
    exchangeRate: t.rate,
    amountAuthorized: money(t.amountAuthorized),
    amountCaptured: money(t.amountCaptured),
    amountRefunded: money(t.amountRefunded),
    capturedDate: t.capturedAt === null ? null : iso(t.capturedAt),
    nbDocuments: t.nbDocuments,
    documents: [],
    reviewed: t.reviewed,
    collectVatFlag: t.collectVatFlag,
    // spec §4: refused transactions hide receipts and VAT; reviewed ones are read-only.
    readOnlyVAT: t.reviewed || t.transactionStatus === "Refused" || t.transactionStatus === "Moved",
    reviewEnabled: false,
    typeOid: t.typeOid,
    accountingCodeOid: t.accountingCodeOid,
    countryId: t.countryId,
    ...t.vat,
    declaration: t.declaration ? declarationView(t.declaration, t.reviewed) : null,
  };
}

/** spec §5: a "no receipt" declaration as the holder and approvers see it. */
export function declarationView(d: DeclarationRecord, reviewed: boolean): Declaration {
  return {
    what: d.what,
    reason: d.reason,
    byName: d.byName,
    at: iso(d.at),
    state: d.state,
    decidedByName: d.decidedByName ?? null,
    decidedAt: d.decidedAt === undefined ? null : iso(d.decidedAt),
    canWithdraw: !reviewed,
  };
}

/**
 * Rows made from one list of records (the repository answers the same frozen list until a
 * transaction of the user changes): sorted and built once, with when each receipt is due.
 */
const built = new WeakMap<
  readonly TransactionRecord[],
  { days: number; rows: TransactionRow[]; due: (number | null)[] }
>();

/** The caller's transactions, newest first (pwalists receiptslist). */
export async function transactionRows(
  deps: Deps,
  user: User,
  /** The caller's records and the organisation's receipt delay, when read already (pwalists). */
  known?: { recs: readonly TransactionRecord[]; days: number },
): Promise<TransactionRow[]> {
  const [recs, days] = known ? [known.recs, known.days] : await Promise.all([
    deps.store.transactions.byUser(user.oid),
    overdueDays(deps),
  ]);
  let b = built.get(recs);
  if (!b || b.days !== days) {
    const sorted = [...recs].sort((x, y) => y.createdAt - x.createdAt || (x.oid < y.oid ? -1 : 1));
    b = {
      days,
      rows: sorted.map((t) => toRow(t, days, -Infinity)),
      due: sorted.map((t) =>
        needsReceipt(t) && t.capturedAt !== null ? receiptDueAt(t.capturedAt, days) : null
      ),
    };
    built.set(recs, b);
  }
  // Only the overdue flag depends on the time of the call.
  const now = deps.now();
  const { rows, due } = b;
  return rows.map((
    r,
    i,
  ) => (due[i] !== null && due[i]! <= now ? { ...r, needsAttention: true } : r));
}

/** The caller's own transaction, or 404 (another user's oid finds nothing). */
export async function ownTransaction(
  deps: Deps,
  user: User,
  oid: string,
): Promise<TransactionRecord> {
  const t = (await deps.store.transactions.get(user.oid, oid)).value;
  if (!t) throw notFound();
  return t;
}

export async function transactionView(deps: Deps, user: User, oid: string): Promise<Transaction> {
  const t = await ownTransaction(deps, user, oid);
  const view = toTransaction(t, await overdueDays(deps), deps.now());
  return { ...view, canDeclare: mayDeclare(t, await declarationMode(deps)) === null };
}

/** spec §5: the organisation's rule for "no receipt" declarations (older files: "on"). */
export async function declarationMode(deps: Deps): Promise<"off" | "on" | "approval"> {
  const meta = await deps.store.org.meta();
  return meta?.settings.receiptDeclarations ?? "on";
}

/**
 * spec §5 missing receipts: why the holder may not declare "no receipt" on `t` now (a
 * translation key), or null when they may — declarations on, a captured or authorised
 * purchase, not reviewed, no receipt, no declaration yet.
 */
export function mayDeclare(
  t: TransactionRecord,
  mode: "off" | "on" | "approval",
):
  | "declare.off"
  | "declare.notPurchase"
  | "declare.reviewed"
  | "declare.hasReceipt"
  | "declare.exists"
  | null {
  if (mode === "off") return "declare.off";
  const s = t.transactionStatus;
  if (
    t.transactionType !== "Purchase" || (s !== TX_STATUS.captured && s !== TX_STATUS.authorised)
  ) {
    return "declare.notPurchase";
  }
  if (t.reviewed) return "declare.reviewed";
  if (t.nbReceipts > 0) return "declare.hasReceipt";
  if (t.declaration) return "declare.exists";
  return null;
}

/** spec §5: 'You have transactions that still have no receipts, please provide those first'. */
export async function hasMissingReceipts(deps: Deps, userOid: string): Promise<boolean> {
  const [txs, days] = await Promise.all([
    deps.store.transactions.byUser(userOid),
    overdueDays(deps),
  ]);
  const now = deps.now();
  return txs.some((t) => isOverdue(t, days, now));
}
