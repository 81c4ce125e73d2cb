import { useEffect, useRef } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { followNetwork } from "../actions/network.ts";
import { t } from "../i18n/index.ts";
import { network } from "../state/ui.ts";

/**
 * The calm offline strip (spec §1 offline): as soon as the network drops — the browser's
 * offline event or a call that found no network — a thin informational strip at the top says
 * the app shows saved data and keeps what is added for later; "Back online" for a moment when
 * it returns. At the top, so it is never under the bottom navigation or a sticky action bar;
 * its height is published as --strip-h so the header and the side panels start below it.
 * A polite live region: read out once, never stealing the focus.
 */
export function OfflineStrip() {
  useSignals();
  const state = network.value;
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => followNetwork(), []);
  const shown = state !== "online";
  useEffect(() => {
    const root = document.documentElement.style;
    const el = ref.current;
    if (!shown || !el) return void root.removeProperty("--strip-h");
    const set = () => root.setProperty("--strip-h", `${el.offsetHeight}px`);
    set();
    if (typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver(set);
    ro.observe(el);
    return () => {
      ro.disconnect();
      root.removeProperty("--strip-h");
    };
  }, [shown]);
  return (
    <div
      ref={ref}
      className={`offline-strip${shown ? ` shown ${state}` : ""}`}
      role="status"
      aria-live="polite"
    >
      {state === "offline"
        ? (
          <>
            <strong>{t("common.offline")}</strong>
            <span className="offline-strip-hint">{t("net.offlineHint")}</span>
          </>
        )
        : state === "back"
        ? <strong>{t("net.back")}</strong>
        : null}
    </div>
  );
}
