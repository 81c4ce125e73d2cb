import { useEffect, useLayoutEffect } from "react";
import { useComputed } from "@preact/signals-react";
import { useSignals } from "@preact/signals-react/runtime";
import { openTransaction } from "../../actions/transactions.ts";
import { useProgressive } from "../../components/useProgressive.ts";
import { t } from "../../i18n/index.ts";
import { groupTransactions } from "../../i18n/display.ts";
import { splitNeedsReceipt } from "../../lib/receipts_due.ts";
import {
  landOnReceipts,
  receiptsNeeded,
  transactionRows,
  txSearch,
} from "../../state/transactions.ts";
import { TxRow } from "./TxRow.tsx";

/** The last tap on the tab {@link landOnReceipts} counted that the tab acted on. */
let landed = 0;

/**
 * spec §2 Transactions: a search box (merchant, purpose, amount) and the transactions in
 * groups Today, Yesterday, Last week and Older (UTC), Moved ones hidden; rows open the
 * detail. Above them, pinned, "Needs a receipt (n)": every purchase still waiting for its
 * receipt (spec §5), overdue first then by due date; each transaction is listed once, back in
 * its day's group when its receipt is in. Long lists render progressively, like Requests.
 */
export function TransactionsTab() {
  useSignals();
  const query = txSearch.value;
  const { needing, sections } = useComputed(() => {
    const now = Date.now();
    return splitNeedsReceipt(groupTransactions(transactionRows.value, txSearch.value, now), now);
  }).value;
  const total = needing.length + sections.reduce((n, s) => n + s.rows.length, 0);
  const { limit, sentinel } = useProgressive(total, [query]);
  // Tapping the tab while its badge shows lands on the group, once a tap: no search hides any
  // of it, and the tab is shown from its top, where the group is pinned.
  const land = landOnReceipts.value;
  useEffect(() => {
    if (land === landed) return;
    landed = land;
    if (txSearch.peek() && needing.length < receiptsNeeded.peek()) txSearch.value = "";
    scrollTo({ top: 0 });
  }, [land]);
  // After the browser painted these rows (read by `deno task bench`): the layout effect runs
  // before that paint, the frame's callback just before it, the timeout right after it.
  useLayoutEffect(() => {
    if (!total) return;
    requestAnimationFrame(() => setTimeout(() => performance.mark("qc:transactions:painted")));
  }, [sections, needing]);
  let left = limit;
  const shown = needing.slice(0, left);
  left -= shown.length;
  const needLabel = t("tx.group.needsReceipt", { count: needing.length });
  return (
    <div className="transactions-tab">
      <div className="tx-search">
        <input
          type="search"
          className="search"
          aria-label={t("tx.search")}
          placeholder={t("tx.searchHint")}
          value={query}
          onInput={(e) => (txSearch.value = (e.target as HTMLInputElement).value)}
        />
      </div>
      {query.trim() && total
        ? <p className="filter-note" role="status">{t("tx.found", { count: total })}</p>
        : null}
      {total === 0
        ? (
          <p className="empty" role="status">
            {query.trim()
              ? t("tx.noMatch", { query: query.trim() })
              : transactionRows.value.length
              ? t("tx.empty")
              : t("main.noTransactions")}
          </p>
        )
        : null}
      {total && shown.length
        ? (
          <section className="tx-group tx-needs-receipt" aria-label={needLabel}>
            <h3 className="tx-group-title">{needLabel}</h3>
            <ul className="request-list" aria-label={needLabel}>
              {shown.map((r) => <TxRow key={r.oid} row={r} onOpen={openTransaction} />)}
            </ul>
          </section>
        )
        : null}
      {total
        ? sections.map((s) => {
          if (left <= 0) return null;
          const rows = s.rows.slice(0, left);
          left -= rows.length;
          const label = t(`tx.group.${s.group}`);
          return (
            <section key={s.group} className="tx-group" aria-label={label}>
              <h3 className="tx-group-title">{label}</h3>
              <ul className="request-list" aria-label={label}>
                {rows.map((r) => <TxRow key={r.oid} row={r} onOpen={openTransaction} />)}
              </ul>
            </section>
          );
        })
        : null}
      {total > limit ? <div ref={sentinel as never} className="more" aria-hidden="true" /> : null}
    </div>
  );
}
