import { Field } from "../../components/Field.tsx";
import { t } from "../../i18n/index.ts";

/**
 * In place of the VAT row (spec §2 VAT type row, documents) on a detail made from its row
 * offline (spec §1 offline): the VAT choice and the documents need what only the server has
 * (the transaction's VAT fields, its document list), so they say in words when they come.
 */
export function OfflineVat() {
  return (
    <section className="vat-row offline-vat" aria-label={t("vat.title")}>
      <dl className="kvs">
        <Field label={t("vat.flag")}>{t("net.whenOnline")}</Field>
        <Field label={t("docs.title")}>{t("net.whenOnline")}</Field>
      </dl>
    </section>
  );
}
