import assert from "node:assert/strict";
import {
  browserLanguage,
  cachedTranslation,
  cacheTranslation,
  chooseLanguage,
  chosenLanguage,
  LANGUAGES,
  preferredLanguage,
} from "../../client/i18n/language.ts";
import {
  localizedSupport,
  ownSupportPage,
  rememberedSupportUrl,
  rememberSupportUrl,
} from "../../client/i18n/support_link.ts";
import { LOCALES } from "../../server/i18n.ts";

Deno.test("[language] the client offers exactly the server's languages, each in its own name", () => {
  assert.deepEqual(LANGUAGES.map((l) => l.code).sort(), [...LOCALES].sort());
  assert.deepEqual(LANGUAGES.map((l) => l.name), ["English", "Français", "Deutsch", "Español"]);
});

Deno.test("[language] the browser's first language QCard speaks, else English", () => {
  assert.equal(browserLanguage(["de-AT", "en"]), "de");
  assert.equal(browserLanguage(["it-IT", "es-419", "fr"]), "es");
  assert.equal(browserLanguage(["FR-ca"]), "fr");
  assert.equal(browserLanguage(["it", "pt-BR"]), "en");
  assert.equal(browserLanguage([]), "en");
});

Deno.test("[language] a choice in Options wins over the browser and is kept", () => {
  localStorage.clear();
  assert.equal(chosenLanguage(), null);
  assert.equal(preferredLanguage(), browserLanguage(navigator.languages));
  chooseLanguage("es");
  assert.equal(chosenLanguage(), "es");
  assert.equal(preferredLanguage(), "es");
  localStorage.setItem("qc_language", "xx");
  assert.equal(chosenLanguage(), null, "an unknown stored value is ignored");
  localStorage.clear();
});

Deno.test("[language] translations are cached per language; the old single entry is read once", () => {
  localStorage.clear();
  localStorage.setItem("qc_translation", JSON.stringify({ translation: { a: "b" }, locale: "fr" }));
  assert.deepEqual(cachedTranslation("fr"), { translation: { a: "b" }, locale: "fr" });
  assert.equal(cachedTranslation("de"), null);
  cacheTranslation({ translation: { a: "c" }, locale: "de" });
  assert.equal(localStorage.getItem("qc_translation"), null);
  assert.deepEqual(cachedTranslation("de")?.translation, { a: "c" });
  localStorage.setItem("qc_translation:es", "{broken");
  assert.equal(cachedTranslation("es"), null);
  localStorage.clear();
});

Deno.test("[language] our own support page follows the language; an external one does not", () => {
  assert.equal(localizedSupport("/support/en.html", "de"), "/support/de.html");
  assert.equal(localizedSupport("/support/fr.html", "xx"), "/support/fr.html");
  assert.equal(
    localizedSupport("https://help.example.com/support/en.html", "de"),
    "https://help.example.com/support/en.html",
  );
  assert.equal(ownSupportPage("es"), "/support/es.html");
  localStorage.clear();
  rememberSupportUrl("/support/en.html");
  assert.equal(rememberedSupportUrl(), "/support/en.html");
  rememberSupportUrl(null);
  assert.equal(rememberedSupportUrl(), null);
});

Deno.test("[language] a banner raised before a language switch follows the new language", async () => {
  const { applyTranslation, t } = await import("../../client/i18n/index.ts");
  const { banners, bannerText, dropBanners, pushBanner } = await import("../../client/state/ui.ts");
  const { fr } = await import("../../client/shared/i18n/locales/fr.ts");
  const { de } = await import("../../client/shared/i18n/locales/de.ts");
  applyTranslation({}, "en");
  banners.value = [];
  pushBanner(t("common.networkError"));
  pushBanner("Le serveur a dit non"); // a server's message: kept as it came
  applyTranslation(de, "de");
  assert.deepEqual(banners.value.map(bannerText), [
    de["common.networkError"],
    "Le serveur a dit non",
  ]);
  // Raised again in the new language: still one banner; dropped by its new text.
  pushBanner(t("common.networkError"));
  assert.equal(banners.value.length, 2);
  applyTranslation(fr, "fr");
  assert.equal(bannerText(banners.value[0]), fr["common.networkError"]);
  dropBanners([t("common.networkError")]);
  assert.deepEqual(banners.value.map(bannerText), ["Le serveur a dit non"]);
  banners.value = [];
  applyTranslation({}, "en");
});
