import { shortDateTime } from "../../i18n/display.ts";
import { useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import {
  DECLARATION_REASON_MAX,
  DECLARATION_WHAT_MAX,
} from "../../shared/contract/declarations.ts";
import type { Transaction } from "../../shared/contract/transactions.ts";
import { declareNoReceipt, withdrawNoReceipt } from "../../actions/declarations.ts";
import { Field } from "../../components/Field.tsx";
import { Switch } from "../../components/Switch.tsx";
import { t } from "../../i18n/index.ts";
import { displayName, working } from "../../state/session.ts";

/**
 * spec §5 missing receipts: the "no receipt" declaration on a transaction. Shown when one
 * exists (what, why, who and when; waiting for an approver or accepted; "Withdraw" until the
 * transaction is reviewed); else, while the holder may declare, a "No receipt?" button that
 * opens the form: what was bought, why there is no receipt, and a confirmation checkbox
 * naming the holder and the time.
 */
export function NoReceiptDeclaration({ tx }: { tx: Transaction }) {
  useSignals();
  const [open, setOpen] = useState(false);
  const d = tx.declaration;
  if (d) {
    return (
      <section className="declaration" aria-label={t("declare.heading")}>
        <h3>{t("declare.heading")}</h3>
        <dl className="kvs">
          <Field label={t("declare.what")}>{d.what}</Field>
          <Field label={t("declare.reason")}>{d.reason}</Field>
        </dl>
        <p className="hint">
          {t("declare.by", { name: d.byName, time: shortDateTime(Date.parse(d.at)) })}
        </p>
        {d.state === "pending"
          ? <p className="hint" role="status">{t("declare.pending")}</p>
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
        {d.canWithdraw
          ? (
            <button
              type="button"
              className="link"
              disabled={working.value}
              onClick={() => withdrawNoReceipt(tx.oid)}
            >
              {t("declare.withdraw")}
            </button>
          )
          : null}
      </section>
    );
  }
  if (!tx.canDeclare || tx.nbReceipts > 0) return null;
  if (!open) {
    return (
      <p className="declaration-open">
        <button type="button" className="link" onClick={() => setOpen(true)}>
          {t("declare.open")}
        </button>
      </p>
    );
  }
  return <DeclarationForm oid={tx.oid} onClose={() => setOpen(false)} />;
}

function DeclarationForm({ oid, onClose }: { oid: string; onClose: () => void }) {
  useSignals();
  const [what, setWhat] = useState("");
  const [reason, setReason] = useState("");
  const [confirmed, setConfirmed] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // The time the holder confirms at: fixed when the form opens, shown beside their name.
  const [at] = useState(() => Date.now());
  const submit = async () => {
    if (!what.trim() || !reason.trim() || !confirmed) {
      setError(t("declare.required"));
      return;
    }
    setError(null);
    const problem = await declareNoReceipt(oid, what.trim(), reason.trim());
    if (problem) setError(problem);
    else onClose();
  };
  return (
    <form
      className="form declaration-form"
      aria-label={t("declare.title")}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h3>{t("declare.title")}</h3>
      <p className="hint">{t("declare.intro")}</p>
      <label>
        <span>{t("declare.what")}</span>
        <input
          type="text"
          maxLength={DECLARATION_WHAT_MAX}
          value={what}
          onInput={(e) => setWhat(e.currentTarget.value)}
        />
      </label>
      <label>
        <span>{t("declare.reason")}</span>
        <textarea
          rows={3}
          maxLength={DECLARATION_REASON_MAX}
          value={reason}
          onInput={(e) => setReason(e.currentTarget.value)}
        />
      </label>
      <Switch checked={confirmed} onChange={setConfirmed} className="declaration-confirm">
        {t("declare.confirm", { name: displayName.value, time: shortDateTime(at) })}
      </Switch>
      {error ? <p className="form-error" role="alert">{error}</p> : null}
      <button type="submit" className="primary wide" disabled={working.value}>
        {t("declare.submit")}
      </button>
      <button type="button" className="secondary wide" onClick={onClose}>
        {t("declare.cancel")}
      </button>
    </form>
  );
}
