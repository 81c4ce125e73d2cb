import { useSignals } from "@preact/signals-react/runtime";
import { openApproval } from "../../actions/approvals.ts";
import { Tabs } from "../../components/Tabs.tsx";
import { useProgressive } from "../../components/useProgressive.ts";
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
import { AppModeHint } from "./AppModeHint.tsx";
import { ApprovalRow } from "./ApprovalRow.tsx";

/** spec §2 Approvals: sub-filters new-pending (default), approved, rejected, cancelled. */
export function ApprovalsTab() {
  useSignals();
  const rows = visibleApprovals.value;
  const counts = approvalCounts.value;
  const sf = approvalSubFilter.value;
  const f = approvalFilters.value;
  const { limit, sentinel } = useProgressive(rows.length, [sf, f]);
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
