import PushSwitch from "./PushSwitch.tsx";
import PasskeySwitch from "./PasskeySwitch.tsx";
import TimeZoneSwitch from "./TimeZoneSwitch.tsx";

/** Options' switches shown only after an unlock (PushToggle): push, passkey unlock, UTC times. */
export function AfterUnlockSwitches() {
  return (
    <>
      <PushSwitch />
      <PasskeySwitch />
      <TimeZoneSwitch />
    </>
  );
}
