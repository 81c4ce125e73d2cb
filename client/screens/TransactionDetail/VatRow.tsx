import { useSignals } from "@preact/signals-react/runtime";
import type { Transaction } from "../../shared/contract/transactions.ts";
import { openDocuments } from "../../actions/documents.ts";
import { openVat, setVatFlag } from "../../actions/vat.ts";
import { t, type TranslationKey } from "../../i18n/index.ts";
import { type DoTax, doTaxOfFlag, linesOf } from "../../shared/vat.ts";
import { QueuedState } from "../../components/FailedWrites.tsx";
import { queuedFor } from "../../state/outq.ts";
import { accounting } from "../../state/receipts.ts";
import { working } from "../../state/session.ts";

const CHOICES: DoTax[] = ["unknown", "false", "true"];

/**
 * spec §2 VAT type row and VAT choice (unknown, no VAT, has VAT; set at once), the way into
 * the VAT side panel (simple: the flag; advanced: the number of lines, spec §4), and the
 * documents of the transaction, its receipts' files included (spec §2 documents, Receipts
 * document panel; pwaexpensereceiptdocuments lists both).
 */
export function VatRow(props: { tx: Transaction }) {
  useSignals();
  const tx = props.tx;
  const busy = working.value;
  // A choice waiting in the offline queue (spec §1 offline) shows as chosen, marked pending.
  const queued = queuedFor("dotax", tx.oid).at(-1);
  const review = queuedFor("review", tx.oid).at(-1);
  const current = queued && queued.state !== "failed"
    ? queued.label as DoTax
    : doTaxOfFlag(tx.collectVatFlag);
  const advanced = accounting.value.vatMode === "advanced";
  const lines = linesOf(tx).filter((l) => l.oid).length;
  return (
    <section className="vat-row" aria-label={t("vat.title")}>
      <div className="kv">
        <span id="vat-type-label" className="kv-label">{t("vat.flag")}</span>
        <div className="segmented" role="radiogroup" aria-labelledby="vat-type-label">
          {CHOICES.map((c) => (
            <button
              key={c}
              type="button"
              role="radio"
              aria-checked={c === current}
              className={c === current ? "active" : ""}
              disabled={busy || tx.readOnlyVAT}
              onClick={() => c !== current && void setVatFlag(c)}
            >
              {t(`vat.flag.${c}` as TranslationKey)}
            </button>
          ))}
        </div>
      </div>
      {queued ? <QueuedState entry={queued} /> : null}
      <div className="detail-actions">
        {/* Opening a panel writes nothing: never disabled by a write under way elsewhere. */}
        <button type="button" className="secondary" onClick={() => void openVat()}>
          {advanced ? t("vat.linesCount", { count: lines }) : t("vat.open")}
          {tx.reviewed ? ` · ${t("vat.reviewed")}` : ""}
        </button>
        {review ? <QueuedState entry={review} /> : null}
        <button type="button" className="secondary" onClick={() => void openDocuments(tx.oid)}>
          {t("docs.count", { count: tx.nbReceipts + tx.nbDocuments })}
        </button>
      </div>
    </section>
  );
}
