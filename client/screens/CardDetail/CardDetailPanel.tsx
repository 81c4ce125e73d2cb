import { useEffect } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import {
  addCardComment,
  confirmCardEnd,
  copyCardField,
  copyCardNumber,
  deleteCardComment,
  maskCard,
  revealCard,
  setFrozen,
} from "../../actions/cards.ts";
import { ActionBar, type MoreAction } from "../../components/ActionBar.tsx";
import { Comments } from "../../components/Comments.tsx";
import { Countdown } from "../../components/Countdown.tsx";
import { Field } from "../../components/Field.tsx";
import { locale, t, type TranslationKey } from "../../i18n/index.ts";
import { formatMoney, shortDate } from "../../i18n/display.ts";
import {
  type CardState,
  cardState,
  groupCardNumber,
  maskedNumber,
  validThru,
} from "../../lib/cards.ts";
import { working } from "../../state/session.ts";
import { cardDetail, revealedCard } from "../../state/wallet.ts";
import { CardFace } from "./CardFace.tsx";
import { TxList } from "../Transactions/TxList.tsx";
import { queuedFor } from "../../state/outq.ts";

export const cardStateLabel = (s: CardState) => t(`card.state.${s}` as TranslationKey);

interface Can {
  reveal: boolean;
  freeze: boolean;
  unfreeze: boolean;
  close: boolean;
  cancel: boolean;
}

/**
 * The card's one sticky action bar, like the other details: one primary action (show the
 * card details; copy the number while they show; unblock a blocked card), the rest in the
 * menu, each destructive one named by what it does ('End card', 'Cancel request') and
 * confirmed with that verb in red (spec §4: close and cancel ask for confirmation).
 */
function CardActions(props: { can: Can; shown: boolean; busy: boolean }) {
  const { can, shown, busy } = props;
  const primary = shown
    ? { label: t("card.copy"), run: () => void copyCardNumber() }
    : can.unfreeze
    ? { label: t("card.unfreeze"), run: () => void setFrozen(false) }
    : can.reveal
    ? { label: t("card.reveal"), run: () => void revealCard() }
    : null;
  const more: (MoreAction | false)[] = [
    shown && { key: "hide", label: t("card.hide"), onSelect: maskCard },
    can.freeze && {
      key: "block",
      label: t("card.freeze"),
      hint: t("card.freezeHint"),
      disabled: busy,
      onSelect: () => void setFrozen(true),
    },
    can.close && {
      key: "end",
      label: t("card.close"),
      hint: t("card.closeHint"),
      danger: true,
      disabled: busy,
      onSelect: () => confirmCardEnd("close"),
    },
    can.cancel && {
      key: "cancel",
      label: t("card.cancel"),
      hint: t("card.cancelHint"),
      danger: true,
      disabled: busy,
      onSelect: () => confirmCardEnd("cancel"),
    },
  ];
  return (
    <ActionBar
      primary={primary
        ? (
          <button
            type="button"
            className="primary"
            disabled={busy && !shown}
            onClick={primary.run}
          >
            {primary.label}
          </button>
        )
        : null}
      more={more}
    />
  );
}

/**
 * spec §2 card detail: the card face, status badge, available and allocated amounts,
 * active-until, validity in days (open cards), the request's details and comments; reveal
 * (30 s with a countdown) and copy, block/unblock, end card and cancel its request. Actions are
 * hidden when the card is closed, cancelled, moved or blocked (a blocked card shows Unblock).
 */
export function CardDetailBody() {
  useSignals();
  // The revealed values never outlive the panel.
  useEffect(() => maskCard, []);
  const v = cardDetail.value;
  if (!v) return null;
  const c = v.card;
  const o = v.fallback;
  const row = v.row;
  const loc = locale.value;
  const busy = working.value;
  if (!c && !o && !row) return <p className="loading" role="status">{t("app.loading")}</p>;

  const id = c?.id ?? row?.id ?? "";
  const statusCode = c?.statusCode ?? row?.statusCode ?? "";
  // The freshest word on the card's status: the card, its obfuscated form, then the row.
  const cardStatusCode = (v.source === "obfuscated" ? o?.cardStatusCode : c?.cardStatusCode) ??
    c?.cardStatusCode ?? o?.cardStatusCode ?? row?.cardStatusCode ?? null;
  const state = cardState({
    id,
    statusCode,
    hasCard: true,
    openCard: cardStatusCode !== null ? cardStatusCode !== "Closed" : !!row?.openCard,
    cardStatusCode,
  });
  const r = revealedCard.value;
  const shown = r && r.oid === v.oid ? r : null;
  const face = {
    type: c?.type ?? o?.type ?? "visa",
    holder: c?.cardHolderName ?? o?.cardHolderName ?? "",
    last4: c?.last4 ?? o?.last4 ?? null,
    month: c?.expirationMonth ?? o?.expirationMonth ?? null,
    year: c?.expirationYear ?? o?.expirationYear ?? null,
  };
  const live = v.source === "network" && !!c;
  const ended = state === "Closed" || statusCode === "cancelled" || statusCode === "moved";
  const open = live && !ended && state === "Active";
  const can = {
    reveal: open && c!.canReveal,
    freeze: open && c!.canFreeze,
    unfreeze: live && !ended && state === "Blocked" && c!.canUnfreeze,
    close: open && c!.canClose,
    cancel: open && c!.canCancel,
  };
  const currency = c?.amountCurrency ?? row?.pricingCurrency;

  return (
    <div className="request-detail card-detail">
      <CardFaceOf
        face={face}
        shownPan={shown?.pan ?? null}
        shownCvc={shown?.cvc ?? null}
        state={state}
      />
      {shown
        ? (
          <>
            <Countdown
              until={shown.until}
              text={(seconds) => t("card.hiddenIn", { seconds })}
            />
            {/* The expiry and the CVC can be copied too, not only the number. */}
            <div className="copy-row">
              <button
                type="button"
                className="secondary"
                onClick={() =>
                  void copyCardField(
                    "expiry",
                    face.month && face.year ? validThru(face.month, face.year) : undefined,
                  )}
              >
                {t("card.copyExpiry")}
              </button>
              <button
                type="button"
                className="secondary"
                onClick={() => void copyCardField("cvc")}
              >
                {t("card.copyCvc")}
              </button>
            </div>
          </>
        )
        : null}
      {v.source && v.source !== "network"
        ? <p className="card-source" role="status">{t(`card.source.${v.source}`)}</p>
        : null}

      <div className="detail-head">
        <span className={`status card-status card-status-${state.toLowerCase()}`} role="status">
          {cardStateLabel(state)}
        </span>
        {c && state !== "Closed"
          ? (
            <span className="detail-amount">
              {formatMoney(c.amountAvailable, currency, loc)}
            </span>
          )
          : null}
      </div>
      <dl className="kvs">
        {c
          ? (
            <>
              {/* A closed card has nothing available: no amount that looks spendable. */}
              <Field label={t("card.available")}>
                {state === "Closed"
                  ? t("card.nothingLeft")
                  : formatMoney(c.amountAvailable, currency, loc)}
              </Field>
              <Field label={t("card.allocated")}>
                {formatMoney(c.amountAllocated, currency, loc)}
              </Field>
              <Field label={t("card.activeUntil")}>{shortDate(c.validityToDate, loc)}</Field>
              {c.validityDays !== null && !ended
                ? (
                  <Field label={t("card.validity")}>
                    {t("card.validityDays", { days: c.validityDays })}
                  </Field>
                )
                : null}
            </>
          )
          : null}
        <Field label={t("detail.id")}>{id}</Field>
        <Field label={t("detail.purpose")}>{c?.purpose ?? row?.purpose}</Field>
        <Field label={t("detail.issueDate")}>
          {c?.issueDate || row?.issueDate ? shortDate(c?.issueDate ?? row!.issueDate, loc) : ""}
        </Field>
        <Field label={t("detail.status")}>
          {
            // An accepted request whose card is closed reads Closed (as in the lists).
            statusCode === "accepted" && state === "Closed"
              ? t("status.closed")
              : statusCode
              ? t(`status.${statusCode}` as TranslationKey)
              : ""
          }
        </Field>
        <Field label={t("detail.costCenter")}>{c?.costCenter ?? row?.costCenter}</Field>
        <Field label={t("detail.ledger")}>{c?.GLCode ?? row?.GLCode}</Field>
        <Field label={t("detail.project")}>{c?.projectCode ?? row?.projectCode}</Field>
      </dl>

      {c && c.budget.length
        ? (
          <section aria-label={t("detail.budget")}>
            <h3>{t("detail.budget")}</h3>
            <table className="budget-table">
              <thead>
                <tr>
                  <th scope="col">{t("budget.date")}</th>
                  <th scope="col">{t("budget.lineAmount")}</th>
                  <th scope="col">{t("budget.funded")}</th>
                </tr>
              </thead>
              <tbody>
                {c.budget.map((b, i) => (
                  <tr key={i}>
                    <td>{shortDate(b.budgetdate, loc)}</td>
                    <td>{formatMoney(b.budgetamount, currency, loc)}</td>
                    <td>{b.budgetfunded ? t("common.yes") : t("common.no")}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        )
        : null}

      <TxList which={(x) => x.cardOid === v.oid} empty={t("tx.none")} />

      <Comments
        comments={v.comments}
        onAdd={live && !ended ? addCardComment : undefined}
        onDelete={deleteCardComment}
        pending={queuedFor("comment", v.oid)}
      />

      <CardActions can={can} shown={!!shown} busy={busy} />
    </div>
  );
}

function CardFaceOf(props: {
  face: {
    type: "visa" | "mc";
    holder: string;
    last4: string | null;
    month: number | null;
    year: number | null;
  };
  shownPan: string | null;
  shownCvc: string | null;
  state: CardState;
}) {
  const f = props.face;
  return (
    <CardFace
      type={f.type}
      holder={f.holder}
      number={props.shownPan ? groupCardNumber(props.shownPan) : maskedNumber(f.last4)}
      validThru={f.month && f.year ? validThru(f.month, f.year) : "••/••"}
      cvc={props.state === "Active" ? props.shownCvc ?? "•••" : null}
      state={props.state}
      revealed={!!props.shownPan}
    />
  );
}
