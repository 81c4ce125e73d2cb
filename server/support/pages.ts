/**
 * Our own support page (spec §1, §2 support tab, §7 pwasupporturl): one static
 * HTML file a language, `/support/<lang>.html`, rendered at build time by build.ts into the
 * client's output folder. Being files of the build, they are served like the shell (with
 * their brotli and gzip copies) and precached by the service worker, so the Support tab and
 * the PIN pad's FAQ link work offline. No script and no inline style: the strict CSP applies
 * to them too; the security middleware lets only our own origin frame them.
 */
import { join } from "node:path";
import { type Locale, LOCALES } from "../i18n.ts";
import { FAQ } from "./faq.ts";

/** URL path prefix of the support pages (security.ts lets our origin frame these). */
export const SUPPORT_PREFIX = "/support/";
/** The page's own stylesheet, written beside the pages. */
export const SUPPORT_CSS = `${SUPPORT_PREFIX}support.css`;

/** Where our support page in this language lives (pwasupporturl, initialize's faqUrl). */
export function supportPath(locale: string): string {
  const lang = (LOCALES as string[]).includes(locale) ? locale : "en";
  return `${SUPPORT_PREFIX}${lang}.html`;
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/**
 * The page in one language. `appCss` is the app's hashed stylesheet (its colours and
 * fonts), linked before the page's own small stylesheet.
 */
export function renderSupportPage(locale: Locale, appCss: string | null): string {
  const f = FAQ[locale];
  const others = (LOCALES as Locale[]).map((l) =>
    l === locale
      ? `<a href="${supportPath(l)}" hreflang="${l}" lang="${l}" aria-current="page">${
        esc(FAQ[l].language)
      }</a>`
      : `<a href="${supportPath(l)}" hreflang="${l}" lang="${l}">${esc(FAQ[l].language)}</a>`
  );
  const topics = f.topics.map((t) =>
    [
      `<section aria-labelledby="${t.id}">`,
      `<h2 id="${t.id}">${esc(t.title)}</h2>`,
      ...t.items.map(([q, a]) => `<details><summary>${esc(q)}</summary><p>${esc(a)}</p></details>`),
      `</section>`,
    ].join("\n")
  );
  return [
    "<!doctype html>",
    `<html lang="${locale}">`,
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(f.title)}</title>`,
    ...(appCss ? [`<link rel="stylesheet" href="${esc(appCss)}">`] : []),
    `<link rel="stylesheet" href="${SUPPORT_CSS}">`,
    "</head>",
    '<body class="support-page">',
    "<main>",
    `<nav class="support-languages" aria-label="${esc(f.languages)}">${others.join(" ")}</nav>`,
    `<h1>${esc(f.title)}</h1>`,
    `<p>${esc(f.intro)}</p>`,
    ...topics,
    "</main>",
    "</body>",
    "</html>",
    "",
  ].join("\n");
}

/** The page's own layout on top of the app's stylesheet (no inline style: strict CSP). */
export const SUPPORT_STYLES = `.support-page {
  background: var(--bg, #f4f6f8);
}
.support-page main {
  max-width: 560px;
  margin: 0 auto;
  padding: 16px 16px 32px;
  background: #fff;
  min-height: 100%;
  line-height: 1.5;
}
.support-page h1 {
  font-size: 1.4rem;
  margin: 8px 0;
}
.support-page h2 {
  font-size: 1.1rem;
  margin: 24px 0 4px;
}
.support-page details {
  border-bottom: 1px solid #dde3e8;
}
.support-page summary {
  min-height: 48px;
  padding: 12px 0;
  cursor: pointer;
  font-weight: 600;
}
.support-page details p {
  margin: 0 0 12px;
  color: var(--muted, #5d6b78);
}
.support-languages {
  display: flex;
  flex-wrap: wrap;
  gap: 4px 16px;
}
.support-languages a {
  display: inline-block;
  min-height: 44px;
  padding: 12px 0;
  color: inherit;
}
.support-languages a[aria-current] {
  font-weight: 700;
  text-decoration: none;
}
`;

/**
 * Writes every language's page and the stylesheet into `<outDir>/support/` (build.ts calls
 * it before the service worker is built, so they are in its precache list). Returns the
 * URL paths written.
 */
export async function writeSupportPages(outDir: string, appCss: string | null): Promise<string[]> {
  const dir = join(outDir, ...SUPPORT_PREFIX.split("/").filter(Boolean));
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(join(outDir, SUPPORT_CSS), SUPPORT_STYLES);
  const paths = [SUPPORT_CSS];
  for (const locale of LOCALES as Locale[]) {
    await Deno.writeTextFile(join(outDir, supportPath(locale)), renderSupportPage(locale, appCss));
    paths.push(supportPath(locale));
  }
  return paths;
}
