import { useSignals } from "@preact/signals-react/runtime";
import { progress } from "../state/ui.ts";

/** A blocking action under way (spec §4 decisions): the screen waits for the server's answer. */
export function ProgressOverlay() {
  useSignals();
  const text = progress.value;
  if (!text) return null;
  return (
    <div className="overlay progress-overlay" aria-busy="true">
      <div className="progress-box" role="status" aria-live="assertive">
        <span className="spinner" aria-hidden="true" />
        {text}
      </div>
    </div>
  );
}
