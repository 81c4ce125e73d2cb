import PushSwitch from "./PushSwitch.tsx";
import PasskeySwitch from "./PasskeySwitch.tsx";

/** Options' switches shown only after an unlock (PushToggle): push, then passkey unlock. */
export function AfterUnlockSwitches() {
  return (
    <>
      <PushSwitch />
      <PasskeySwitch />
    </>
  );
}
