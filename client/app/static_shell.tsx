import { renderToStaticMarkup } from "react-dom/server";
import { t } from "../i18n/index.ts";
import { versionLabel } from "../i18n/release.ts";
import { phase, pinLength } from "../state/session.ts";
import { App } from "./App.tsx";

// The first screen as HTML, written into the shell by build.ts: the browser paints the
// activation screen or the PIN pad before any JavaScript has run, and the app's first render
// (client/main.tsx: the same screen, chosen by the same cookie) takes these very elements
// over. Rendered by react-dom/server for both flavours: the markup is the components' own.

/** The screens a start can begin with (spec §4: the PIN length cookie means unlock). */
export type FirstScreen = "activate" | "unlock";

const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")
    .replace(/'/g, "&#x27;");

/** The app's markup on `screen`, in English, with this build's version label. */
export function renderFirstScreen(
  screen: FirstScreen,
  release: { version: string; released: string },
): string {
  const before = { phase: phase.value, pinLength: pinLength.value };
  try {
    phase.value = screen;
    pinLength.value = 6;
    const html = renderToStaticMarkup(<App />);
    // Outside the bundle the label says "dev": this build's label instead.
    const label = t("app.versionLabel", { version: release.version, date: release.released });
    return html.replace(escapeHtml(versionLabel()), escapeHtml(label));
  } finally {
    phase.value = before.phase;
    pinLength.value = before.pinLength;
  }
}
