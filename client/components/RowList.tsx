import { useSignals } from "@preact/signals-react/runtime";
import { t } from "../i18n/index.ts";
import { useProgressive } from "./useProgressive.ts";

/**
 * The body of a filtered list tab (Requests, Approvals): the 'filters on' note, the empty
 * text, or the rows, rendered progressively (a screenful first).
 */
export function RowList<R extends { oid: string }>(props: {
  rows: R[];
  /** Rows of the sub-filter before the filters. */
  total: number;
  filtered: boolean;
  label: string;
  empty: string;
  emptyFiltered: string;
  /** When it changes the list starts again from its first rows. */
  resetOn: unknown[];
  render: (row: R) => React.ReactNode;
}) {
  useSignals();
  const { rows, total, filtered } = props;
  const { limit, sentinel } = useProgressive(rows.length, props.resetOn, {
    screenfulFirst: true,
  });
  return (
    <>
      {filtered
        ? (
          <p className="filter-note" role="status">
            {t("requests.filtered", { count: rows.length, total })}
          </p>
        )
        : null}
      {rows.length === 0
        ? <p className="empty">{filtered && total ? props.emptyFiltered : props.empty}</p>
        : (
          <ul className="request-list" aria-label={props.label}>
            {rows.slice(0, limit).map(props.render)}
            {rows.length > limit ? <li ref={sentinel} className="more" aria-hidden="true" /> : null}
          </ul>
        )}
    </>
  );
}
