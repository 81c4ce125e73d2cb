import { signal } from "@preact/signals-react";
import { useSignals } from "@preact/signals-react/runtime";
import { refreshLists } from "../../actions/session.ts";
import { Tabs } from "../../components/Tabs.tsx";
import { t } from "../../i18n/index.ts";
import { attentionCount, profile, supportUrl, working } from "../../state/session.ts";
import { panel } from "../../state/ui.ts";
import { filtersActive } from "../../state/requests.ts";
import { openFilter } from "../Filter/FilterPanel.tsx";
import { RequestsTab } from "../Requests/RequestsTab.tsx";

export type MainTab = "requests" | "wallet" | "transactions" | "support";
export const activeTab = signal<MainTab>("requests");

/**
 * spec §2 main list in request mode: tabs Requests, Wallet, Transactions (+ Support when a
 * support url exists), header buttons refresh and filter, the attention badge.
 */
export function MainScreen() {
  useSignals();
  const p = profile.value;
  const tabs = [
    { key: "requests" as const, label: t("main.requests"), badge: attentionCount.value },
    { key: "wallet" as const, label: t("main.wallet") },
    { key: "transactions" as const, label: t("main.transactions") },
    ...(supportUrl.value ? [{ key: "support" as const, label: t("main.support") }] : []),
  ];
  const tab = activeTab.value;
  return (
    <main className="main-screen">
      <header className="app-header">
        <button
          type="button"
          className="icon-button"
          aria-label={t("menu.open")}
          onClick={() => (panel.value = "menu")}
        >
          ☰
        </button>
        <h1>{p ? t("main.hello", { name: p.fname }) : t("app.name")}</h1>
        <button
          type="button"
          className="icon-button"
          aria-label={t("main.refresh")}
          disabled={working.value}
          onClick={() => refreshLists({ networkFirst: true })}
        >
          ⟳
        </button>
        <button
          type="button"
          className={`icon-button${filtersActive.value ? " active" : ""}`}
          aria-label={t("main.filter")}
          aria-pressed={filtersActive.value}
          disabled={tab !== "requests"}
          onClick={openFilter}
        >
          <svg width="22" height="22" viewBox="0 0 24 24" aria-hidden="true">
            <path d="M3 5h18l-7 8v6l-4-2v-4z" fill="none" stroke="currentColor" stroke-width="2" />
          </svg>
        </button>
      </header>
      <Tabs
        label={t("app.name")}
        tabs={tabs}
        active={tab}
        onSelect={(k) => (activeTab.value = k)}
      />
      <section
        className="tab-body"
        role="tabpanel"
        aria-label={tabs.find((x) => x.key === tab)?.label}
      >
        {tab === "requests" ? <RequestsTab /> : null}
        {tab === "wallet" ? <p className="empty">{t("main.noCards")}</p> : null}
        {tab === "transactions" ? <p className="empty">{t("main.noTransactions")}</p> : null}
        {tab === "support"
          ? supportUrl.value
            ? <iframe className="support-frame" title={t("main.support")} src={supportUrl.value} />
            : <p className="empty">{t("main.noSupport")}</p>
          : null}
      </section>
    </main>
  );
}
