import { isAppMode } from "../lib/mode.ts";

// The app-mode hint of the Approvals list (spec §2: in a browser, not app mode, a hint suggests
// app mode, with iOS add-to-home-screen instructions), hidden for good once dismissed.

const HINT_KEY = "qc_hint_hidden";

export function hintWanted(): boolean {
  if (typeof window === "undefined" || isAppMode(window)) return false;
  try {
    return localStorage.getItem(HINT_KEY) !== "1";
  } catch {
    return true;
  }
}

export function hideHint(): void {
  try {
    localStorage.setItem(HINT_KEY, "1");
  } catch { /* ignore */ }
}
