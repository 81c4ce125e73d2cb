import { signal } from "@preact/signals-react";
import { en, type TranslationKey } from "./locales/en.ts";
import { format } from "./format.ts";

export type { TranslationKey };

/** The active dictionary: English until the server's translation (spec §7 pwatranslation) loads. */
export const dictionary = signal<Record<string, string>>(en);
export const locale = signal("en");

/** Translates a key; components that call it must call useSignals() first (GUIDE §3). */
export function t(key: TranslationKey, params?: Record<string, string | number>): string {
  return format(dictionary.value[key] ?? en[key], params);
}

export function applyTranslation(translation: Record<string, string>, loc: string): void {
  dictionary.value = { ...en, ...translation };
  locale.value = loc;
  if (typeof document !== "undefined") document.documentElement.lang = loc;
}
