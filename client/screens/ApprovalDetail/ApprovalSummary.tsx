import { useSignals } from "@preact/signals-react/runtime";
import type { ApprovalRequest, ApprovalRow, ReadOnly } from "../../shared/contract/approvals.ts";
import { locale, t } from "../../i18n/index.ts";
import { formatMoney, monthName, shortDate } from "../../i18n/display.ts";
import { budgetTotal, planOfLines } from "../../shared/budget.ts";
import { isLargeAmount } from "../../shared/money.ts";
import { approvalStatusLabel } from "../Approvals/ApprovalRow.tsx";

// The top of the approval detail, so the approver does not decide blind (spec §2 approval
// detail): status and amount, who asks, the ids as secondary text, the amount in the approval
// account's currency, why they cannot decide it when they cannot, and the budget's lines.

type Budget = NonNullable<ApprovalRequest["budget"]>;

/** The month of a calendar day in words ("April 2027"): how people say when a budget ends. */
function monthOf(day: string): string {
  return monthName(day) || shortDate(day);
}

/**
 * The budget in one line, as the approver would say it: "6 × €250.00 monthly, until April
 * 2027"; lines that are no single plan's are counted with their first and last dates.
 */
export function budgetSummary(lines: Budget, currency: string): string {
  const loc = locale.value;
  const plan = planOfLines(lines);
  const last = lines.reduce((m, l) => (l.budgetdate > m ? l.budgetdate : m), lines[0].budgetdate);
  if (plan?.occurrences === 1) {
    return t("approval.budgetOnce", {
      amount: formatMoney(plan.amount, currency, loc),
      date: shortDate(plan.startDate, loc),
    });
  }
  if (plan) {
    const p = {
      count: plan.occurrences,
      amount: formatMoney(plan.amount, currency, loc),
      last: plan.period === "monthly" ? monthOf(last) : shortDate(last, loc),
    };
    return t(plan.period === "monthly" ? "approval.budgetMonthly" : "approval.budgetWeekly", p);
  }
  const first = lines.reduce((m, l) => (l.budgetdate < m ? l.budgetdate : m), lines[0].budgetdate);
  return t("budget.preview", {
    count: lines.length,
    first: shortDate(first, loc),
    last: shortDate(last, loc),
  });
}

/** spec §3 budget: what is paid when, the plan in words first, then every line. */
export function BudgetLines(props: { lines: Budget; currency: string }) {
  useSignals();
  const { lines, currency } = props;
  const loc = locale.value;
  const summary = budgetSummary(lines, currency);
  return (
    <section className="approval-budget" aria-label={t("detail.budget")}>
      <h3>{t("detail.budget")}</h3>
      <p className="budget-plan">{summary}</p>
      <table className="budget-table">
        <caption className="sr-only">{summary}</caption>
        <thead>
          <tr>
            <th scope="col">{t("budget.date")}</th>
            <th scope="col">{t("budget.lineAmount")}</th>
          </tr>
        </thead>
        <tbody>
          {lines.map((l, i) => (
            <tr key={i}>
              <td>{shortDate(l.budgetdate, loc)}</td>
              <td>
                {formatMoney(l.budgetamount, currency, loc)}
                {l.budgetfunded
                  ? <span className="muted">{` · ${t("budget.funded")}`}</span>
                  : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="budget-total">
        {t("budget.total", { total: formatMoney(budgetTotal(lines), currency, loc) })}
      </p>
    </section>
  );
}

/** Why this person cannot decide the approval, in words (spec §2, §4, §6). */
export function whyText(ro: ReadOnly): string {
  const loc = locale.value;
  const name = ro.by ? (ro.delegated ? `${ro.by} (${t("approval.delegated")})` : ro.by) : "";
  const date = ro.at ? shortDate(Date.parse(ro.at), loc) : "";
  const level = { level: ro.level ?? 0, action: ro.levelName ?? "", mine: ro.mine ?? 0 };
  switch (ro.code) {
    case "own":
      return t("approval.why.own");
    case "approved":
    case "rejected":
      if (!name) return t("approval.why.decided");
      return t(ro.code === "approved" ? "approval.why.approvedBy" : "approval.why.rejectedBy", {
        name,
        date,
      });
    case "cancelled":
      return t("approval.why.cancelled");
    case "voted":
      return ro.mine === ro.level
        ? t("approval.why.votedHere", { ...level, date })
        : t("approval.why.votedBefore", { ...level, date });
    case "barred":
      return t("approval.why.barred", level);
    case "waiting":
      return t("approval.why.waiting", level);
    case "passed":
      return name
        ? t("approval.why.passed", { ...level, name, date })
        : t("approval.why.reviewer", level);
    case "reviewer":
      return t("approval.why.reviewer", level);
  }
}

/** The read-only approval's reason, where the buttons would be expected. */
export function WhyReadOnly(props: { readOnly: ReadOnly }) {
  useSignals();
  return (
    <p className="why-read-only" role="note">
      <strong>{t("approval.why.title")}</strong> {whyText(props.readOnly)}
    </p>
  );
}

/**
 * Status and amount; who asks and the ids (secondary); the amount in the approval account's
 * currency when the request is in another (the issuer's rate of its day).
 */
export function ApprovalHead(props: { r: ApprovalRow; e: ApprovalRequest | null }) {
  useSignals();
  const { r, e } = props;
  const loc = locale.value;
  const conv = e?.accountAmount;
  return (
    <>
      <div className="detail-head">
        <span className={`status status-${r.statusCode}`} role="status">
          {approvalStatusLabel(r.statusCode)}
        </span>
        <span className={`detail-amount${isLargeAmount(r.amount) ? " large-amount" : ""}`}>
          {formatMoney(r.amount, r.pricingCurrency, loc)}
        </span>
      </div>
      {conv
        ? (
          <p className="account-amount">
            {t("approval.inAccountCurrency", {
              amount: formatMoney(conv.amount, conv.currency, loc),
              date: shortDate(conv.asOf, loc),
            })}
          </p>
        )
        : null}
      <p className="approval-ids">
        {r.author ? <strong className="approval-person">{r.author}</strong> : null}
        {[r.author ? "" : null, t("approval.title", { id: r.id }), r.sourceEntityId || null]
          .filter((x) => x !== null).join(" · ")}
      </p>
    </>
  );
}
