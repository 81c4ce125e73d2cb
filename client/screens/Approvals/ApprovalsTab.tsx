import { useEffect, useRef, useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { openApproval } from "../../actions/approvals.ts";
import { Tabs } from "../../components/Tabs.tsx";
import { t } from "../../i18n/index.ts";
import {
  APPROVAL_SUB_FILTERS,
  approvalCounts,
  approvalFilters,
  approvalFiltersActive,
  type ApprovalSubFilter,
  approvalSubFilter,
  visibleApprovals,
} from "../../state/approvals.ts";
import { FIRST_ROWS } from "../Requests/RequestsTab.tsx";
import { AppModeHint } from "./AppModeHint.tsx";
import { ApprovalRow } from "./ApprovalRow.tsx";

const MORE_ROWS = 200;

/** spec §2 Approvals: sub-filters new-pending (default), approved, rejected, cancelled. */
export function ApprovalsTab() {
  useSignals();
  const rows = visibleApprovals.value;
  const counts = approvalCounts.value;
  const sf = approvalSubFilter.value;
  const f = approvalFilters.value;
  const [limit, setLimit] = useState(FIRST_ROWS);
  const sentinel = useRef<HTMLLIElement>(null);
  useEffect(() => setLimit(FIRST_ROWS), [sf, f]);
  useEffect(() => {
    const el = sentinel.current;
    if (!el || typeof IntersectionObserver === "undefined") return;
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) setLimit((n) => n + MORE_ROWS);
    });
    io.observe(el);
    return () => io.disconnect();
  }, [limit, rows.length]);
  return (
    <div className="requests-tab approvals-tab">
      <AppModeHint />
      <Tabs<ApprovalSubFilter>
        label={t("approvals.subLabel")}
        tabs={APPROVAL_SUB_FILTERS.map((k) => ({ key: k, label: t(`approvals.sub.${k}`) }))}
        active={sf}
        onSelect={(k) => (approvalSubFilter.value = k)}
        small
      />
      {approvalFiltersActive.value
        ? (
          <p className="filter-note" role="status">
            {t("requests.filtered", { count: rows.length, total: counts[sf] })}
          </p>
        )
        : null}
      {rows.length === 0
        ? (
          <p className="empty">
            {approvalFiltersActive.value && counts[sf]
              ? t("approvals.emptyFiltered")
              : t("approvals.empty")}
          </p>
        )
        : (
          <ul className="request-list" aria-label={t(`approvals.sub.${sf}`)}>
            {rows.slice(0, limit).map((r) => (
              <ApprovalRow key={r.oid} row={r} onOpen={openApproval} />
            ))}
            {rows.length > limit ? <li ref={sentinel} className="more" aria-hidden="true" /> : null}
          </ul>
        )}
    </div>
  );
}
