import { useSignals } from "@preact/signals-react/runtime";
import type { ExpenseRow } from "../../shared/contract/requests.ts";
import { locale, t, type TranslationKey } from "../../i18n/index.ts";
import { formatMoney, shortDate } from "../../i18n/display.ts";
import { isLargeAmount } from "../../shared/money.ts";

export const statusLabel = (r: Pick<ExpenseRow, "statusCode" | "cardStatusCode">) =>
  r.cardStatusCode === "Closed"
    ? t("status.closed")
    : t(`status.${r.statusCode}` as TranslationKey);

/**
 * spec §2 request row: issue date, cost center, purpose and amount (large above 10000); a
 * request that needs its author (created, not submitted) is marked in words.
 */
export function RequestRow(props: { row: ExpenseRow; onOpen: (oid: string) => void }) {
  useSignals();
  const r = props.row;
  const loc = locale.value;
  const large = isLargeAmount(r.amount);
  return (
    <li>
      <button
        type="button"
        className={`request-row${r.needsAttention ? " needs-attention" : ""}`}
        onClick={() => props.onOpen(r.oid)}
      >
        <span className="row-top">
          <span className="row-date">{shortDate(r.issueDate, loc)}</span>
          <span className="row-cc">{r.costCenter}</span>
          {r.needsAttention
            ? <span className="attention-marker">{t("attention.toSubmit")}</span>
            : null}
          <span className={`status status-${r.statusCode}`}>{statusLabel(r)}</span>
        </span>
        <span className="row-bottom">
          <span className="row-purpose">{r.purpose}</span>
          <span className={`amount${large ? " large-amount" : ""}`}>
            {formatMoney(r.amount, r.pricingCurrency, loc)}
            {large ? <span className="sr-only">{` (${t("requests.largeAmount")})`}</span> : null}
          </span>
        </span>
      </button>
    </li>
  );
}
