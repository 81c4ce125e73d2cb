import { useSignals } from "@preact/signals-react/runtime";
import { ActionBar, type MoreAction } from "../../components/ActionBar.tsx";
import {
  addComment,
  confirmCancel,
  confirmClose,
  deleteComment,
  submitExisting,
} from "../../actions/requests.ts";
import { startEdit } from "../../actions/request_form.ts";
import { openCard, startGenerate } from "../../actions/cards.ts";
import { openSecure } from "../../actions/secure.ts";
import { locale, t } from "../../i18n/index.ts";
import { formatMoney, shortDate } from "../../i18n/display.ts";
import { Comments } from "../../components/Comments.tsx";
import { Field } from "../../components/Field.tsx";
import { isLargeAmount } from "../../shared/money.ts";
import { isClosedCardId } from "../../lib/cards.ts";
import { detail } from "../../state/requests.ts";
import { working } from "../../state/session.ts";
import { TxList } from "../Transactions/TxList.tsx";
import { ApprovalTimeline } from "./ApprovalTimeline.tsx";
import { TX_STATUS } from "../../shared/transaction_rules.ts";
import { statusLabel } from "../Requests/RequestRow.tsx";
import { queuedFor } from "../../state/outq.ts";

/**
 * spec §2 request detail: status badge, amount, budget count, purpose, id, approvals,
 * comments with an add box, type, vendor link, codes; actions from the server's flags:
 * generate card (3-D Secure set up first when missing, spec §6), set 3D secure, view the
 * card, close, cancel.
 */
export function RequestDetailBody() {
  useSignals();
  const d = detail.value;
  if (!d) return null;
  const e = d.entity;
  const r = e ?? d.row;
  if (!r) return <p className="loading" role="status">{t("app.loading")}</p>;
  const loc = locale.value;
  return (
    <div className="request-detail">
      <div className="detail-head">
        <span className={`status status-${r.statusCode}`} role="status">{statusLabel(r)}</span>
        <span className={`detail-amount${isLargeAmount(r.amount) ? " large-amount" : ""}`}>
          {formatMoney(r.amount, r.pricingCurrency, loc)}
        </span>
      </div>
      <dl className="kvs">
        <Field label={t("detail.purpose")}>{r.purpose}</Field>
        <Field label={t("detail.id")}>{r.id}</Field>
        <Field label={t("detail.issueDate")}>{shortDate(r.issueDate, loc)}</Field>
        {r.budgetCount ? <Field label={t("detail.budgetCount")}>{r.budgetCount}</Field> : null}
        {e ? <Field label={t("detail.type")}>{e.subType.description}</Field> : null}
        {e
          ? (
            <Field label={t("detail.vendor")}>
              {e.url
                ? (
                  <a href={e.url} target="_blank" rel="noopener noreferrer">
                    {e.vendor || e.url}
                  </a>
                )
                : e.vendor}
            </Field>
          )
          : null}
        <Field label={t("detail.costCenter")}>{r.costCenter}</Field>
        <Field label={t("detail.ledger")}>{r.GLCode}</Field>
        <Field label={t("detail.project")}>{r.projectCode}</Field>
        {e?.approverNote ? <Field label={t("detail.approverNote")}>{e.approverNote}</Field> : null}
      </dl>

      {e && e.budget.length
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
                {e.budget.map((b, i) => (
                  <tr key={i}>
                    <td>{shortDate(b.budgetdate, loc)}</td>
                    <td>{formatMoney(b.budgetamount, r.pricingCurrency, loc)}</td>
                    <td>{b.budgetfunded ? t("common.yes") : t("common.no")}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        )
        : null}

      {e
        ? (
          <section aria-label={t("detail.approvals")}>
            <h3>{t("detail.approvals")}</h3>
            <ApprovalTimeline teams={e.approvals} />
          </section>
        )
        : null}

      <TxList which={(x) => x.expenseOid === d.oid && x.transactionStatus !== TX_STATUS.moved} />

      <Comments
        comments={d.comments}
        onAdd={e?.canComment ? addComment : undefined}
        onDelete={deleteComment}
        pending={queuedFor("comment", d.oid)}
      />

      {e && !e.hasCard && !e.canGenerate && isClosedCardId(e.id)
        // spec §9 lists it with the closed cards, but a flipped expense has no card.
        ? <p className="hint no-card-note">{t("detail.noCard")}</p>
        : null}

      <RequestActions />
    </div>
  );
}

/**
 * The request's one sticky action bar: the primary action is the next step (submit a draft,
 * generate the card, view it); edit, 3-D Secure and the destructive ones — each saying what
 * it does, in red — are in "More actions".
 */
function RequestActions() {
  useSignals();
  const d = detail.value;
  const e = d?.entity;
  const r = e ?? d?.row;
  if (!d || !e || !r) return null;
  const busy = working.value;
  // spec §4: cancel when canCancel, or when new/requested and canClose is not set.
  const canCancel = r.canCancel ||
    ((r.statusCode === "new" || r.statusCode === "requested") && !r.canClose);
  const primary = e.canSubmit
    ? { label: t("detail.submit"), run: () => void submitExisting(r.oid), disabled: busy }
    : e.canGenerate
    ? { label: t("detail.generate"), run: () => void startGenerate(e.oid), disabled: busy }
    : e.hasCard
    ? { label: t("detail.viewCard"), run: () => void openCard(e.oid), disabled: false }
    : null;
  const more: (MoreAction | false)[] = [
    e.canEdit && { key: "edit", label: t("detail.edit"), onSelect: () => void startEdit() },
    (e.canGenerate || e.openCard) &&
    { key: "secure", label: t("detail.secure"), onSelect: () => void openSecure() },
    e.hasCard && primary?.label !== t("detail.viewCard") &&
    { key: "card", label: t("detail.viewCard"), onSelect: () => void openCard(e.oid) },
    r.canClose && {
      key: "close",
      label: t("detail.close"),
      hint: t("detail.closeExtra"),
      danger: true,
      disabled: busy,
      onSelect: () => confirmClose(r.oid),
    },
    canCancel && r.statusCode !== "cancelled" && r.statusCode !== "moved" &&
    r.cardStatusCode !== "Closed" && {
      key: "cancel",
      label: t("detail.cancel"),
      hint: t("detail.cancelExtra"),
      danger: true,
      disabled: busy,
      onSelect: () => confirmCancel(r.oid),
    },
  ];
  return (
    <ActionBar
      primary={primary
        ? (
          <button
            type="button"
            className="primary"
            disabled={primary.disabled}
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
