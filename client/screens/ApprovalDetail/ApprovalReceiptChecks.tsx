import { useEffect, useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { loadReceiptChecks } from "../../actions/declarations.ts";
import { ReadDifferences } from "../../components/ReadDifferences.tsx";
import { formatMoney } from "../../i18n/display.ts";
import { locale, t } from "../../i18n/index.ts";
import type { ReceiptCheck } from "../../shared/contract/declarations.ts";
import { matchPayment } from "../../shared/receipt_match.ts";

/**
 * For approvers: the receipts read on the holder's phone (docs/receipts.md), on the card
 * transactions of this approval's request — each transaction with what its receipts say against
 * the payment ("Receipt matches the payment", or what differs). Nothing when none was read.
 */
export function ApprovalReceiptChecks({ approvalOid }: { approvalOid: string }) {
  useSignals();
  const [checks, setChecks] = useState<ReceiptCheck[]>([]);
  useEffect(() => {
    let alive = true;
    void loadReceiptChecks(approvalOid).then((c) => alive && setChecks(c));
    return () => {
      alive = false;
    };
  }, [approvalOid]);
  if (!checks.length) return null;
  const loc = locale.value;
  return (
    <section className="receipt-checks" aria-label={t("reading.checksTitle")}>
      <h3>{t("reading.checksTitle")}</h3>
      {checks.map((c) => {
        const tx = `${c.merchantname} · ${formatMoney(c.monetaryAmount, c.pricingCurrency, loc)}`;
        return (
          <article key={c.transactionOid} className="receipt-check" aria-label={tx}>
            <h4>{tx}</h4>
            {c.reads.map((r, i) => (
              <ReadDifferences
                key={i}
                match={matchPayment({ ...r, unsure: r.total === null ? ["total"] : [] }, c)}
              />
            ))}
          </article>
        );
      })}
    </section>
  );
}
