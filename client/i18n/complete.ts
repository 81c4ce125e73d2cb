/**
 * Imported by the main screen's chunk (client/app/MainArea.tsx): the English keys that the
 * first load leaves out (en_shell.ts) arrive with it, so t() has every English string from
 * the main screen on, even when pwatranslation could not be fetched.
 */
import { en } from "../shared/i18n/locales/en.ts";
import { completeEnglish } from "./index.ts";

completeEnglish(en);
