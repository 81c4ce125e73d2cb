import { useSignals } from "@preact/signals-react/runtime";
import type { TransactionRow } from "../../shared/contract/transactions.ts";
import { locale, t, type TranslationKey } from "../../i18n/index.ts";
import {
  amountDisplay,
  displayZone,
  refusedLabel,
  shortDate,
  shortDateTime,
} from "../../i18n/display.ts";
import { hasFlipMarker, TX_STATUS } from "../../shared/transaction_rules.ts";
import { showsReceipts } from "../../lib/transaction_view.ts";
import { Icon } from "../../components/Icon.tsx";
import { queuedFor } from "../../state/outq.ts";
import { dueState } from "../../lib/receipts_due.ts";

/** A transaction status in the person's language (unknown ones as the server wrote them). */
export function txStatusLabel(status: string): string {
  return (Object.values(TX_STATUS) as string[]).includes(status)
    ? t(`tx.status.${status}` as TranslationKey)
    : status;
}

/**
 * spec §2 transaction row: created date and time (UTC), merchant, status or the refused
 * abbreviation (§8), the flip marker, the receipt-count indicator, the amount and, when it
 * differs, the merchant's amount in its currency. A purchase that needs a receipt (spec §5)
 * says so in words on a line of its own: "Receipt missing · Overdue 2 days" once overdue,
 * "Receipt due 12/03/2026" (spec §9 short date) before.
 */
export function TxRow(props: { row: TransactionRow; onOpen: (oid: string) => void }) {
  useSignals();
  const r = props.row;
  const loc = locale.value;
  const refused = r.transactionStatus === TX_STATUS.refused;
  const { amount, original } = amountDisplay(r, loc);
  const at = Date.parse(r.transactionCreateDate);
  const due = dueState(r, Date.now(), displayZone());
  return (
    <li>
      <button
        type="button"
        className={`request-row tx-row${refused ? " tx-refused" : ""}${
          due?.overdue ? " needs-attention" : due ? " needs-receipt" : ""
        }`}
        onClick={() => props.onOpen(r.oid)}
      >
        <span className="row-top">
          <span className="row-date">{Number.isNaN(at) ? "" : shortDateTime(at)}</span>
          <span className="row-cc">{r.cardId}</span>
          {hasFlipMarker(r)
            ? (
              <span className="tx-flip" title={t("tx.flipped")}>
                <Icon name="flip" size={16} />
                <span className="sr-only">{t("tx.flipped")}</span>
              </span>
            )
            : null}
          {showsReceipts(r)
            ? (
              <span className="tx-receipts" title={t("tx.receipts", { count: r.nbReceipts })}>
                <span aria-hidden="true">
                  <Icon name="receipt" size={16} /> {r.nbReceipts}
                </span>
                <span className="sr-only">{t("tx.receipts", { count: r.nbReceipts })}</span>
              </span>
            )
            : null}
          {queuedFor("receipt", r.oid).length
            ? <span className="pending-marker">{t("capture.pending")}</span>
            : null}
          <span className={`status tx-status tx-status-${r.transactionStatus.toLowerCase()}`}>
            {refused && r.refusedReason
              ? refusedLabel(r.refusedReason)
              : txStatusLabel(r.transactionStatus)}
          </span>
        </span>
        <span className="row-bottom">
          <span className="row-purpose">{r.merchantname}</span>
          {original ? <span className="tx-original">{original}</span> : null}
          <span className="amount">{amount}</span>
        </span>
        {due
          ? (
            <span className="row-due">
              {due.overdue
                ? (
                  <>
                    <span className="attention-marker">{t("attention.receiptMissing")}</span>
                    <span className="due-words">
                      {due.days ? t("tx.overdueFor", { count: due.days }) : t("tx.overdueToday")}
                    </span>
                  </>
                )
                : (
                  <span className="receipt-marker">
                    {t("tx.receiptDueOn", { date: shortDate(due.at, loc) })}
                  </span>
                )}
            </span>
          )
          : null}
      </button>
    </li>
  );
}
