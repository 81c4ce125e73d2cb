import { formatMoney, shortDateTime } from "../../i18n/display.ts";
import { useEffect, useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import type { DeclarationReview } from "../../shared/contract/declarations.ts";
import { decideNoReceipt, loadDeclarationReviews } from "../../actions/declarations.ts";
import { Field } from "../../components/Field.tsx";
import { locale, t } from "../../i18n/index.ts";
import { working } from "../../state/session.ts";

/**
 * spec §5 missing receipts, for approvers: the "no receipt" declarations on the card
 * transactions of this approval's request — what was bought, why there is no receipt, who
 * declared it and when — with Accept and Refuse on those still waiting (organisations that
 * require approval of declarations). Nothing is shown when there are none.
 */
export function ApprovalDeclarations({ approvalOid }: { approvalOid: string }) {
  useSignals();
  const [reviews, setReviews] = useState<DeclarationReview[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let alive = true;
    void loadDeclarationReviews(approvalOid).then((r) => alive && setReviews(r));
    return () => {
      alive = false;
    };
  }, [approvalOid]);
  if (!reviews.length) return null;
  const decide = async (oid: string, approve: boolean) => {
    const problem = await decideNoReceipt(oid, approve);
    setError(problem);
    if (!problem) setReviews(await loadDeclarationReviews(approvalOid));
  };
  const loc = locale.value;
  return (
    <section className="declarations" aria-label={t("declare.listTitle")}>
      <h3>{t("declare.listTitle")}</h3>
      {reviews.map((r) => {
        const d = r.declaration;
        const tx = `${r.merchantname} · ${formatMoney(r.monetaryAmount, r.pricingCurrency, loc)}`;
        return (
          <article key={r.transactionOid} className="declaration" aria-label={tx}>
            <h4>{tx}</h4>
            <dl className="kvs">
              <Field label={t("declare.what")}>{d.what}</Field>
              <Field label={t("declare.reason")}>{d.reason}</Field>
            </dl>
            <p className="hint">
              {t("declare.by", { name: d.byName, time: shortDateTime(Date.parse(d.at)) })}
            </p>
            {d.state === "pending"
              ? <p className="hint">{t("declare.pending")}</p>
              : d.decidedByName && d.decidedAt
              ? (
                <p className="hint">
                  {t("declare.accepted", {
                    name: d.decidedByName,
                    time: shortDateTime(Date.parse(d.decidedAt)),
                  })}
                </p>
              )
              : null}
            {r.canDecide
              ? (
                <div className="detail-actions">
                  <button
                    type="button"
                    className="danger-button"
                    disabled={working.value}
                    aria-label={t("declare.refuseFor", { what: d.what })}
                    onClick={() => void decide(r.transactionOid, false)}
                  >
                    {t("declare.refuse")}
                  </button>
                  <button
                    type="button"
                    className="primary"
                    disabled={working.value}
                    aria-label={t("declare.acceptFor", { what: d.what })}
                    onClick={() => void decide(r.transactionOid, true)}
                  >
                    {t("declare.accept")}
                  </button>
                </div>
              )
              : null}
          </article>
        );
      })}
      {error ? <p className="form-error" role="alert">{error}</p> : null}
    </section>
  );
}
