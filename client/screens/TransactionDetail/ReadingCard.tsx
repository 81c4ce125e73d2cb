import { useSignals } from "@preact/signals-react/runtime";
import { hideReading } from "../../actions/reading.ts";
import { openVat } from "../../actions/vat.ts";
import { formatMoney, shortDate } from "../../i18n/display.ts";
import { locale, t } from "../../i18n/index.ts";
import type { Transaction } from "../../shared/contract/transactions.ts";
import { type Difference, matchPayment } from "../../shared/receipt_match.ts";
import { accounting } from "../../state/receipts.ts";
import { receiptReading } from "../../state/reading.ts";

/**
 * What the phone read from the receipt just captured or chosen (client/actions/reading.ts):
 * total, date, merchant and VAT lines, a field it is unsure of marked "not sure", and how it
 * compares with the payment ("Receipt matches the payment", or what differs). "Use for VAT"
 * opens the VAT panel filled from it (one tap confirms there). Nothing here blocks sending,
 * and nothing read leaves the phone.
 */
export function ReadingCard(props: { tx: Transaction }) {
  useSignals();
  const tx = props.tx;
  const r = receiptReading.value;
  if (!r || r.txOid !== tx.oid || r.hidden) return null;
  const loc = locale.value;
  if (r.status === "busy") {
    return <p className="reading reading-busy" role="status">{t("reading.busy")}</p>;
  }
  if (!r.read) {
    return (
      <p className="reading reading-none" role="status">
        {t(r.status === "unavailable" ? "reading.unavailable" : "reading.nothing")}
      </p>
    );
  }
  const read = r.read;
  const currency = read.currency ?? tx.originalCurrency;
  const money = (n: number, c = currency) => formatMoney(n, c, loc);
  const unsure = (f: typeof read.unsure[number]) =>
    read.unsure.includes(f) ? <em className="reading-unsure">{t("reading.unsure")}</em> : null;
  const match = matchPayment(read, tx);
  const said = (d: Difference) =>
    d.field === "total"
      ? [
        t("reading.totalDiffers", {
          receipt: money(d.receipt, d.currency),
          payment: money(d.payment, d.currency),
        }),
        d.reason
          ? t(d.reason === "tip" ? "reading.tip" : "reading.partial", {
            diff: money(Math.abs(d.payment - d.receipt), d.currency),
          })
          : null,
      ]
      : [
        t("reading.dateDiffers", { receipt: shortDate(d.receipt), payment: shortDate(d.payment) }),
      ];
  const canVat = read.vat.length > 0 && !tx.readOnlyVAT && accounting.value.vatMode === "advanced";
  return (
    <section className="reading" aria-label={t("reading.title")}>
      <h3>{t("reading.title")}</h3>
      <dl className="kvs">
        {read.total !== null
          ? (
            <div>
              <dt>{t("reading.total")}</dt>
              <dd>{money(read.total)} {unsure("total")}</dd>
            </div>
          )
          : null}
        {read.date
          ? (
            <div>
              <dt>{t("reading.date")}</dt>
              <dd>{shortDate(read.date)}</dd>
            </div>
          )
          : null}
        {read.merchant
          ? (
            <div>
              <dt>{t("reading.merchant")}</dt>
              <dd>{read.merchant}</dd>
            </div>
          )
          : null}
        {read.vat.length
          ? (
            <div>
              <dt>{t("reading.vat")}</dt>
              <dd>
                {read.vat.map((v) =>
                  t("reading.vatLine", { rate: v.rate, amount: money(v.amount) })
                )
                  .join(" · ")} {unsure("vat")}
              </dd>
            </div>
          )
          : null}
      </dl>
      {match.kind === "match"
        ? <p className="reading-match" role="status">{t("reading.matches")}</p>
        : match.kind === "differs"
        ? (
          <ul className="reading-differs" role="status">
            {match.differences.flatMap(said).filter(Boolean).map((s) => <li key={s}>{s}</li>)}
          </ul>
        )
        : null}
      <div className="reading-actions">
        {canVat
          ? (
            <button type="button" className="secondary" onClick={() => void openVat()}>
              {t("reading.useVat")}
            </button>
          )
          : null}
        <button type="button" className="link" onClick={hideReading}>{t("reading.dismiss")}</button>
      </div>
    </section>
  );
}
