import { useSignals } from "@preact/signals-react/runtime";
import { savePin } from "../../actions/session.ts";
import { t } from "../../i18n/index.ts";
import { PadScreen } from "../PadScreen.tsx";

/** spec §4 needsConfirming: a 6-digit PIN; at 6 digits a save button appears (§5 rules). */
export function DefinePinScreen() {
  useSignals();
  return (
    <PadScreen
      title={t("pin.defineTitle")}
      prompt={t("pin.definePrompt")}
      length={6}
      actionLabel={t("pin.save")}
      onComplete={savePin}
    />
  );
}
