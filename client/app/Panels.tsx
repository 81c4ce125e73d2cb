import { LostActivationPanel } from "../screens/LostActivation/LostActivationPanel.tsx";
import { OptionsPanel } from "../screens/Options/OptionsPanel.tsx";

/**
 * The side panels the PIN pad opens (spec §2 options, spec §4 lost activation): not needed
 * to type a PIN, so they come in a chunk of their own, fetched right after start.
 */
export default function Panels() {
  return (
    <>
      <LostActivationPanel />
      <OptionsPanel />
    </>
  );
}
