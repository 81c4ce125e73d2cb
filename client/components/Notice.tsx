import { useSignals } from "@preact/signals-react/runtime";
import { notice } from "../state/ui.ts";

/** A short confirmation of a completed action, read out by screen readers. */
export function Notice() {
  useSignals();
  return (
    <p className={`notice${notice.value ? " shown" : ""}`} role="status" aria-live="polite">
      {notice.value ?? ""}
    </p>
  );
}
