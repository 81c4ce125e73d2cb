/**
 * The organisation's own words in several languages (spec §3 labels and descriptions; the
 * organisation file may give them per language, server/org/labels.ts). Lookups carry the
 * spec's plain field (in the caller's language) and, when the organisation gave several
 * languages, the words of each in an extra field (`labels`, `descriptions`); the app shows
 * the one of the language on screen, so a switch in Options changes them at once and the
 * cached lookups stay right in every language. Pure: no signals, no zod.
 */

/** The languages an organisation label may be given in (server/i18n.ts LOCALES). */
export const LABEL_LANGUAGES = ["en", "fr", "de", "es"] as const;
export type LabelLanguage = typeof LABEL_LANGUAGES[number];

/** One text a language; English is always there (the fallback). */
export type LabelMap = { en: string } & Partial<Record<LabelLanguage, string>>;

/** The words of `lang`, else English, else the plain field as the server sent it. */
export function pickLabel(
  plain: string,
  words: Partial<Record<string, string>> | null | undefined,
  lang: string,
): string {
  return words?.[lang] || words?.en || plain;
}

/** An item of a lookup with the organisation's words (client/shared/contract Words fields). */
interface Worded {
  label?: string;
  labels?: Partial<Record<string, string>>;
  description?: string;
  descriptions?: Partial<Record<string, string>>;
}

/** The item with its label and description in `lang`; the same object when it has no words. */
export function inLanguage<T extends Worded>(item: T, lang: string): T {
  let out = item;
  if (item.labels && item.label !== undefined) {
    out = { ...out, label: pickLabel(item.label, item.labels, lang) };
  }
  if (item.descriptions && item.description !== undefined) {
    out = { ...out, description: pickLabel(item.description, item.descriptions, lang) };
  }
  return out;
}

/** Every list of a lookup keyed by what it depends on, in `lang`. */
export function listsInLanguage<T extends Worded>(
  lists: Record<string, T[]>,
  lang: string,
): Record<string, T[]> {
  const out: Record<string, T[]> = {};
  for (const [key, list] of Object.entries(lists)) out[key] = list.map((x) => inLanguage(x, lang));
  return out;
}
