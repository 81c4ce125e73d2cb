import "../i18n/complete.ts"; // the rest of English, with this chunk
import { useSignals } from "@preact/signals-react/runtime";
import { useBannerFixes } from "../components/BannerFixes.tsx";
import { FailedWrites } from "../components/FailedWrites.tsx";
import { OfflineStrip } from "../components/OfflineStrip.tsx";
import { MainScreen } from "../screens/Main/MainScreen.tsx";
import { MainMenuPanel } from "../screens/MainMenu/MainMenuPanel.tsx";
import { ExportPanel } from "../screens/Export/ExportPanel.tsx";
import { SheetHost } from "./SheetHost.tsx";
export * as push from "./push_main.ts"; // web push: deep links, Options switch, re-registration
export * as passkey from "./passkey_main.ts"; // spec §4 passkey unlock: the prompt, Options switch

/**
 * Everything shown after unlock, in its own chunk: the PIN pad loads without it (first-load
 * budget), and it is fetched while the person types the PIN.
 */
export default function MainArea() {
  useSignals();
  useBannerFixes();
  return (
    <>
      <OfflineStrip />
      <FailedWrites />
      <MainScreen />
      <SheetHost />
      <MainMenuPanel />
      <ExportPanel />
    </>
  );
}
