import { useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { checkNewPin, pinMismatch, savePin } from "../../actions/session.ts";
import { t } from "../../i18n/index.ts";
import { PadScreen } from "../PadScreen.tsx";

/**
 * spec §4 needsConfirming: a 6-digit PIN (§5 rules), asked twice. The first entry is
 * checked against the rules, then the same PIN is asked again; a different one says so and
 * asks for the confirmation again (or the person chooses another PIN). Only a confirmed
 * PIN is saved.
 */
export function DefinePinScreen() {
  useSignals();
  const [first, setFirst] = useState<string | null>(null);
  // A new key per attempt clears the pad after a mismatch.
  const [attempt, setAttempt] = useState(0);
  if (first === null) {
    return (
      <PadScreen
        key="choose"
        title={t("pin.defineTitle")}
        prompt={t("pin.definePrompt")}
        length={6}
        actionLabel={t("pin.next")}
        onComplete={(pin) => {
          if (checkNewPin(pin)) setFirst(pin);
        }}
      />
    );
  }
  return (
    <PadScreen
      key={`confirm-${attempt}`}
      title={t("pin.defineTitle")}
      prompt={t("pin.confirmPrompt")}
      length={6}
      actionLabel={t("pin.save")}
      onComplete={(pin) => {
        if (pin === first) return void savePin(pin);
        pinMismatch();
        setAttempt(attempt + 1);
      }}
      below={
        <p className="passkey-line">
          <button
            type="button"
            className="link"
            onClick={() => {
              setFirst(null);
              setAttempt(0);
            }}
          >
            {t("pin.startOver")}
          </button>
        </p>
      }
    />
  );
}
