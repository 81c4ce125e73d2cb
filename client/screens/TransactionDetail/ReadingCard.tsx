import { useSignals } from "@preact/signals-react/runtime";
import { hideReading, readToSend } from "../../actions/reading.ts";
import { sendReading } from "../../actions/receipts.ts";
import { openVat } from "../../actions/vat.ts";
import { Field } from "../../components/Field.tsx";
import { formatMoney, shortDate } from "../../i18n/display.ts";
import { locale, t } from "../../i18n/index.ts";
import type { Transaction } from "../../shared/contract/transactions.ts";
import { matchPayment } from "../../shared/receipt_match.ts";
import { ReadDifferences } from "../../components/ReadDifferences.tsx";
import { accounting } from "../../state/receipts.ts";
import { readingReceipt, receiptReading } from "../../state/reading.ts";

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
  // A receipt sent before this was read (Add receipt): its reading may follow it.
  const sentAs = readingReceipt.value;
  const follows = sentAs?.txOid === tx.oid && sentAs.key === r.key ? sentAs : null;
  const canVat = read.vat.length > 0 && !tx.readOnlyVAT && accounting.value.vatMode === "advanced";
  return (
    <section className="reading" aria-label={t("reading.title")}>
      <h3>{t("reading.title")}</h3>
      <dl className="kvs">
        {read.total !== null
          ? <Field label={t("reading.total")}>{money(read.total)} {unsure("total")}</Field>
          : null}
        {read.date ? <Field label={t("reading.date")}>{shortDate(read.date)}</Field> : null}
        {read.merchant ? <Field label={t("reading.merchant")}>{read.merchant}</Field> : null}
        {read.vat.length
          ? (
            <Field label={t("reading.vat")}>
              {read.vat.map((v) => t("reading.vatLine", { rate: v.rate, amount: money(v.amount) }))
                .join(" · ")} {unsure("vat")}
            </Field>
          )
          : null}
      </dl>
      <ReadDifferences match={match} />
      <div className="reading-actions">
        {canVat
          ? (
            <button type="button" className="secondary" onClick={() => void openVat()}>
              {t("reading.useVat")}
            </button>
          )
          : null}
        {follows && !follows.sent && readToSend(tx.oid)
          ? (
            <button type="button" className="secondary" onClick={() => void sendReading()}>
              {t("reading.sendWith")}
            </button>
          )
          : null}
        {follows?.sent ? <span className="reading-sent">{t("reading.sentWith")}</span> : null}
        <button type="button" className="link" onClick={hideReading}>{t("reading.dismiss")}</button>
      </div>
    </section>
  );
}
