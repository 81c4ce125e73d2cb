import { useSignals } from "@preact/signals-react/runtime";
import type { TransactionRow } from "../../shared/contract/transactions.ts";
import { openTransaction } from "../../actions/transactions.ts";
import { useProgressive } from "../../components/useProgressive.ts";
import { t } from "../../i18n/index.ts";
import { transactionRows } from "../../state/transactions.ts";
import { TxRow } from "./TxRow.tsx";

const newestFirst = (a: TransactionRow, b: TransactionRow) =>
  (Date.parse(b.transactionCreateDate) || 0) - (Date.parse(a.transactionCreateDate) || 0);

/**
 * The transactions of one card or one expense (card detail, request detail), newest first;
 * rows open the transaction detail. `which` picks them from pwalists' rows.
 */
export function TxList(props: { which: (r: TransactionRow) => boolean; empty?: string }) {
  useSignals();
  const rows = transactionRows.value.filter(props.which).sort(newestFirst);
  const { limit, sentinel } = useProgressive(rows.length, []);
  if (!rows.length && !props.empty) return null;
  return (
    <section aria-label={t("tx.listTitle")} className="tx-list">
      <h3>{t("tx.listTitle")}</h3>
      {rows.length
        ? (
          <ul className="request-list" aria-label={t("tx.listTitle")}>
            {rows.slice(0, limit).map((r) => (
              <TxRow
                key={r.oid}
                row={r}
                onOpen={openTransaction}
              />
            ))}
            {rows.length > limit ? <li ref={sentinel} className="more" aria-hidden="true" /> : null}
          </ul>
        )
        : <p className="empty">{props.empty}</p>}
    </section>
  );
}
