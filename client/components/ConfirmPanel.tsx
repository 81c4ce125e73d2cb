import { useSignals } from "@preact/signals-react/runtime";
import { t } from "../i18n/index.ts";
import { confirmRequest } from "../state/ui.ts";

/** spec §2 confirm panel: message, extra text, optional No, Yes. */
export function ConfirmPanel() {
  useSignals();
  const req = confirmRequest.value;
  if (!req) return null;
  const close = () => (confirmRequest.value = null);
  return (
    <div className="overlay">
      <div className="confirm" role="alertdialog" aria-modal="true" aria-labelledby="confirm-msg">
        <p id="confirm-msg" className="confirm-message">{req.message}</p>
        {req.extra ? <p className="confirm-extra">{req.extra}</p> : null}
        <div className="confirm-buttons">
          {req.showNo
            ? (
              <button type="button" className="secondary" onClick={close}>
                {req.noLabel ?? t("common.no")}
              </button>
            )
            : null}
          <button
            type="button"
            className={req.danger ? "danger-button destructive" : "primary"}
            onClick={async () => {
              close();
              await req.onYes();
            }}
          >
            {req.yesLabel}
          </button>
        </div>
      </div>
    </div>
  );
}
