import { lazy, Suspense } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { phase } from "../../state/session.ts";
import { optionsFromHome } from "../../state/ui.ts";
import { loadMainChunk } from "../../state/main_chunk.ts";

/**
 * The switches and their actions come with the main screen's chunk (client/app/push_main.ts,
 * passkey_main.ts): Options offers them only after unlock, when that chunk is already there
 * (before unlock the closed panel does not fetch it: the activation screen does without).
 */
const Switches = lazy(() =>
  loadMainChunk().then((m) => ({ default: m.passkey.AfterUnlockSwitches }))
);

/**
 * spec §2 Options menu: "enable or disable push notifications (only when not opened from
 * home …)", and passkey unlock (spec §4, extended), which wraps the unlocked data key. The PIN
 * pad's first load carries only this check.
 */
export function PushToggle() {
  useSignals();
  if (optionsFromHome.value || phase.value !== "main") return null;
  return (
    <Suspense fallback={null}>
      <Switches />
    </Suspense>
  );
}
