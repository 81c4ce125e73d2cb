import { useSignals } from "@preact/signals-react/runtime";
import { unlock } from "../../actions/session.ts";
import { mainChunk } from "../../state/main_chunk.ts";
import { t } from "../../i18n/index.ts";
import { pinLength } from "../../state/session.ts";
import { PadScreen } from "../PadScreen.tsx";

/**
 * spec §4: PIN unlock, its length from the cookie; the full PIN submits itself. With a passkey
 * on this device, the passkey line too (the PIN always unlocks): it is in the main screen's
 * chunk (app/passkey_main.ts), fetched while the PIN is typed, and shows, and runs WebAuthn,
 * only when a passkey wrapper is stored.
 */
export function UnlockScreen() {
  useSignals();
  const PasskeyLine = mainChunk.value?.passkey.PasskeyLine;
  return (
    <PadScreen
      lostLabel={t("pinpad.sendActivation")}
      title={t("pin.unlockTitle")}
      prompt={t("pin.unlockPrompt")}
      length={pinLength.value}
      onComplete={unlock}
      below={PasskeyLine ? <PasskeyLine /> : null}
    />
  );
}
