import { useEffect, useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { disablePasskey, enablePasskey, noPrfHere, passkeyEnabled } from "../../actions/passkey.ts";
import { t } from "../../i18n/index.ts";
import { passkeyLabelKey } from "../../lib/passkey_words.ts";
import { webauthnAvailable } from "../../lib/webauthn.ts";

/**
 * spec §4's passkey unlock in Options (after an unlock): the switch registers a passkey whose
 * PRF output wraps the data key; without PRF it is not offered and says why. Its own chunk
 * with the WebAuthn code (PasskeyToggle loads it).
 */
export default function PasskeySwitch() {
  useSignals();
  const [on, setOn] = useState<boolean | null>(null);
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const [noPrf, setNoPrf] = useState(noPrfHere);
  useEffect(() => {
    void passkeyEnabled().then(setOn);
  }, []);
  if (!webauthnAvailable() || on === null) return null;
  if (noPrf && !on) {
    return (
      <li>
        <p className="about" role="note">{t("passkey.noPrf")}</p>
      </li>
    );
  }
  return (
    <li>
      <label className="toggle">
        <span>{t(passkeyLabelKey())}</span>
        <input
          type="checkbox"
          role="switch"
          checked={on}
          disabled={busy}
          aria-busy={busy}
          aria-describedby="passkey-note"
          onChange={async (e) => {
            const want = (e.target as HTMLInputElement).checked;
            setBusy(true);
            setNote(null);
            try {
              if (want) {
                const r = await enablePasskey();
                setOn(r === "on");
                if (r === "no_prf") setNoPrf(true);
                setNote(
                  typeof r === "object"
                    ? t("passkey.wrongOrigin", { expected: r.wrongOrigin, seen: location.origin })
                    : r === "on"
                    ? t("passkey.onNote")
                    : r === "cancelled"
                    ? t("passkey.cancelled")
                    : r === "no_prf"
                    ? null
                    : t("passkey.failed"),
                );
              } else {
                const told = await disablePasskey();
                setOn(false);
                setNote(t(told ? "passkey.offNote" : "passkey.offFailed"));
              }
            } finally {
              setBusy(false);
            }
          }}
        />
      </label>
      <p className="about" id="passkey-note" role="status">{note ?? ""}</p>
    </li>
  );
}
