import { lazy, Suspense, useEffect, useLayoutEffect, useState } from "react";
import { effect, signal } from "@preact/signals-react";
import { useSignals } from "@preact/signals-react/runtime";
import { ConfirmPanel } from "../components/ConfirmPanel.tsx";
import { ErrorBanners } from "../components/ErrorBanners.tsx";
import { PushBanner } from "../components/PushBanner.tsx";
import { Notice } from "../components/Notice.tsx";
import { ProgressOverlay } from "../components/ProgressOverlay.tsx";
import { t } from "../i18n/index.ts";
import { phase } from "../state/session.ts";
import { panel } from "../state/ui.ts";
import { loadMainArea, mainChunk } from "./main_chunk.ts";
import { ActivationScreen } from "../screens/Activation/ActivationScreen.tsx";
import { DefinePinScreen } from "../screens/DefinePin/DefinePinScreen.tsx";
import { UnlockScreen } from "../screens/Unlock/UnlockScreen.tsx";

/**
 * The main screen's chunk; started early so it is ready when the PIN is accepted. Once it is
 * in, the main screen is rendered directly: React (not preact) shows a lazy component's
 * fallback on its first render even when the chunk is there, then holds the content back
 * for its 300 ms fallback throttle (the cached rows waited ~200 ms for it).
 */
const MainArea = lazy(loadMainArea);
/** The side panels' chunk (options, lost activation). */
const Panels = lazy(() => import("./Panels.tsx"));
/**
 * Whether the side panels are mounted (their chunk fetched): once start-up is done
 * (client/main.tsx), or at once when one is asked for before that.
 */
const panelsOn = signal(false);
export const mountPanels = () => void (panelsOn.value = true);
effect(() => {
  if (panel.value) mountPanels();
});

/** The main screen: directly when its chunk is in, else through the lazy component. */
function Main() {
  useSignals();
  // Chosen once per mount: switching later would remount the screen and lose its state.
  const [Direct] = useState(() => mainChunk.peek()?.default ?? null);
  if (Direct) return <Direct />;
  return (
    <Suspense fallback={<p className="loading" role="status">{t("app.loading")}</p>}>
      <MainArea />
    </Suspense>
  );
}

/** spec §2: no URL routes; the screen follows the session phase. */
export function App() {
  useSignals();
  const p = phase.value;
  // The static first screen (index.html) is taken over: from now on its controls answer
  // ("taken", before any event can come) and every effect has run ("live"). Until then
  // client/boot.ts keeps the buttons tapped, and taps them again once live; the browser
  // tests wait for "live" after every load.
  useLayoutEffect(() => {
    document.documentElement.dataset.app = "taken";
  }, []);
  useEffect(() => {
    document.documentElement.dataset.app = "live";
  }, []);
  return (
    <div className="app" data-phase={p}>
      <ErrorBanners />
      <PushBanner />
      {p === "boot" ? <p className="loading" role="status">{t("app.loading")}</p> : null}
      {p === "failed" ? <p className="loading" role="alert">{t("app.startFailed")}</p> : null}
      {p === "activate" ? <ActivationScreen /> : null}
      {p === "definePin" ? <DefinePinScreen /> : null}
      {p === "unlock" ? <UnlockScreen /> : null}
      {p === "main" ? <Main /> : null}
      {/* Closed until asked for: nothing to show while their chunk comes. */}
      {panelsOn.value
        ? (
          <Suspense fallback={null}>
            <Panels />
          </Suspense>
        )
        : null}
      <ConfirmPanel />
      <Notice />
      <ProgressOverlay />
    </div>
  );
}
