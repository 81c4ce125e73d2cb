import {
  type DeclarationReview,
  declarations as api,
  type ReceiptCheck,
} from "../shared/contract/declarations.ts";
import type { Transaction } from "../shared/contract/transactions.ts";
import { call } from "../api/http.ts";
import { t } from "../i18n/index.ts";
import { transactionAttention } from "../state/session.ts";
import { transactionRows, txDetail } from "../state/transactions.ts";
import { askConfirm, showNotice } from "../state/ui.ts";
import { busy } from "./busy.ts";
import { messageOf } from "./messages.ts";
import { changed } from "./changes.ts";

// "No receipt" declarations on the transaction on screen (spec §5 missing receipts): the
// holder declares what was bought and why there is no receipt, or withdraws it until the
// transaction is reviewed. Nothing imports this module back (it only calls the others).

/** The transaction as the server answered it: on screen at once (detail, row, badge). */
function apply(tx: Transaction): void {
  const d = txDetail.value;
  if (d?.oid === tx.oid) {
    txDetail.value = { ...d, tx: d.tx ? { ...d.tx, ...tx, documents: d.tx.documents } : tx };
  }
  const rows = transactionRows.value.map((r) =>
    r.oid === tx.oid ? { ...r, needsAttention: tx.needsAttention } : r
  );
  transactionRows.value = rows;
  transactionAttention.value = rows.filter((r) => r.needsAttention).length;
}

/**
 * Declares "no receipt" on the transaction `oid`. Answers null when recorded, else the
 * server's message (shown beside the form).
 */
export async function declareNoReceipt(
  oid: string,
  what: string,
  reason: string,
): Promise<string | null> {
  const r = await busy(async () => {
    try {
      const { transaction } = await call(api.declare, {
        body: { oid, what, reason, confirm: true },
      });
      apply(transaction);
      return null;
    } catch (err) {
      return messageOf(err);
    }
  });
  if (r === null) {
    showNotice(t("declare.done"));
    await changed("transaction", oid);
  }
  return r ?? null;
}

/** Withdraws the declaration on `oid`, after a confirmation. */
export function withdrawNoReceipt(oid: string): void {
  askConfirm({
    message: t("declare.withdrawConfirm"),
    showNo: true,
    yesLabel: t("declare.withdraw"),
    danger: true,
    onYes: async () => {
      const ok = await busy(async () => {
        try {
          apply((await call(api.withdraw, { body: { oid } })).transaction);
          return true;
        } catch (err) {
          showNotice(messageOf(err));
          return false;
        }
      });
      if (ok) {
        showNotice(t("declare.withdrawn"));
        await changed("transaction", oid);
      }
    },
  });
}

/**
 * The declarations on the card transactions of an approval's request (the approval detail
 * shows them to those who see the approval); an empty list when there are none or the call
 * fails (nothing to show).
 */
export async function loadDeclarationReviews(approvalOid: string): Promise<DeclarationReview[]> {
  try {
    return (await call(api.reviews, { query: { approval: approvalOid } })).reviews;
  } catch {
    return [];
  }
}

/**
 * The receipts read on the holder's phone, on the transactions of an approval's request (none
 * when the call fails: the approval detail shows the rest).
 */
export async function loadReceiptChecks(approvalOid: string): Promise<ReceiptCheck[]> {
  try {
    return (await call(api.receiptChecks, { query: { approval: approvalOid } })).checks;
  } catch {
    return [];
  }
}

/**
 * An approver accepts (or refuses) a pending declaration, where the organisation requires
 * approval of them. Answers null when done, else the server's message.
 */
export async function decideNoReceipt(oid: string, approve: boolean): Promise<string | null> {
  const r = await busy(async () => {
    try {
      await call(api.decide, { body: { oid, approve } });
      return null;
    } catch (err) {
      return messageOf(err);
    }
  });
  if (r === null) showNotice(t(approve ? "declare.acceptedNotice" : "declare.refusedNotice"));
  return r ?? null;
}
