/**
 * Texts of our own support page (spec §1, §2 support tab), used when the
 * organisation configures no external support address. Kept here, not in the client's
 * locale files, so they cost the first load nothing: build.ts renders them into static
 * pages (server/support/pages.ts) that the service worker precaches.
 *
 * Same topics, in the same order, in every language (tests/unit/support_pages_test.ts).
 */
import type { Locale } from "../i18n.ts";
import type { FaqText } from "./faq/types.ts";
import { de } from "./faq/de.ts";
import { en } from "./faq/en.ts";
import { es } from "./faq/es.ts";
import { fr } from "./faq/fr.ts";

export const FAQ: Record<Locale, FaqText> = { en, fr, de, es };
