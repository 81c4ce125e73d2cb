import { useEffect } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import {
  passkeyEnabled,
  passkeyOnStart,
  unlockByPasskey,
  usePinInstead,
} from "../../actions/passkey.ts";
import { t } from "../../i18n/index.ts";
import { passkeyLabelKey } from "../../lib/passkey_words.ts";
import { passkeyOn, passkeyPrompting } from "../../state/passkey.ts";
import { working } from "../../state/session.ts";

/**
 * The unlock screen's passkey line (spec §4's passkey unlock), shown only when a passkey
 * wrapper is stored: the prompt opens by itself once per start; while it is open "Use PIN instead" is one
 * tap away, otherwise a button opens it again. In the main screen's chunk
 * (client/app/passkey_main.ts).
 */
export default function PasskeyLine() {
  useSignals();
  useEffect(() => {
    void passkeyEnabled().then((on) => {
      passkeyOn.value = on;
      if (on) void passkeyOnStart();
    });
    return usePinInstead;
  }, []);
  if (!passkeyOn.value) return null;
  return (
    <p className="passkey-line">
      {passkeyPrompting.value
        ? (
          <button type="button" className="link" onClick={usePinInstead}>
            {t("passkey.usePin")}
          </button>
        )
        : (
          <button
            type="button"
            className="link"
            disabled={working.value}
            onClick={() => void unlockByPasskey()}
          >
            {t(passkeyLabelKey())}
          </button>
        )}
    </p>
  );
}
