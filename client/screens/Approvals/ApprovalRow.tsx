import { useSignals } from "@preact/signals-react/runtime";
import type { ApprovalRow as Row } from "../../shared/contract/approvals.ts";
import { locale, t } from "../../i18n/index.ts";
import { formatMoney, shortDate } from "../../i18n/display.ts";
import { isLargeAmount } from "../../shared/money.ts";
import { isDimmed, rowSubFilter, toDecide } from "../../state/approvals.ts";

export const approvalStatusLabel = (s: Row["statusCode"]) => t(`approvalStatus.${s}`);

/**
 * An approval named by what it is: its type and purpose ("Travel: Client visit in Lyon"),
 * not its AP/R ids, which stay beside it as secondary text.
 */
export const approvalWhat = (r: Pick<Row, "type" | "purpose">) =>
  [r.type, r.purpose.trim()].filter(Boolean).join(": ");
/** The detail's header: what it is and for whom ("Travel: Client visit in Lyon · Emma Laurent"). */
export const approvalTitle = (r: Pick<Row, "type" | "purpose" | "author">) =>
  [approvalWhat(r), r.author].filter(Boolean).join(" · ");
/** A row's status as this person sees it: their own vote while later levels still decide. */
const rowStatusLabel = (r: Row) =>
  r.statusCode === "new" && r.myVote
    ? t(r.myVote === "approved" ? "approvals.youApproved" : "approvals.youRejected")
    : approvalStatusLabel(r.statusCode);

/**
 * spec §2 approval row: issue date, author, cost center, purpose and amount. Dimmed when it
 * is new and the person can neither approve, reject nor review it. It reads as what it is
 * first (type and purpose, amount), then who asks, with the approval's id last.
 */
export function ApprovalRow(props: { row: Row; onOpen: (oid: string) => void }) {
  useSignals();
  const r = props.row;
  const loc = locale.value;
  const large = isLargeAmount(r.amount);
  const dimmed = isDimmed(r);
  return (
    <li>
      <button
        type="button"
        className={`request-row approval-row${dimmed ? " dimmed" : ""}${
          toDecide(r) ? " to-decide" : ""
        }`}
        onClick={() => props.onOpen(r.oid)}
      >
        <span className="row-bottom">
          <span className="row-purpose">{approvalWhat(r)}</span>
          <span className={`amount${large ? " large-amount" : ""}`}>
            {formatMoney(r.amount, r.pricingCurrency, loc)}
            {large ? <span className="sr-only">{` (${t("requests.largeAmount")})`}</span> : null}
          </span>
        </span>
        <span className="row-top">
          <span className="row-cc">
            {[r.author, r.costCenter, shortDate(r.issueDate, loc)].filter(Boolean).join(" · ")}
            <span className="row-id">{` · ${r.id}`}</span>
          </span>
          <span
            className={`status status-${
              rowSubFilter(r) === "pending" ? r.statusCode : rowSubFilter(r)
            }`}
          >
            {rowStatusLabel(r)}
          </span>
        </span>
        {dimmed ? <span className="sr-only">{` (${t("approvals.noAction")})`}</span> : null}
        {toDecide(r) ? <span className="sr-only">{` (${t("approvals.toDecide")})`}</span> : null}
      </button>
    </li>
  );
}
