import { useSignals } from "@preact/signals-react/runtime";
import { connectDevice } from "../../actions/session.ts";
import { t } from "../../i18n/index.ts";
import { PadScreen } from "../PadScreen.tsx";

/** spec §4 needsValidating: the emailed 5-digit code; at 5 digits 'connect device' appears. */
export function ActivationScreen() {
  useSignals();
  return (
    <PadScreen
      title={t("activation.title")}
      prompt={t("activation.prompt")}
      length={5}
      actionLabel={t("activation.connect")}
      onComplete={connectDevice}
    />
  );
}
