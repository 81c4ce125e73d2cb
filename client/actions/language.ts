import { applyTranslation, t } from "../i18n/index.ts";
import { cachedTranslation, chooseLanguage, type Language } from "../i18n/language.ts";
import { pushBanner } from "../state/ui.ts";
import { loadTranslation } from "./session.ts";

/**
 * Options' language choice (spec §7 pwatranslation): kept on the device, applied at once from
 * pwatranslation (which, signed in, records it as the user's language on the server for
 * mails, push texts and errors), or offline from the translation fetched before.
 */
export async function setLanguage(code: Language): Promise<void> {
  chooseLanguage(code);
  if (await loadTranslation()) return;
  const cached = cachedTranslation(code);
  if (cached) applyTranslation(cached.translation, cached.locale);
  else if (code === "en") applyTranslation({}, "en");
  // Not fetched yet and offline: the choice applies as soon as the network is back.
  else pushBanner(t("common.networkError"));
}
