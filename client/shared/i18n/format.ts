/**
 * Fills a translation's placeholders: `{name}` with params.name (unknown placeholders stay
 * visible so a gap is noticed), and plurals `{count, plural, one {# receipt} other {# receipts}}`
 * by Intl.PluralRules of `locale` (an exact `=0 {…}` form wins; a category the text does not
 * give falls back to `other`; `#` is the number in the locale's digits). Kept small: the PIN
 * pad's first load needs it ("1 attempt left").
 */
export function format(
  template: string,
  params?: Record<string, string | number>,
  locale = "en",
): string {
  if (!params) return template;
  return template.replace(
    /\{(\w+), plural,((?:\s*=?\w+ \{[^{}]*\})+)\s*\}/g,
    (m, k, body: string) => {
      const n = Number(params[k]);
      if (!(k in params) || Number.isNaN(n)) return m;
      const forms: Record<string, string> = {};
      for (const f of body.matchAll(/(=?\w+) \{([^{}]*)\}/g)) forms[f[1]] = f[2];
      const form = forms[`=${n}`] ?? forms[new Intl.PluralRules(locale).select(n)] ?? forms.other;
      return form.replace(/#/g, new Intl.NumberFormat(locale).format(n));
    },
  ).replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
}
