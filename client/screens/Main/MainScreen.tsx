import { useEffect, useRef } from "react";
import { signal } from "@preact/signals-react";
import { useSignals } from "@preact/signals-react/runtime";
import { setMode } from "../../actions/approvals.ts";
import { refreshAll } from "../../actions/lists.ts";
import { startCreate } from "../../actions/request_form.ts";
import { takeShortcut } from "../../actions/shortcuts.ts";
import { PullToRefresh } from "../../components/PullToRefresh.tsx";
import { BottomNav, type NavItem } from "../../components/BottomNav.tsx";
import { t } from "../../i18n/index.ts";
import { profile, requestAttention, supportUrl, working } from "../../state/session.ts";
import { landOnReceipts, receiptsNeeded } from "../../state/transactions.ts";
import { panel } from "../../state/ui.ts";
import { filtersActive } from "../../state/requests.ts";
import { approvalFiltersActive, mode, toDecideCount } from "../../state/approvals.ts";
import { ApprovalsTab } from "../Approvals/ApprovalsTab.tsx";
import { openFilter } from "../Filter/FilterPanel.tsx";
import { RequestsTab } from "../Requests/RequestsTab.tsx";
import { SupportTab } from "./SupportTab.tsx";
import { WalletTab } from "../Wallet/WalletTab.tsx";
import { TransactionsTab } from "../Transactions/TransactionsTab.tsx";
import { Icon } from "../../components/Icon.tsx";

export type MainTab = "requests" | "wallet" | "transactions" | "approvals" | "support";
/** The tab shown first: Requests, or the one the address names ('#transactions'). */
function firstTab(): MainTab {
  const h = typeof location === "undefined" ? "" : location.hash.slice(1);
  return h === "wallet" || h === "transactions" ? h : "requests";
}
export const activeTab = signal<MainTab>(firstTab());

/**
 * spec §2 main list with tabs: Requests, Wallet, Transactions in request mode, Approvals in
 * approval mode (+ Support when a support url exists), in a bottom navigation bar under the
 * thumb; header buttons refresh and filter. Each badge sits on the tab of what needs the
 * person: requests needing them, transactions waiting for a receipt (due or overdue),
 * approvals waiting.
 */
export function MainScreen() {
  useSignals();
  const screen = useRef<HTMLElement>(null);
  useEffect(openShortcut, []);
  // Back online: the lists are read again, which also takes away the offline banner (one
  // neutral offline state that clears itself, without a tap).
  useEffect(() => {
    const online = () => void refreshAll();
    addEventListener("online", online);
    return () => removeEventListener("online", online);
  }, []);
  const p = profile.value;
  const approvalMode = mode.value === "approval";
  const tabs: NavItem<MainTab>[] = [
    ...(approvalMode
      ? [{
        key: "approvals" as const,
        label: t("main.approvals"),
        icon: "approvals" as const,
        badge: toDecideCount.value,
      }]
      : [
        {
          key: "requests" as const,
          label: t("main.requests"),
          icon: "requests" as const,
          badge: requestAttention.value,
        },
        { key: "wallet" as const, label: t("main.wallet"), icon: "wallet" as const },
        {
          key: "transactions" as const,
          label: t("main.transactions"),
          icon: "transactions" as const,
          // spec §5: every purchase waiting for its receipt, overdue or not yet.
          badge: receiptsNeeded.value,
        },
      ]),
    ...(supportUrl.value
      ? [{ key: "support" as const, label: t("main.support"), icon: "support" as const }]
      : []),
  ];
  // A mode switch shows the first tab of the new mode.
  const tab = tabs.some((x) => x.key === activeTab.value) ? activeTab.value : tabs[0].key;
  const filterable = tab === "requests" || tab === "approvals";
  const filtered = tab === "approvals" ? approvalFiltersActive.value : filtersActive.value;
  return (
    <main className="main-screen" ref={screen}>
      <header className="app-header">
        <button
          type="button"
          className="icon-button"
          aria-label={t("menu.open")}
          onClick={() => (panel.value = "menu")}
        >
          <Icon name="menu" />
        </button>
        <h1>
          {p ? t("main.hello", { name: p.fname }) : t("app.name")}
          {approvalMode ? <small className="mode-chip">{t("mode.approval")}</small> : null}
        </h1>
        <button
          type="button"
          className="icon-button"
          aria-label={t("main.refresh")}
          disabled={working.value}
          onClick={refreshAll}
        >
          <Icon name="refresh" />
        </button>
        <button
          type="button"
          className={`icon-button${filtered ? " active" : ""}`}
          aria-label={t("main.filter")}
          aria-pressed={filtered}
          disabled={!filterable}
          onClick={openFilter}
        >
          <svg width="22" height="22" viewBox="0 0 24 24" aria-hidden="true">
            <path d="M3 5h18l-7 8v6l-4-2v-4z" fill="none" stroke="currentColor" stroke-width="2" />
          </svg>
        </button>
      </header>
      <PullToRefresh target={screen} onRefresh={refreshAll} busy={working.value} />
      <section
        className="tab-body"
        id="main-tabpanel"
        role="tabpanel"
        aria-labelledby={`nav-tab-${tab}`}
      >
        {tab === "requests" ? <RequestsTab /> : null}
        {tab === "approvals" ? <ApprovalsTab /> : null}
        {tab === "wallet" ? <WalletTab /> : null}
        {tab === "transactions" ? <TransactionsTab /> : null}
        {tab === "support" ? <SupportTab /> : null}
      </section>
      <BottomNav
        label={t("main.navigation")}
        items={tabs}
        active={tab}
        onSelect={selectTab}
      />
    </main>
  );
}

/**
 * A tab tapped: shown. Transactions with its badge showing lands on its "Needs a receipt"
 * group (one tap from the badge to the purchase); the rows there open the transaction.
 */
function selectTab(k: MainTab): void {
  if (k === "transactions" && receiptsNeeded.peek()) landOnReceipts.value++;
  activeTab.value = k;
}

/** The manifest shortcut the app was opened with (client/actions/shortcuts.ts), once. */
function openShortcut(): void {
  const shortcut = takeShortcut();
  if (!shortcut) return;
  setMode("request");
  if (shortcut === "wallet") activeTab.value = "wallet";
  else void startCreate();
}
