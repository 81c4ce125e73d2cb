import { useEffect } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { openDetail } from "../../actions/requests.ts";
import { startCreate } from "../../actions/request_form.ts";
import { Tabs } from "../../components/Tabs.tsx";
import { useProgressive } from "../../components/useProgressive.ts";
import { t } from "../../i18n/index.ts";
import {
  countsBySubFilter,
  filters,
  filtersActive,
  SUB_FILTERS,
  type SubFilter,
  subFilter,
  visibleRows,
} from "../../state/requests.ts";
import { profile } from "../../state/session.ts";
import { RequestRow } from "./RequestRow.tsx";

/** spec §2 Requests: sub-filters, the rows, and the new-request button in the thumb zone. */
export function RequestsTab() {
  useSignals();
  const rows = visibleRows.value;
  const counts = countsBySubFilter.value;
  const sf = subFilter.value;
  const f = filters.value;
  const { limit, sentinel } = useProgressive(rows.length, [sf, f]);
  // After the browser painted these rows (read by `deno task bench`).
  useEffect(() => {
    if (!rows.length) return;
    requestAnimationFrame(() => setTimeout(() => performance.mark("qc:requests:painted")));
  }, [rows]);
  const subTabs = SUB_FILTERS.map((k) => ({
    key: k,
    label: t(`requests.sub.${k}`),
    count: counts[k],
  }));
  return (
    <div className="requests-tab">
      <Tabs<SubFilter>
        label={t("requests.subLabel")}
        tabs={subTabs.map((s) => ({ key: s.key, label: s.label }))}
        active={sf}
        onSelect={(k) => (subFilter.value = k)}
        small
      />
      {filtersActive.value
        ? (
          <p className="filter-note" role="status">
            {t("requests.filtered", { count: rows.length, total: counts[sf] })}
          </p>
        )
        : null}
      {rows.length === 0
        ? (
          <p className="empty">
            {filtersActive.value && counts[sf] ? t("requests.emptyFiltered") : t("requests.empty")}
          </p>
        )
        : (
          <ul className="request-list" aria-label={t(`requests.sub.${sf}`)}>
            {rows.slice(0, limit).map((r) => (
              <RequestRow
                key={r.oid}
                row={r}
                onOpen={openDetail}
              />
            ))}
            {rows.length > limit ? <li ref={sentinel} className="more" aria-hidden="true" /> : null}
          </ul>
        )}
      {profile.value?.canRequest
        ? (
          <button
            type="button"
            className="fab primary"
            aria-label={t("requests.new")}
            onClick={() => startCreate()}
          >
            <span aria-hidden="true">+</span> {t("requests.new")}
          </button>
        )
        : null}
    </div>
  );
}
