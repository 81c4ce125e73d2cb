import type {
  DeclarationReview,
  DeclareBody,
  ReceiptCheck,
} from "../../client/shared/contract/declarations.ts";
import type { Transaction } from "../../client/shared/contract/transactions.ts";
import { fromMinor } from "../../client/shared/currency_units.ts";
import { conflict, forbidden, notFound } from "../errors.ts";
import type { Deps } from "./env.ts";
import { translate } from "../i18n.ts";
import type { Team } from "../store/org.ts";
import type { TransactionRecord } from "../store/transactions.ts";
import type { User } from "../store/users.ts";
import { canSee } from "./approval_rules.ts";
import { RETRIES } from "./request_checks.ts";
import {
  declarationMode,
  declarationView,
  mayDeclare,
  overdueDays,
  toTransaction,
} from "./transactions.ts";

// "No receipt" declarations (spec §5 missing receipts): when a receipt cannot be had, the card
// holder declares what was bought and why, confirming with their name and the time. A valid
// declaration lifts the missing-receipt block and the attention marker for that transaction
// (needsReceipt, client/shared/transaction_rules.ts) and stops its reminders; it can be withdrawn
// until the transaction is reviewed. The organisation file switches them off, or requires an
// approver of the card's request to accept them first ("pending" until then).

type Tr = Awaited<ReturnType<typeof translate>>;

async function view(deps: Deps, t: TransactionRecord): Promise<Transaction> {
  const v = toTransaction(t, await overdueDays(deps), deps.now());
  return { ...v, canDeclare: mayDeclare(t, await declarationMode(deps)) === null };
}

/**
 * Reads the holder's transaction, applies `change` (a record, or throws) and writes it checked
 * against the entry read; retried when another write came in between.
 */
async function update(
  deps: Deps,
  userOid: string,
  oid: string,
  tr: Tr,
  change: (t: TransactionRecord) => TransactionRecord,
): Promise<TransactionRecord> {
  const { transactions, kv } = deps.store;
  for (let i = 0; i < RETRIES; i++) {
    const entry = await transactions.get(userOid, oid);
    if (!entry.value) throw notFound();
    const next = { ...change(entry.value), updatedAt: deps.now() };
    if ((await transactions.put(kv.atomic().check(entry), next).commit()).ok) return next;
  }
  throw conflict(tr("request.busy"));
}

/** The holder declares "no receipt" on their own transaction (404 for anyone else's). */
export async function declare(deps: Deps, user: User, body: DeclareBody): Promise<Transaction> {
  const tr = await translate(user.locale);
  const mode = await declarationMode(deps);
  const t = await update(deps, user.oid, body.oid, tr, (t) => {
    const why = mayDeclare(t, mode);
    if (why === "declare.off") throw forbidden("declarations_off", tr(why));
    if (why) throw conflict(tr(why));
    return {
      ...t,
      declaration: {
        what: body.what,
        reason: body.reason,
        byOid: user.oid,
        byName: `${user.fname} ${user.lname}`,
        at: deps.now(),
        state: mode === "approval" ? "pending" : "valid",
      },
    };
  });
  return await view(deps, t);
}

/** The holder withdraws their declaration, until the transaction is reviewed. */
export async function withdraw(deps: Deps, user: User, oid: string): Promise<Transaction> {
  const tr = await translate(user.locale);
  const t = await update(deps, user.oid, oid, tr, (t) => {
    if (!t.declaration) throw conflict(tr("declare.none"));
    if (t.reviewed) throw conflict(tr("declare.reviewed"));
    return { ...t, declaration: null };
  });
  return await view(deps, t);
}

/**
 * The transaction `oid` with its declaration, when `user` may see it as an approver: not its
 * holder, a member or delegate of a team of one of the card request's approval levels (who
 * sees that approval, spec §6). Null otherwise (the routes answer 404: nothing is revealed).
 */
async function asApprover(
  deps: Deps,
  user: User,
  oid: string,
): Promise<TransactionRecord | null> {
  const { store } = deps;
  const owner = await store.transactions.owner(oid);
  if (!owner || owner === user.oid) return null;
  const t = (await store.transactions.get(owner, oid)).value;
  if (!t?.declaration) return null;
  const teams = new Map((await store.org.list<Team>("team")).map((x) => [x.oid, x]));
  const approvals = await store.approvals.byRequest(t.cardOid);
  return approvals.some((a) => canSee(a, user, teams)) ? t : null;
}

async function reviewOf(deps: Deps, t: TransactionRecord): Promise<DeclarationReview> {
  const holder = await deps.store.users.get(t.userOid);
  return {
    transactionOid: t.oid,
    holderName: holder ? `${holder.fname} ${holder.lname}` : "",
    merchantname: t.merchantname,
    monetaryAmount: fromMinor(t.amount, t.pricingCurrency),
    pricingCurrency: t.pricingCurrency,
    transactionCreateDate: new Date(t.createdAt).toISOString(),
    reviewed: t.reviewed,
    declaration: { ...declarationView(t.declaration!, t.reviewed), canWithdraw: false },
    canDecide: t.declaration!.state === "pending" && !t.reviewed,
  };
}

/** An approval `user` sees (spec §6) and did not write; 404 for anyone else. */
async function seenApproval(deps: Deps, user: User, approvalOid: string) {
  const a = (await deps.store.approvals.get(approvalOid)).value;
  if (!a || a.authorOid === user.oid) throw notFound();
  const teams = new Map((await deps.store.org.list<Team>("team")).map((x) => [x.oid, x]));
  if (!canSee(a, user, teams)) throw notFound();
  return a;
}

/**
 * The declarations on the transactions of an approval's request (its card), for someone who
 * sees that approval (spec §6) and is not its author: the approval detail shows them, with
 * Accept and Refuse on the pending ones. 404 for anyone else.
 */
export async function declarationReviews(
  deps: Deps,
  user: User,
  approvalOid: string,
): Promise<DeclarationReview[]> {
  const { store } = deps;
  const a = await seenApproval(deps, user, approvalOid);
  const txs = (await store.transactions.byUser(a.authorOid))
    // A flip's original (Moved) and its copy carry the same declaration: the copy is shown.
    .filter((t) => t.cardOid === a.requestOid && t.declaration && t.transactionStatus !== "Moved")
    .sort((x, y) => x.createdAt - y.createdAt);
  return await Promise.all(txs.map((t) => reviewOf(deps, t)));
}

/**
 * The receipts read on the holder's phone (docs/receipts.md), on the transactions of an
 * approval's request, for someone who sees that approval and is not its author; transactions
 * without such a receipt are left out. 404 for anyone else.
 */
export async function receiptChecks(
  deps: Deps,
  user: User,
  approvalOid: string,
): Promise<ReceiptCheck[]> {
  const { store } = deps;
  const a = await seenApproval(deps, user, approvalOid);
  const txs = (await store.transactions.byUser(a.authorOid))
    .filter((t) => t.cardOid === a.requestOid && t.transactionStatus !== "Moved" && t.nbReceipts)
    .sort((x, y) => x.createdAt - y.createdAt);
  const holder = await store.users.get(a.authorOid);
  const checks: ReceiptCheck[] = [];
  for (const t of txs) {
    const reads = (await store.documents.byTransaction(t.userOid, t.authorizationId))
      .filter((d) => d.documentType === "receipt" && d.read)
      .sort((x, y) => x.createdAt - y.createdAt)
      .map((d) => d.read!);
    if (!reads.length) continue;
    checks.push({
      transactionOid: t.oid,
      holderName: holder ? `${holder.fname} ${holder.lname}` : "",
      merchantname: t.merchantname,
      monetaryAmount: fromMinor(t.amount, t.pricingCurrency),
      pricingCurrency: t.pricingCurrency,
      displayMonetaryAmount: fromMinor(t.originalAmount, t.originalCurrency),
      originalCurrency: t.originalCurrency,
      transactionCreateDate: new Date(t.createdAt).toISOString(),
      reads,
    });
  }
  return checks;
}

/**
 * Organisations that require approval: an approver accepts a pending declaration (it then
 * lifts the block) or refuses it (it is removed: the holder must bring the receipt or declare
 * again). Null after a refusal.
 */
export async function decideDeclaration(
  deps: Deps,
  user: User,
  oid: string,
  approve: boolean,
): Promise<DeclarationReview | null> {
  const tr = await translate(user.locale);
  const found = await asApprover(deps, user, oid);
  if (!found) throw notFound();
  const t = await update(deps, found.userOid, oid, tr, (t) => {
    if (t.declaration?.state !== "pending" || t.reviewed) throw conflict(tr("declare.notPending"));
    if (!approve) return { ...t, declaration: null };
    return {
      ...t,
      declaration: {
        ...t.declaration,
        state: "valid",
        decidedByOid: user.oid,
        decidedByName: `${user.fname} ${user.lname}`,
        decidedAt: deps.now(),
      },
    };
  });
  return t.declaration ? await reviewOf(deps, t) : null;
}
