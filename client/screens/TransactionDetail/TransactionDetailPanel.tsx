import { useSignals } from "@preact/signals-react/runtime";
import {
  addTransactionComment,
  deleteTransactionComment,
  openMovedTo,
  startFlip,
} from "../../actions/transactions.ts";
import { ActionBar } from "../../components/ActionBar.tsx";
import { Comments } from "../../components/Comments.tsx";
import { Field } from "../../components/Field.tsx";
import { locale, t, type TranslationKey } from "../../i18n/index.ts";
import {
  amountDisplay,
  refusedLabel,
  refusedText,
  shortDate,
  shortDateTime,
} from "../../i18n/display.ts";
import { cutReason, TX_STATUS } from "../../shared/transaction_rules.ts";
import { queuedFor } from "../../state/outq.ts";
import { working } from "../../state/session.ts";
import { txDetail } from "../../state/transactions.ts";
import { txFromRow } from "../../state/tx_source.ts";
import { txStatusLabel } from "../Transactions/TxRow.tsx";
import { CaptureSection } from "./CaptureSection.tsx";
import { ReadingCard } from "./ReadingCard.tsx";
import { Chooser, receiptAccept, ReceiptsSection } from "./ReceiptsSection.tsx";
import { VatRow } from "./VatRow.tsx";
import { NoReceiptDeclaration } from "./NoReceiptDeclaration.tsx";
import { OfflineVat } from "./OfflineVat.tsx";

const typeLabel = (type: string) =>
  type === "Purchase" || type === "Refund" ? t(`tx.type.${type}` as TranslationKey) : type;

/**
 * spec §2 Transaction detail: card id, merchant name, type, status (Moved: a link to the
 * transaction it moved to, spec §4), refused reason as its abbreviation with the full text cut
 * at 130 characters (§8, §9), created date 'MM/dd HH:mm' UTC, merchant city and country;
 * "Add receipt" (a phone offers the camera or the files: the job people come for) is the
 * sticky bar's primary action; Flip, as "Move to another expense", is in its menu. Receipts (viewer, attach, remove, notes), the VAT type row
 * and the documents come first (spec §2 Transaction detail); refused transactions show no receipts
 * or VAT (§4). Comments: the card author's notes on the transaction (add, delete their own).
 * Offline, a transaction never opened on this phone shows what its row knows, takes a photo or
 * a receipt all the same (queued), and says what waits for the network (spec §1 offline).
 */
export function TransactionDetailBody() {
  useSignals();
  const d = txDetail.value;
  if (!d) return null;
  const r = d.tx ?? d.row;
  if (!r) return <p className="loading" role="status">{t("app.loading")}</p>;
  const loc = locale.value;
  const refused = r.transactionStatus === TX_STATUS.refused;
  const moved = r.transactionStatus === TX_STATUS.moved;
  const { amount, original } = amountDisplay(r, loc);
  const at = Date.parse(r.transactionCreateDate);
  const due = r.receiptDueDate ? Date.parse(r.receiptDueDate) : NaN;
  // Offline and never opened here: made from its row (spec §1 offline; actions/tx_cache.ts).
  const fromRow = txFromRow.value === d.oid;
  // spec §4, §5: no receipts on refused or moved ones, none added once reviewed.
  const canAttach = !!d.tx && !refused && !moved && !d.tx.readOnlyVAT;
  return (
    <div className="request-detail tx-detail">
      <div className="detail-head">
        <span className={`status tx-status tx-status-${r.transactionStatus.toLowerCase()}`}>
          {refused && r.refusedReason
            ? refusedLabel(r.refusedReason)
            : txStatusLabel(r.transactionStatus)}
        </span>
        <span className="detail-amount">{amount}</span>
      </div>
      {d.tx && !refused && !moved
        ? (
          <>
            {fromRow ? <p className="offline-note">{t("tx.offlineFromList")}</p> : null}
            {/* Take photo first: the receipt is the job people come for (spec §5 Upload). */}
            {canAttach ? <CaptureSection tx={d.tx} /> : null}
            <ReadingCard tx={d.tx} />
            <ReceiptsSection tx={d.tx} />
            <NoReceiptDeclaration tx={d.tx} />
            {fromRow ? <OfflineVat /> : <VatRow tx={d.tx} />}
          </>
        )
        : null}
      <dl className="kvs">
        <Field label={t("tx.cardId")}>{r.cardId}</Field>
        <Field label={t("tx.merchant")}>{r.merchantname}</Field>
        <Field label={t("tx.type")}>{typeLabel(r.transactionType)}</Field>
        <Field label={t("tx.status")}>
          {moved && (r.movedToOid || r.movedToExpenseOid)
            ? (
              <button
                type="button"
                className="link"
                aria-label={r.movedToOid ? t("tx.movedToTx") : t("tx.movedTo")}
                onClick={() => void openMovedTo(r)}
              >
                {txStatusLabel(r.transactionStatus)}
              </button>
            )
            : txStatusLabel(r.transactionStatus)}
        </Field>
        {refused
          ? (
            <Field label={t("tx.refusedReason")}>
              {r.refusedReason
                ? (
                  <>
                    <strong>{refusedLabel(r.refusedReason)}</strong>
                    {refusedText(r.refusedReason)
                      ? <span className="tx-reason-text">{refusedText(r.refusedReason)}</span>
                      : null}
                    <span className="tx-reason" lang="en" title={t("refused.original")}>
                      {cutReason(r.refusedReason)}
                    </span>
                  </>
                )
                : null}
            </Field>
          )
          : null}
        <Field label={t("tx.amount")}>
          {original ? `${amount} (${t("tx.original", { amount: original })})` : amount}
        </Field>
        <Field label={t("tx.created")}>{Number.isNaN(at) ? "" : shortDateTime(at)}</Field>
        <Field label={t("tx.merchantCity")}>{r.merchantcity}</Field>
        <Field label={t("tx.merchantCountry")}>{r.merchantcountry}</Field>
        <Field label={t("tx.purpose")}>{r.originalPurpose}</Field>
        {!refused && !Number.isNaN(due)
          ? (
            <Field label={r.needsAttention ? t("tx.receiptOverdue") : t("tx.receiptDue")}>
              {shortDate(due, loc)}
            </Field>
          )
          : null}
      </dl>
      <ActionBar
        primary={canAttach
          ? <Chooser label={t("receipts.add")} accept={receiptAccept()} className="primary" />
          : null}
        more={[
          r.canFlip && {
            key: "flip",
            label: t("tx.moveTo"),
            hint: t("tx.moveToHint"),
            disabled: working.value,
            onSelect: () => void startFlip(),
          },
        ]}
      />
      {/* After the sticky action bar, so the bar never covers the comment box. */}
      <Comments
        comments={d.comments}
        onAdd={moved ? undefined : addTransactionComment}
        onDelete={deleteTransactionComment}
        pending={queuedFor("comment", d.oid)}
      />
    </div>
  );
}
