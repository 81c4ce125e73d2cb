import { useSignals } from "@preact/signals-react/runtime";
import type { ExpenseRow } from "../../shared/contract/requests.ts";
import { openCard } from "../../actions/cards.ts";
import { openDetail } from "../../actions/requests.ts";
import { RowList } from "../../components/RowList.tsx";
import { Tabs } from "../../components/Tabs.tsx";
import { locale, t } from "../../i18n/index.ts";
import { formatMoney, shortDate } from "../../i18n/display.ts";
import {
  type CardState,
  cardState,
  notActiveStyle,
  WALLET_FILTERS,
  type WalletFilterKey,
  walletRowOpens,
} from "../../lib/cards.ts";
import { isLargeAmount } from "../../shared/money.ts";
import { walletFilter } from "../../state/wallet.ts";
import { visibleWalletRows, walletCounts } from "../../state/wallet_rows.ts";
import { cardStateLabel } from "../CardDetail/CardDetailPanel.tsx";

/**
 * spec §2 Wallet: sub-filters notClosed (default), Active, Closed; rows open the card, or the
 * expense when it has no card (a flipped expense, §9).
 */
export function WalletTab() {
  useSignals();
  const f = walletFilter.value;
  const rows = visibleWalletRows.value;
  const counts = walletCounts.value;
  return (
    <div className="wallet-tab">
      <Tabs<WalletFilterKey>
        label={t("wallet.subLabel")}
        tabs={WALLET_FILTERS.map((k) => ({ key: k, label: t(`wallet.sub.${k}`) }))}
        active={f}
        onSelect={(k) => (walletFilter.value = k)}
        small
      />
      <RowList
        rows={rows}
        total={counts[f]}
        filtered={false}
        label={t(`wallet.sub.${f}`)}
        empty={t("wallet.empty")}
        emptyFiltered={t("wallet.empty")}
        resetOn={[f]}
        render={(r) => <CardRow key={r.oid} row={r} />}
      />
    </div>
  );
}

/**
 * One card of the wallet: its request's issue date, id, card status, purpose and what is left
 * on the card; the 'not active' style unless the card is Active or Closed (spec §2).
 */
function CardRow(props: { row: ExpenseRow }) {
  useSignals();
  const r = props.row;
  const loc = locale.value;
  const state = cardState(r);
  // An expense a flip made has no card: it opens as the expense it is (no dead card view).
  const card = walletRowOpens(r) === "card";
  return (
    <li>
      <button
        type="button"
        className={`request-row card-row${notActiveStyle(r) ? " not-active" : ""}${
          card ? "" : " no-card"
        }`}
        onClick={() => card ? openCard(r.oid) : openDetail(r.oid)}
      >
        <span className="row-top">
          <span className="row-date">{shortDate(r.issueDate, loc)}</span>
          <span className="row-cc">{r.id}</span>
          <span className={`status card-status card-status-${state.toLowerCase()}`}>
            {card ? cardStateLabel(state) : t("wallet.noCard")}
          </span>
        </span>
        <span className="row-bottom">
          {card ? <span className="card-glyph" aria-hidden="true" /> : null}
          <span className="row-purpose">{r.purpose}</span>
          <RowAmount row={r} card={card} state={state} />
        </span>
      </button>
    </li>
  );
}

/**
 * spec §2 Wallet: a card row shows what is left on the card (the issuer's available amount),
 * not the amount requested; a closed card shows no amount that looks spendable. An expense a
 * flip made (no card of its own) shows its amount, as in the Requests list.
 */
function RowAmount(props: { row: ExpenseRow; card: boolean; state: CardState }) {
  const r = props.row;
  const loc = locale.value;
  if (!props.card) {
    return (
      <span className={`amount${isLargeAmount(r.amount) ? " large-amount" : ""}`}>
        {formatMoney(r.amount, r.pricingCurrency, loc)}
      </span>
    );
  }
  if (props.state === "Closed" || r.cardAvailable === null || r.cardAvailable === undefined) {
    return null;
  }
  return (
    <span className={`amount card-left${isLargeAmount(r.cardAvailable) ? " large-amount" : ""}`}>
      {t("wallet.left", { amount: formatMoney(r.cardAvailable, r.pricingCurrency, loc) })}
    </span>
  );
}
