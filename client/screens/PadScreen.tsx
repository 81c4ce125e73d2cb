import type { ReactNode } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { Icon } from "../components/Icon.tsx";
import { PinPad } from "../components/PinPad.tsx";
import { t } from "../i18n/index.ts";
import { versionLabel } from "../i18n/release.ts";
import { padMessage, shakeCount, working } from "../state/session.ts";
import { optionsFromHome, panel } from "../state/ui.ts";
import { PadHelp } from "./PadHelp.tsx";

/** The layout shared by activation, define-PIN and unlock: title, prompt, message, pad, help. */
export function PadScreen(props: {
  title: string;
  prompt: string;
  length: number;
  actionLabel?: string;
  onComplete: (value: string) => void;
  /** Shown under the pad (the unlock screen's passkey button). */
  below?: ReactNode;
  /**
   * The 'send activation email' action's words (spec §2 PIN pad help): "Forgot PIN?" only where
   * there is a PIN to forget (unlock); activation and define-PIN ask for the code again.
   */
  lostLabel?: string;
}) {
  useSignals();
  const message = padMessage.value;
  return (
    <main className="pad-screen">
      <header className="pad-header">
        <h1>{props.title}</h1>
        <button
          type="button"
          className="icon-button"
          aria-label={t("options.open")}
          onClick={() => {
            optionsFromHome.value = true;
            panel.value = "options";
          }}
        >
          <Icon name="options" />
        </button>
      </header>
      <p className="pad-prompt" id="pad-prompt">{props.prompt}</p>
      <p className="pad-message" role="alert" aria-live="assertive">{message ?? ""}</p>
      <PinPad
        length={props.length}
        label={props.prompt}
        shake={shakeCount.value}
        disabled={working.value}
        onChange={(v) => {
          if (v.length > 0 && padMessage.value) padMessage.value = null;
          if (!props.actionLabel && v.length === props.length) props.onComplete(v);
        }}
        action={props.actionLabel
          ? (v) => (
            <button
              type="button"
              className="primary wide"
              disabled={working.value}
              onClick={() => props.onComplete(v)}
            >
              {props.actionLabel}
            </button>
          )
          : undefined}
      />
      {props.below ?? null}
      <PadHelp lostLabel={props.lostLabel} />
      <p className="version-footer">{versionLabel()}</p>
    </main>
  );
}
