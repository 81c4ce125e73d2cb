import { useLayoutEffect } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { openDetail } from "../../actions/requests.ts";
import { startCreate } from "../../actions/request_form.ts";
import { Tabs } from "../../components/Tabs.tsx";
import { RowList } from "../../components/RowList.tsx";
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
  // After the browser painted these rows (read by `deno task bench`): a layout effect runs
  // once they are in the document, so the next frame is the one that paints them (an
  // effect runs only after that frame, which counted one frame too many).
  useLayoutEffect(() => {
    if (!rows.length) return;
    requestAnimationFrame(() =>
      setTimeout(() =>
        performance.mark("qc:requests:painted", {
          detail: { rows: document.querySelectorAll(".request-row").length },
        })
      )
    );
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
      <RowList
        rows={rows}
        total={counts[sf]}
        filtered={filtersActive.value}
        label={t(`requests.sub.${sf}`)}
        empty={t("requests.empty")}
        emptyFiltered={t("requests.emptyFiltered")}
        resetOn={[sf, f]}
        render={(r) => <RequestRow key={r.oid} row={r} onOpen={openDetail} />}
      />
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
