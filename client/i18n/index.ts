import { signal } from "@preact/signals-react";
import type { TranslationKey } from "../shared/i18n/locales/en.ts";
import { enShell } from "../shared/i18n/locales/en_shell.ts";
import { format } from "../shared/i18n/format.ts";

export type { TranslationKey };

/**
 * English known so far: the first load bundles only the strings needed before the main
 * screen (en_shell.ts, first-load budget); the main screen's chunk brings the rest
 * (completeEnglish). pwatranslation answers every key in the person's language anyway.
 */
let english: Record<string, string> = enShell;

/**
 * The active dictionary: English until the server's translation (spec §7 pwatranslation) loads.
 * Its own object (see {@link update}), not the module's.
 */
export const dictionary = signal<Record<string, string>>({ ...enShell });
export const locale = signal("en");
/** Keys asked for while no dictionary had them (they showed as ""). */
const missing = new Set<string>();

/** Translates a key; components that call it must call useSignals() first (engineering.md §3). */
export function t(key: TranslationKey, params?: Record<string, string | number>): string {
  const text = dictionary.value[key] ?? english[key];
  // Only a main-screen key asked for before any translation or the main chunk arrived.
  if (text === undefined) missing.add(key);
  const out = text === undefined ? "" : format(text, params, locale.value);
  last = [out, key, params];
  return out;
}

type Params = Record<string, string | number> | undefined;
let last: [string, TranslationKey, Params] | undefined;

/**
 * The key and params the text `t()` returned last came from, when `text` is it: a banner
 * raised with `pushBanner(t(…))` keeps them and is translated again after a language switch.
 */
export function sourceOf(text: string): [TranslationKey, Params] | undefined {
  return last?.[0] === text ? [last[1], last[2]] : undefined;
}

/**
 * Makes `next` the dictionary. When it only adds keys (same language, every text shown so far
 * the same, none of the added keys asked for before), nothing on screen changes: the keys are
 * added to the dictionary in place and no component renders again (a first visit's
 * English translation, or the main chunk's English, re-rendered every screen in one long task).
 */
function update(next: Record<string, string>, loc: string): void {
  const current = dictionary.peek();
  const adds = loc === locale.peek() && [...missing].every((k) => !(k in next)) &&
    Object.keys(current).every((k) => current[k] === next[k]);
  if (adds) {
    Object.assign(current, next);
    return;
  }
  missing.clear();
  dictionary.value = next;
  locale.value = loc;
}

export function applyTranslation(translation: Record<string, string>, loc: string): void {
  update({ ...english, ...translation }, loc);
  if (typeof document !== "undefined") document.documentElement.lang = loc;
}

/** The main screen's chunk hands over the complete English dictionary (the fallback). */
export function completeEnglish(en: Record<string, string>): void {
  english = en;
  update({ ...en, ...dictionary.peek() }, locale.peek());
}
