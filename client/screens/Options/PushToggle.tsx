import { lazy, Suspense } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { optionsFromHome } from "../../state/ui.ts";

/**
 * The switch and its actions come with the main screen's chunk (client/app/push_main.ts):
 * Options offers it only after unlock, when that chunk is already there.
 */
const PushSwitch = lazy(() =>
  import("../../app/MainArea.tsx").then((m) => ({ default: m.push.PushSwitch }))
);

/**
 * spec §2 Options menu: "enable or disable push notifications (only when not opened from
 * home …)". The PIN pad's first load carries only this check.
 */
export function PushToggle() {
  useSignals();
  if (optionsFromHome.value) return null;
  return (
    <Suspense fallback={null}>
      <PushSwitch />
    </Suspense>
  );
}
