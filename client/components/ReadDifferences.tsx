import { formatMoney, shortDate } from "../i18n/display.ts";
import { locale, t } from "../i18n/index.ts";
import type { Difference, MatchResult } from "../shared/receipt_match.ts";

/**
 * What a receipt read on the phone says against its payment (client/shared/receipt_match.ts):
 * "Receipt matches the payment", or each difference with its likely reason ("The payment is
 * €16.00 more: a tip?"). Nothing when too little was read. The holder's reading card and the
 * approver's view of the request's receipts say it alike.
 */
export function ReadDifferences(props: { match: MatchResult }) {
  const m = props.match;
  if (m.kind === "unknown") return null;
  if (m.kind === "match") {
    return <p className="reading-match" role="status">{t("reading.matches")}</p>;
  }
  const loc = locale.value;
  const money = (n: number, c: string) => formatMoney(n, c, loc);
  const said = (d: Difference): string[] =>
    d.field === "total"
      ? [
        t("reading.totalDiffers", {
          receipt: money(d.receipt, d.currency),
          payment: money(d.payment, d.currency),
        }),
        ...(d.reason
          ? [
            t(d.reason === "tip" ? "reading.tip" : "reading.partial", {
              diff: money(Math.abs(d.payment - d.receipt), d.currency),
            }),
          ]
          : []),
      ]
      : [
        t("reading.dateDiffers", { receipt: shortDate(d.receipt), payment: shortDate(d.payment) }),
      ];
  return (
    <div role="status">
      <ul className="reading-differs">
        {m.differences.flatMap(said).map((s) => <li key={s}>{s}</li>)}
      </ul>
    </div>
  );
}
