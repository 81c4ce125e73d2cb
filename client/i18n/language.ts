/**
 * The person's language (spec §7 pwatranslation): the one chosen in Options, else the first of the
 * browser's languages (navigator.languages) that QCard speaks, else English. The choice is
 * kept in localStorage (it is not secret) and sent with every API call as Accept-Language
 * (client/api/http.ts), and to pwatranslation, which records it as the user's language on
 * the server so that mails, push texts and error messages follow it.
 */

/** The languages QCard speaks, each named in itself (server/i18n.ts LOCALES). */
export const LANGUAGES = [
  { code: "en", name: "English" },
  { code: "fr", name: "Français" },
  { code: "de", name: "Deutsch" },
  { code: "es", name: "Español" },
] as const;
export type Language = typeof LANGUAGES[number]["code"];

const STORAGE_KEY = "qc_language";

function isLanguage(code: unknown): code is Language {
  return typeof code === "string" && LANGUAGES.some((l) => l.code === code);
}

/** The first of the browser's languages QCard speaks ("de-AT" → "de"), else English. */
export function browserLanguage(languages: readonly string[]): Language {
  for (const tag of languages) {
    const code = tag.slice(0, 2).toLowerCase();
    if (isLanguage(code)) return code;
  }
  return "en";
}

/** The language chosen in Options, if any (null before a choice or without storage). */
export function chosenLanguage(): Language | null {
  try {
    const v = localStorage.getItem(STORAGE_KEY);
    return isLanguage(v) ? v : null;
  } catch {
    return null;
  }
}

/** The language to show and to ask the server for. */
export function preferredLanguage(): Language {
  const chosen = chosenLanguage();
  if (chosen) return chosen;
  if (typeof navigator === "undefined") return "en";
  return browserLanguage(navigator.languages?.length ? navigator.languages : [navigator.language]);
}

/** Remembers the choice made in Options. */
export function chooseLanguage(code: Language): void {
  try {
    localStorage.setItem(STORAGE_KEY, code);
  } catch { /* private mode: the choice lasts this session (the dictionary is applied) */ }
}

/** What pwatranslation answered, kept per language so a switch works offline too. */
export interface Translation {
  translation: Record<string, string>;
  locale: string;
}

/** localStorage key of the translations (one entry a language: `qc_translation:de`). */
const TRANSLATION_CACHE = "qc_translation";

/** The last translation fetched for this language, if any. */
export function cachedTranslation(lang: string): Translation | null {
  try {
    // Before languages could be chosen, one entry held the last translation, whatever its language.
    for (const key of [`${TRANSLATION_CACHE}:${lang}`, TRANSLATION_CACHE]) {
      const raw = localStorage.getItem(key);
      if (!raw) continue;
      const t = JSON.parse(raw) as Translation;
      if (t.locale === lang && t.translation && typeof t.translation === "object") return t;
    }
  } catch { /* a damaged entry is fetched again */ }
  return null;
}

export function cacheTranslation(t: Translation): void {
  try {
    localStorage.setItem(`${TRANSLATION_CACHE}:${t.locale}`, JSON.stringify(t));
    localStorage.removeItem(TRANSLATION_CACHE);
  } catch { /* storage full or off: fetched again next time */ }
}
