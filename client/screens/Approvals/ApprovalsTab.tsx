import { useSignals } from "@preact/signals-react/runtime";
import { openApproval } from "../../actions/approvals.ts";
import { Tabs } from "../../components/Tabs.tsx";
import { RowList } from "../../components/RowList.tsx";
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
      <RowList
        rows={rows}
        total={counts[sf]}
        filtered={approvalFiltersActive.value}
        label={t(`approvals.sub.${sf}`)}
        empty={t("approvals.empty")}
        emptyFiltered={t("approvals.emptyFiltered")}
        resetOn={[sf, f]}
        render={(r) => <ApprovalRow key={r.oid} row={r} onOpen={openApproval} />}
      />
    </div>
  );
}
