import { call } from "../api/http.ts";
import { sessionCalls as session } from "../api/session_calls.ts";
import { THEME_COLOR } from "../lib/mode.ts";

// The organisation's colours (spec §7 GET /qtservlet//appcolor): `appcolor` is
// the theme of request mode, `cardcolor` that of approval (card) mode (spec §9's dark slate
// and green are the defaults, server/org/schema.ts). Applied before the first paint from
// the copy kept at the last start, so the PIN pad wears them before the network answers.

/** localStorage key of the last answer: colours are not secret. */
export const APP_COLOR_KEY = "qc.appcolor";

export interface AppColors {
  appcolor: string;
  cardcolor: string;
}

/** #rgb or #rrggbb: anything else (a CSS injection, a typo) is ignored. */
export function isHexColor(v: unknown): v is string {
  return typeof v === "string" && /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i.test(v);
}

/**
 * Makes `colors` the theme of both modes: the CSS variables app.css builds `--theme` from,
 * the colours setMode gives the browser's `theme-color` (THEME_COLOR, shared with
 * client/actions/approvals.ts) and that meta now.
 */
export function applyAppColors(colors: Partial<AppColors>): void {
  const root = document.documentElement;
  if (isHexColor(colors.appcolor)) {
    THEME_COLOR.request = colors.appcolor;
    root.style.setProperty("--theme-request", colors.appcolor);
  }
  if (isHexColor(colors.cardcolor)) {
    THEME_COLOR.approval = colors.cardcolor;
    root.style.setProperty("--theme-approval", colors.cardcolor);
  }
  const mode = root.dataset.mode === "approval" ? "approval" : "request";
  document.querySelector('meta[name="theme-color"]')?.setAttribute("content", THEME_COLOR[mode]);
}

/** Before the first paint: the colours kept at the last start (no network). */
export function applyKeptColors(): void {
  try {
    const kept = localStorage.getItem(APP_COLOR_KEY);
    if (kept) applyAppColors(JSON.parse(kept));
  } catch { /* no storage or a damaged copy: the defaults */ }
}

/**
 * After the first screen is painted: the server's colours, kept for the next start. Not
 * before: a request started ahead of the first paint delays it on a slow network
 * (Lighthouse's LCP counted this round trip).
 */
export async function refreshAppColors(): Promise<void> {
  try {
    const colors = await call(session.appcolor);
    applyAppColors(colors);
    localStorage.setItem(APP_COLOR_KEY, JSON.stringify(colors));
  } catch { /* offline: the kept or default colours stay */ }
}
