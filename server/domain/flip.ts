import type { ExpenseRequest } from "../../client/shared/contract/requests.ts";
import type { FlipBody, Transaction } from "../../client/shared/contract/transactions.ts";
import { fromMinor } from "../../client/shared/currency_units.ts";
import { MAX_PURPOSE } from "../../client/shared/request_rules.ts";
import { canFlip, checkFlipPurpose, TX_STATUS } from "../../client/shared/transaction_rules.ts";
import { conflict, notFound } from "../errors.ts";
import type { Deps } from "./env.ts";
import { translate } from "../i18n.ts";
import type { RequestRecord } from "../store/requests.ts";
import type { TransactionRecord } from "../store/transactions.ts";
import type { User } from "../store/users.ts";
import { broken, resolveCodes, RETRIES } from "./request_checks.ts";
import { toEntity, typeOf } from "./request_views.ts";
import { overdueDays, toTransaction } from "./transactions.ts";

// spec §7 pwaflip (§2 Flip form, §4 'Flip moves a transaction onto an expense and jumps to
// it', §5 'Flip: purpose required'): the chosen captured or authorised transactions of one
// expense move onto a new expense carrying the form's purpose and codes. The payload's `oid`
// names the expense they are on now (checked when sent); the new expense is always made here,
// its id the source's id and a dash and four digits (spec §9: such ids are closed cards), so
// it takes no card action and no further approval: the money is already spent. The originals
// stay, Moved, with a link to the expense and the transaction that replaced them; the copies
// keep the issuer's link, so later captures and refunds land on them.

const pad4 = (n: number) => String(n).padStart(4, "0");

/**
 * spec §4 request status `moved`: a request ends `moved` when its card can spend no more
 * (closed) and every one of its transactions was flipped onto other expenses — all it spent
 * lives elsewhere now. Checked by the flip that moves the last one, and by the close of a card
 * whose transactions were all moved already (requests.ts closeRequest). A request whose card
 * is still open stays `accepted`: the card may yet spend. Moved is final and read-only (no
 * card action, no edit, no comment: request_flags.ts).
 */
export function endsMoved(
  r: Pick<RequestRecord, "status" | "hasCard" | "openCard">,
  txs: readonly Pick<TransactionRecord, "transactionStatus">[],
): boolean {
  return r.status === "accepted" && r.hasCard && !r.openCard && txs.length > 0 &&
    txs.every((t) => t.transactionStatus === TX_STATUS.moved);
}

/**
 * The request's transactions as the atomic write will find them: read with the version of the
 * owner's transaction list, which the write checks (every transaction write bumps it), so a
 * transaction that lands meanwhile makes the write try again.
 */
export async function transactionsOfRequest(
  deps: Deps,
  op: Deno.AtomicOperation,
  ownerOid: string,
  requestOid: string,
): Promise<TransactionRecord[]> {
  const { transactions, kv } = deps.store;
  const version = await kv.get(transactions.versionKey(ownerOid));
  op.check(version);
  return (await transactions.byUser(ownerOid, version)).filter((t) => t.expenseOid === requestOid);
}

/** The expense a flip makes from `source` for `txs` (all in the card's currency). */
function flipExpense(
  source: RequestRecord,
  n: number,
  purpose: string,
  codes: Awaited<ReturnType<typeof resolveCodes>>,
  txs: TransactionRecord[],
  now: number,
): RequestRecord {
  const currency = txs[0].pricingCurrency;
  return {
    oid: crypto.randomUUID(),
    id: `${source.id}-${pad4(n)}`,
    authorOid: source.authorOid,
    accountOid: source.accountOid,
    typeOid: source.typeOid,
    purpose,
    status: "accepted",
    issueDate: now,
    ...codes,
    vendor: "",
    url: "",
    amount: fromMinor(txs.reduce((s, t) => s + t.amount, 0), currency),
    currency,
    budgetPlan: null,
    budget: [],
    approvalOid: null,
    hasCard: false,
    openCard: false,
    cardStatusCode: "Closed",
    approverNote: null,
    archive: false,
    updatedAt: now,
    flippedFrom: source.oid,
  };
}

/**
 * engineering.md §5 'a repeat is a success': the same flip sent again (a retry after a lost answer)
 * finds exactly these transactions moved together to an expense with this purpose and these
 * codes, and answers that expense again instead of refusing them as moved.
 */
async function replayed(
  deps: Deps,
  user: User,
  txs: TransactionRecord[],
  purpose: string,
  body: FlipBody,
) {
  const to = txs[0].movedToExpenseOid;
  if (
    !to || txs.some((t) => t.transactionStatus !== TX_STATUS.moved || t.movedToExpenseOid !== to)
  ) {
    return null;
  }
  const x = (await deps.store.requests.get(user.oid, to)).value;
  const same = x && x.purpose === purpose && x.costCenterOid === (body.ccoid || null) &&
    x.GLOid === (body.gloid || null) && x.projectOid === (body.projoid || null);
  if (!x || !same) return null;
  const copies = (await deps.store.transactions.byUser(user.oid)).filter((t) =>
    t.expenseOid === to
  );
  if (copies.length !== txs.length) return null;
  const days = await overdueDays(deps);
  const now = deps.now();
  return {
    expenseRequest: await toEntity(deps, x, user.oid),
    transactions: copies.map((c) => toTransaction(c, days, now)),
  };
}

/**
 * Flips the caller's transactions; one checked atomic write makes the new expense, the copies
 * and the Moved originals, so the originals are Moved exactly when the new expense exists.
 * Another user's transactions are 404 (only the card's author has them).
 */
export async function flip(
  deps: Deps,
  user: User,
  body: FlipBody,
): Promise<{ expenseRequest: ExpenseRequest; transactions: Transaction[] }> {
  const tr = await translate(user.locale);
  const problem = checkFlipPurpose(body.purpose);
  if (problem) throw broken(tr, problem, { max: MAX_PURPOSE });
  const purpose = body.purpose!.trim();
  const oids = [...new Set(body.transactionoids)];
  const { transactions, requests, kv } = deps.store;
  for (let i = 0; i < RETRIES * 4; i++) {
    const entries = await Promise.all(oids.map((oid) => transactions.get(user.oid, oid)));
    if (entries.some((e) => !e.value)) throw notFound();
    const txs = entries.map((e) => e.value!);
    const replay = await replayed(deps, user, txs, purpose, body);
    if (replay) return replay;
    if (!txs.every(canFlip)) throw broken(tr, "flip.notFlippable");
    const fromOid = txs[0].expenseOid;
    if (txs.some((t) => t.expenseOid !== fromOid)) throw broken(tr, "flip.mixedExpenses");
    if (body.oid && body.oid !== fromOid) throw broken(tr, "flip.wrongExpense");
    const src = await requests.get(user.oid, fromOid);
    if (!src.value) throw notFound();
    const type = await typeOf(deps, src.value.typeOid);
    if (!type) throw broken(tr, "request.typeUnknown");
    const codes = await resolveCodes(deps, tr, type, body.ccoid, body.gloid, body.projoid);
    const n = (src.value.flips ?? 0) + 1;
    const now = deps.now();
    const expense = flipExpense(src.value, n, purpose, codes, txs, now);
    const copies: TransactionRecord[] = txs.map((t) => ({
      ...t,
      oid: crypto.randomUUID(),
      expenseOid: expense.oid,
      originOid: t.oid,
      flipExtOid: fromOid,
      movedToOid: null,
      movedToExpenseOid: null,
      updatedAt: now,
    }));
    const op = kv.atomic()
      .check(src, ...entries)
      .check({ key: requests.key(user.oid, expense.oid), versionstamp: null });
    // The source's other transactions, to know whether this flip moves its last one.
    const rest = src.value.openCard
      ? []
      : (await transactionsOfRequest(deps, op, user.oid, fromOid)).filter((t) =>
        !oids.includes(t.oid)
      );
    const emptied = endsMoved(src.value, [
      ...rest,
      ...txs.map(() => ({ transactionStatus: TX_STATUS.moved })),
    ]);
    requests.put(op, {
      ...src.value,
      flips: n,
      updatedAt: now,
      ...(emptied ? { status: "moved" as const } : {}),
    });
    requests.put(op, expense);
    txs.forEach((t, j) => {
      const moved: TransactionRecord = {
        ...t,
        transactionStatus: TX_STATUS.moved,
        movedToOid: copies[j].oid,
        movedToExpenseOid: expense.oid,
        updatedAt: now,
      };
      transactions.put(op, moved);
      transactions.put(op, copies[j]);
      transactions.link(op, copies[j]);
    });
    await deps.faults?.beforeCommit?.("flip");
    if (!(await op.commit()).ok) continue;
    await deps.events.publish({
      type: "transactions.flipped",
      userOid: user.oid,
      requestOid: expense.oid,
      fromOid,
      transactionOids: oids,
    });
    const days = await overdueDays(deps);
    return {
      expenseRequest: await toEntity(deps, expense, user.oid),
      transactions: copies.map((c) => toTransaction(c, days, now)),
    };
  }
  throw conflict(tr("request.busy"));
}
