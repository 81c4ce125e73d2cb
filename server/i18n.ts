import { en, type TranslationKey } from "../client/shared/i18n/locales/en.ts";
import { format } from "../client/shared/i18n/format.ts";

export type Dict = Record<string, string>;

/** Locales the server can serve; each module is loaded once, on first use. */
const loaders: Record<string, () => Promise<Dict>> = {
  en: () => Promise.resolve(en),
  fr: async () => (await import("../client/shared/i18n/locales/fr.ts")).fr,
  de: async () => (await import("../client/shared/i18n/locales/de.ts")).de,
  es: async () => (await import("../client/shared/i18n/locales/es.ts")).es,
};
export const LOCALES = Object.keys(loaders);
export type Locale = "en" | "fr" | "de" | "es";

/** Picks a supported locale from a tag or an Accept-Language header; English otherwise. */
export function pickLocale(...candidates: (string | undefined | null)[]): Locale {
  for (const c of candidates) {
    if (!c) continue;
    for (const part of c.split(",")) {
      const lang = part.trim().slice(0, 2).toLowerCase();
      if (Object.hasOwn(loaders, lang)) return lang as Locale;
    }
  }
  return "en";
}

export async function dictionary(locale: string): Promise<Dict> {
  return await (loaders[pickLocale(locale)] ?? loaders.en)();
}

/** A translator for one language; `locale` names it (for amounts and dates in its texts). */
export async function translate(locale: string) {
  const d = await dictionary(locale);
  const picked = pickLocale(locale);
  return Object.assign(
    (key: TranslationKey, params?: Record<string, string | number>) =>
      format(d[key] ?? en[key], params, picked),
    { locale: picked },
  );
}
