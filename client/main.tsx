import "./styles/app.css";
import { createRoot } from "react-dom/client";
import { App, loadMainArea, loadPanels } from "./app/App.tsx";
import { boot, firstScreen } from "./actions/session.ts";
import { applyKeptColors, refreshAppColors } from "./actions/app_color.ts";
import { watchForUpdate } from "./actions/update.ts";
import { phase } from "./state/session.ts";

// spec §7: the service worker script registers immediately at start; a new version waits
// for the person's yes (spec §4 'Load New Version?', actions/update.ts).
if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js")
    .then(watchForUpdate)
    .catch((err) => console.error("service worker", err));
}
// The organisation's theme colours: the kept ones before the first paint, the server's after.
applyKeptColors();

// The screen index.html already shows (its static markup): the first render takes it over.
firstScreen();
createRoot(document.getElementById("root")!).render(<App />);
// The side panels the PIN pad opens, fetched at once (they are not needed to type a PIN).
loadPanels().catch(() => {/* retried by the lazy component when needed */});

boot().then(() => {
  void refreshAppColors();
  // The main screen's chunk, fetched while the PIN pad is on screen.
  loadMainArea().catch(() => {/* retried by the lazy component when needed */});
}).catch((err) => {
  // spec §8: if the application fails to start, the error is written to the console.
  console.error("QCard failed to start", err);
  phase.value = "failed";
});
