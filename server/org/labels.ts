/**
 * The organisation's own words (spec §3 labels and descriptions of types, VAT codes, receipt
 * types, accounting codes, cost centers, GL and project codes, accounts, secret questions) in
 * the languages the app speaks. The organisation file gives each either as one text, the same
 * in every language (`"label": "Hotel"`, as before: stored organisations keep working), or
 * per language with English as the fallback (`"label": {"en": "Hotel", "fr": "Hôtel"}`).
 *
 * Server only: full `zod`. The client gets the words of every language next to the spec's
 * plain field (client/shared/org_words.ts) and picks the one of the language shown.
 */
import * as z from "zod";
import {
  LABEL_LANGUAGES,
  type LabelLanguage,
  type LabelMap,
} from "../../client/shared/org_words.ts";

export type { LabelMap };
/** A label as the organisation file and the store hold it. */
export type OrgLabel = string | LabelMap;

const SHAPE = 'must be a text, or one text a language such as {"en": "Hotel", "fr": "Hôtel"}';

/**
 * One label of the organisation file. Checked by hand rather than by a zod union, whose
 * "Invalid input" does not tell an operator what to fix: each problem names its language.
 */
export const orgLabel = z.unknown().transform((value, ctx): OrgLabel => {
  const problem = (message: string, path: PropertyKey[] = []) => {
    ctx.issues.push({ code: "custom", message, input: value, path });
    return z.NEVER;
  };
  if (value === undefined) return problem("required field is missing");
  if (typeof value === "string") {
    return value.trim() || problem("must not be empty");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return problem(SHAPE);
  const out: Partial<Record<LabelLanguage, string>> = {};
  let bad = false;
  for (const [lang, text] of Object.entries(value)) {
    if (!(LABEL_LANGUAGES as readonly string[]).includes(lang)) {
      problem(`unknown language "${lang}" (known: ${LABEL_LANGUAGES.join(", ")})`, [lang]);
      bad = true;
    } else if (typeof text !== "string" || !text.trim()) {
      problem("must be a non-empty text", [lang]);
      bad = true;
    } else out[lang as LabelLanguage] = text.trim();
  }
  if (!("en" in value)) {
    return problem('"en" is required: English is shown when a language has no text');
  }
  return bad ? z.NEVER : out as LabelMap;
});

/** The text of a label in one language, English when the label has none in it. */
export function labelIn(label: OrgLabel | null | undefined, lang: string): string {
  if (label === null || label === undefined) return "";
  if (typeof label === "string") return label;
  return label[lang as LabelLanguage] ?? label.en;
}

/**
 * The words of every language of a multilingual label, for the extra field sent next to the
 * spec's plain one (absent for a plain label: the plain field says it all).
 */
export function labelMap(label: OrgLabel | null | undefined): LabelMap | undefined {
  return label && typeof label === "object" ? { ...label } : undefined;
}

/**
 * A request's cost center, GL and project words in every language the organisation gave,
 * kept on the record when they are chosen (server/domain/request_checks.ts), like the English
 * words beside them: a renamed code does not rewrite history, and lists need no joins. Each is
 * absent for a code with one plain text, or none.
 */
export interface CodeWords {
  costCenter?: LabelMap;
  GLCode?: LabelMap;
  projectCode?: LabelMap;
}

/** The words of the chosen codes (the organisation's labels as the store holds them). */
export function codeWordsOf(
  center: OrgLabel | null | undefined,
  ledger: OrgLabel | null | undefined,
  project: OrgLabel | null | undefined,
): CodeWords {
  const out: CodeWords = {};
  const [cc, gl, prj] = [labelMap(center), labelMap(ledger), labelMap(project)];
  if (cc) out.costCenter = cc;
  if (gl) out.GLCode = gl;
  if (prj) out.projectCode = prj;
  return out;
}

/** What a record keeps of its codes: the words written when chosen, and those of each language. */
export interface CodedRecord {
  costCenter: string;
  GLCode: string;
  projectCode: string;
  codeWords?: CodeWords;
}

/**
 * The codes' words in the reader's language (English when the organisation gave none in it),
 * resolved when shown as the request type is. A record stored before the words of every
 * language were kept, or a code with one plain text, shows the words it was written with.
 */
export function codesIn(
  r: CodedRecord,
  lang: string,
): { costCenter: string; GLCode: string; projectCode: string } {
  const w = r.codeWords;
  return {
    costCenter: w?.costCenter ? labelIn(w.costCenter, lang) : r.costCenter,
    GLCode: w?.GLCode ? labelIn(w.GLCode, lang) : r.GLCode,
    projectCode: w?.projectCode ? labelIn(w.projectCode, lang) : r.projectCode,
  };
}
