import { useSignals } from "@preact/signals-react/runtime";
import { unlock } from "../../actions/session.ts";
import { t } from "../../i18n/index.ts";
import { pinLength } from "../../state/session.ts";
import { PadScreen } from "../PadScreen.tsx";

/** spec §4: PIN unlock, its length from the cookie; the full PIN submits itself. */
export function UnlockScreen() {
  useSignals();
  return (
    <PadScreen
      title={t("pin.unlockTitle")}
      prompt={t("pin.unlockPrompt")}
      length={pinLength.value}
      onComplete={unlock}
    />
  );
}
