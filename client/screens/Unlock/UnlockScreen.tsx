import { lazy, Suspense } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { unlock } from "../../actions/session.ts";
import { t } from "../../i18n/index.ts";
import { pinLength } from "../../state/session.ts";
import { PadScreen } from "../PadScreen.tsx";

/**
 * The passkey line, in the main screen's chunk (app/passkey_main.ts: fetched while the PIN is
 * typed anyway); it shows, and runs WebAuthn, only when a passkey wrapper is stored.
 */
const PasskeyLine = lazy(() =>
  import("../../app/MainArea.tsx").then((m) => ({ default: m.passkey.PasskeyLine }))
);

/**
 * spec §4: PIN unlock, its length from the cookie; the full PIN submits itself. With a passkey
 * on this device, the passkey line too (the PIN always unlocks).
 */
export function UnlockScreen() {
  useSignals();
  return (
    <PadScreen
      title={t("pin.unlockTitle")}
      prompt={t("pin.unlockPrompt")}
      length={pinLength.value}
      onComplete={unlock}
      below={
        <Suspense fallback={null}>
          <PasskeyLine />
        </Suspense>
      }
    />
  );
}
