/**
 * Build code (run by Deno from build.ts, never bundled into the app): the part of the app's
 * stylesheet the static first screens need, inlined into their head. The whole
 * stylesheet (25 KB) was inlined: parsed, and matched against the first screen, before the
 * first paint. Now the first screens carry the rules that can match their markup, and the boot
 * script links the whole stylesheet after the first paint (client/boot.ts).
 *
 * Kept: every rule one of whose selectors can match an element of the given markup, read
 * conservatively: each compound of the selector names only tags, classes and ids that occur
 * in the markup (pseudo-classes, pseudo-elements and attribute selectors are not read, so they
 * keep a rule), the at-rules around kept rules, the keyframes kept rules name, and every other
 * at-rule. Kept rules stay in their order, so once the whole stylesheet follows them every
 * element's style is what the whole stylesheet alone gives: the first screen's rules are in it
 * at the same places, after their inlined copies.
 */

/** The tags, classes and ids of `markup` (HTML), plus html, head and body. */
export function markupNames(
  markup: string,
): { tags: Set<string>; classes: Set<string>; ids: Set<string> } {
  const tags = new Set(["html", "head", "body"]);
  const classes = new Set<string>();
  const ids = new Set<string>();
  for (const m of markup.matchAll(/<([a-zA-Z][\w-]*)([^>]*)>/g)) {
    tags.add(m[1].toLowerCase());
    const cls = /\sclass="([^"]*)"/.exec(m[2])?.[1];
    for (const c of cls?.split(/\s+/) ?? []) if (c) classes.add(c);
    const id = /\sid="([^"]*)"/.exec(m[2])?.[1];
    if (id) ids.add(id);
  }
  return { tags, classes, ids };
}

type Names = ReturnType<typeof markupNames>;

/** Whether `selector` (one of a list) can match an element of the markup named by `names`. */
export function mayMatch(selector: string, names: Names): boolean {
  // Pseudo-classes and -elements (with their arguments) and attribute selectors are not read.
  let s = selector;
  for (let before = ""; before !== s;) {
    before = s;
    s = s.replace(/::?[\w-]+\([^()]*\)/g, "").replace(/\[[^\]]*\]/g, "");
  }
  s = s.replace(/::?[\w-]+/g, "");
  for (const compound of s.split(/[\s>+~]+/).filter(Boolean)) {
    for (const part of compound.match(/[.#]?[\w-]+|\*/g) ?? []) {
      if (part === "*") continue;
      if (part[0] === ".") {
        if (!names.classes.has(part.slice(1))) return false;
      } else if (part[0] === "#") {
        if (!names.ids.has(part.slice(1))) return false;
      } else if (!names.tags.has(part.toLowerCase())) return false;
    }
  }
  return true;
}

/** One top-level item of a stylesheet: a rule (`prelude{body}`) or an at-rule. */
interface Item {
  prelude: string;
  /** The text between the braces; null for a statement at-rule (`@charset …;`). */
  body: string | null;
}

/** Splits a stylesheet (minified or not, no nesting) into its top-level items. */
export function cssItems(css: string): Item[] {
  const items: Item[] = [];
  let i = 0;
  const skipString = (at: number) => {
    const quote = css[at];
    let j = at + 1;
    while (j < css.length && css[j] !== quote) j += css[j] === "\\" ? 2 : 1;
    return j + 1;
  };
  while (i < css.length) {
    let j = i;
    let prelude = "";
    // The prelude: up to `{` or, for a statement at-rule, `;`.
    while (j < css.length && css[j] !== "{" && css[j] !== ";") {
      if (css.startsWith("/*", j)) j = css.indexOf("*/", j + 2) + 2 || css.length;
      else if (css[j] === '"' || css[j] === "'") j = skipString(j);
      else j++;
    }
    prelude = css.slice(i, j).replace(/\/\*[\s\S]*?\*\//g, "").trim();
    if (j >= css.length) break;
    if (css[j] === ";") {
      if (prelude) items.push({ prelude, body: null });
      i = j + 1;
      continue;
    }
    let depth = 1;
    let k = j + 1;
    while (k < css.length && depth > 0) {
      if (css.startsWith("/*", k)) k = css.indexOf("*/", k + 2) + 2 || css.length;
      else if (css[k] === '"' || css[k] === "'") k = skipString(k);
      else {
        if (css[k] === "{") depth++;
        else if (css[k] === "}") depth--;
        k++;
      }
    }
    items.push({ prelude, body: css.slice(j + 1, k - 1) });
    i = k;
  }
  return items;
}

/** Splits a selector list at its top-level commas. */
function selectorList(prelude: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < prelude.length; i++) {
    const c = prelude[i];
    if (c === "(" || c === "[") depth++;
    else if (c === ")" || c === "]") depth--;
    else if (c === "," && depth === 0) {
      out.push(prelude.slice(start, i));
      start = i + 1;
    }
  }
  out.push(prelude.slice(start));
  return out.map((s) => s.trim()).filter(Boolean);
}

const GROUPING = /^@(media|supports|layer|container)\b/i;

/** The rules of `css` that can apply to `markup` (see the module's comment), in order. */
export function firstScreenCss(css: string, markup: string): string {
  const names = markupNames(markup);
  const pick = (items: Item[]): string[] => {
    const out: string[] = [];
    for (const { prelude, body } of items) {
      if (body === null) out.push(`${prelude};`);
      else if (GROUPING.test(prelude)) {
        const inner = pick(cssItems(body));
        if (inner.length) out.push(`${prelude}{${inner.join("")}}`);
      } else if (/^@keyframes\b/i.test(prelude) || /^@-webkit-keyframes\b/i.test(prelude)) {
        out.push(`${prelude}{${body}}`); // dropped below unless a kept rule names it
      } else if (prelude.startsWith("@")) out.push(`${prelude}{${body}}`);
      else if (selectorList(prelude).some((s) => mayMatch(s, names))) {
        out.push(`${prelude}{${body}}`);
      }
    }
    return out;
  };
  const kept = pick(cssItems(css));
  const rules = kept.filter((r) => !/^@(-webkit-)?keyframes\b/i.test(r)).join("");
  return kept.filter((r) => {
    const name = /^@(?:-webkit-)?keyframes\s+([\w-]+)/i.exec(r)?.[1];
    return !name || new RegExp(`animation(?:-name)?:[^;}]*\\b${name}\\b`).test(rules);
  }).join("");
}
