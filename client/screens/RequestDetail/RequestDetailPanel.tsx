import { useSignals } from "@preact/signals-react/runtime";
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
import { Comments } from "../../components/Comments.tsx";
import { Field } from "../../components/Field.tsx";
import { shortDate } from "../../lib/dates.ts";
import { formatMoney, isLargeAmount } from "../../lib/money.ts";
import { isClosedCardId } from "../../lib/cards.ts";
import { detail } from "../../state/requests.ts";
import { working } from "../../state/session.ts";
import { TxList } from "../Transactions/TxList.tsx";
import { TX_STATUS } from "../../lib/transaction_rules.ts";
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
  const busy = working.value;
  // spec §4: cancel when canCancel, or when new/requested and canClose is not set.
  const canCancel = r.canCancel ||
    ((r.statusCode === "new" || r.statusCode === "requested") && !r.canClose);
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
            {e.approvals.length
              ? (
                <ul className="approvers">
                  {e.approvals.map((a) => (
                    <li key={`${a.level}-${a.teamOid}`}>
                      <strong>{t("detail.level", { level: a.level })}: {a.teamName}</strong>
                      <span>{a.teamUsers.map((u) => `${u.fname} ${u.lname}`).join(", ")}</span>
                    </li>
                  ))}
                </ul>
              )
              : <p className="empty">{t("detail.noApprovers")}</p>}
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

      {e && (e.canGenerate || e.hasCard || isClosedCardId(e.id))
        ? (
          <div
            className={`detail-actions card-actions${
              e.canGenerate ? " sticky-action decision-bar" : ""
            }`}
          >
            {e.canGenerate
              ? (
                <button
                  type="button"
                  className="primary"
                  disabled={busy}
                  onClick={() => startGenerate(e.oid)}
                >
                  {t("detail.generate")}
                </button>
              )
              : null}
            {e.hasCard
              ? (
                <button type="button" className="primary" onClick={() => openCard(e.oid)}>
                  {t("detail.viewCard")}
                </button>
              )
              : isClosedCardId(e.id)
              // spec §9 lists it with the closed cards, but a flipped expense has no card.
              ? <p className="hint no-card-note">{t("detail.noCard")}</p>
              : null}
            {e.canGenerate || e.openCard
              ? (
                <button type="button" className="secondary" onClick={() => openSecure()}>
                  {t("detail.secure")}
                </button>
              )
              : null}
          </div>
        )
        : null}

      <div className="detail-actions">
        {e?.canEdit
          ? (
            <button type="button" className="secondary" onClick={() => startEdit()}>
              {t("detail.edit")}
            </button>
          )
          : null}
        {e?.canSubmit
          ? (
            <button
              type="button"
              className="primary"
              disabled={busy}
              onClick={() => submitExisting(r.oid)}
            >
              {t("detail.submit")}
            </button>
          )
          : null}
        {e && r.canClose
          ? (
            <button
              type="button"
              className="secondary"
              disabled={busy}
              onClick={() => confirmClose(r.oid)}
            >
              {t("detail.close")}
            </button>
          )
          : null}
        {e && canCancel && r.statusCode !== "cancelled" && r.statusCode !== "moved" &&
            r.cardStatusCode !== "Closed"
          ? (
            <button
              type="button"
              className="danger-button"
              disabled={busy}
              onClick={() => confirmCancel(r.oid)}
            >
              {t("detail.cancel")}
            </button>
          )
          : null}
      </div>
    </div>
  );
}
