import { useSignals } from "@preact/signals-react/runtime";
import { restartPin, savePin } from "../../actions/session.ts";
import { t } from "../../i18n/index.ts";
import { pinConfirming } from "../../state/session.ts";
import { PadScreen } from "../PadScreen.tsx";

/**
 * spec §4 needsConfirming: a 6-digit PIN (§5 rules), asked twice; a different confirmation
 * says so and clears the pad for another try, or the person chooses another PIN.
 */
export function DefinePinScreen() {
  useSignals();
  const confirm = pinConfirming.value;
  return (
    <PadScreen
      key={+confirm}
      title={t("pin.defineTitle")}
      prompt={t(confirm ? "pin.confirm" : "pin.definePrompt")}
      length={6}
      actionLabel={t(confirm ? "pin.save" : "common.ok")}
      onComplete={savePin}
      below={confirm
        ? (
          <p className="passkey-line">
            <button type="button" className="link" onClick={restartPin}>
              {t("common.back")}
            </button>
          </p>
        )
        : null}
    />
  );
}
