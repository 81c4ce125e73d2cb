/**
 * The support address (spec §7 pwasupporturl) as the Support tab, the main menu and the PIN
 * pad's FAQ link use it. Our own support page follows the language shown
 * (server/support/pages.ts names it `/support/<lang>.html`; an external address is left as
 * it is), and the last answer is kept so that the tab works offline (the page itself is
 * precached by the service worker).
 */
import { LANGUAGES } from "./language.ts";

const SUPPORT_KEY = "qc_supporturl";

/** Our own page in `lang`, or the external address unchanged. */
export function localizedSupport(url: string, lang: string): string {
  return /^\/support\/[a-z]{2}\.html$/.test(url) && LANGUAGES.some((l) => l.code === lang)
    ? `/support/${lang}.html`
    : url;
}

/** Our own support page in `lang`: the FAQ link when the server could not be asked. */
export function ownSupportPage(lang: string): string {
  return localizedSupport("/support/en.html", lang);
}

/** Keeps pwasupporturl's answer (not secret: an address). */
export function rememberSupportUrl(url: string | null): void {
  try {
    if (url) localStorage.setItem(SUPPORT_KEY, url);
    else localStorage.removeItem(SUPPORT_KEY);
  } catch { /* asked again next time */ }
}

/** The last answer of pwasupporturl, for offline starts. */
export function rememberedSupportUrl(): string | null {
  try {
    return localStorage.getItem(SUPPORT_KEY);
  } catch {
    return null;
  }
}
