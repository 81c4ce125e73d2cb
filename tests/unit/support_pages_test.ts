import assert from "node:assert/strict";
import { FAQ } from "../../server/support/faq.ts";
import type { TopicId } from "../../server/support/faq/types.ts";
import {
  renderSupportPage,
  SUPPORT_CSS,
  supportPath,
  writeSupportPages,
} from "../../server/support/pages.ts";
import { type Locale, LOCALES } from "../../server/i18n.ts";
import { injectShell } from "../../build.ts";

/** spec §1 support: the FAQ covers activation, PIN, requests, cards, receipts, VAT and offline. */
const TOPICS: TopicId[] = ["activation", "pin", "requests", "cards", "receipts", "vat", "offline"];

Deno.test("[support page] every language has the same topics, each with questions and answers", () => {
  assert.deepEqual(Object.keys(FAQ).sort(), [...LOCALES].sort());
  for (const [lang, f] of Object.entries(FAQ)) {
    assert.deepEqual(f.topics.map((t) => t.id), TOPICS, lang);
    for (const t of f.topics) {
      assert.equal(t.items.length, FAQ.en.topics.find((x) => x.id === t.id)!.items.length, t.id);
      for (const [q, a] of t.items) {
        assert.ok(q.trim() && a.trim(), `${lang} ${t.id}: empty text`);
        assert.ok(q.endsWith("?") || q.includes("?"), `${lang} ${t.id}: "${q}" is no question`);
      }
    }
    for (const text of [f.title, f.intro, f.language, f.languages]) assert.ok(text.trim(), lang);
  }
});

Deno.test("[support page] typography: French no-break spaces, Spanish ¿, German „…“", () => {
  const all = (l: Locale) =>
    FAQ[l].topics.flatMap((t) => [t.title, ...t.items.flat()]).concat(FAQ[l].intro);
  for (const s of all("fr")) {
    assert.ok(!/ [:;?!»]|« /.test(s), `fr: plain space in "${s}"`);
    assert.ok(!s.includes("'"), `fr: ' instead of ’ in "${s}"`);
  }
  for (const s of all("es")) {
    const count = (re: RegExp) => [...s.matchAll(re)].length;
    assert.equal(count(/¿/g), count(/\?/g), `es: ¿…? in "${s}"`);
  }
  for (const s of all("de")) {
    assert.equal([...s.matchAll(/„/g)].length, [...s.matchAll(/“/g)].length, `de: "${s}"`);
    assert.ok(!/['"]/.test(s), `de: straight quote in "${s}"`);
  }
});

Deno.test("[support page] static HTML: language, links to every language, no script, no inline style", () => {
  for (const lang of LOCALES as Locale[]) {
    const html = renderSupportPage(lang, "/assets/main-ABCDEFGH.css");
    assert.match(html, new RegExp(`^<!doctype html>\\n<html lang="${lang}">`));
    assert.ok(html.includes(`<h1>${FAQ[lang].title.replace(/&/g, "&amp;")}</h1>`), lang);
    assert.ok(html.includes('<link rel="stylesheet" href="/assets/main-ABCDEFGH.css">'));
    assert.ok(html.includes(`<link rel="stylesheet" href="${SUPPORT_CSS}">`));
    assert.ok(html.includes('name="viewport"'));
    for (const other of LOCALES) assert.ok(html.includes(`href="${supportPath(other)}"`), other);
    assert.ok(
      html.includes(
        `href="${supportPath(lang)}" hreflang="${lang}" lang="${lang}" aria-current="page"`,
      ),
    );
    // The same rule build.ts applies to the shell: the CSP has no 'unsafe-inline'.
    assert.ok(!/<script|<style[\s>]|\sstyle=|\son[a-z]+=/i.test(html), lang);
    for (const t of FAQ[lang].topics) assert.ok(html.includes(`<h2 id="${t.id}">`), t.id);
  }
  // Texts are escaped (an apostrophe in English, "&" or "<" in a future text).
  assert.ok(renderSupportPage("en", null).includes("&#39;Connect device&#39;"));
  assert.ok(!renderSupportPage("en", null).includes('<link rel="stylesheet" href="null'));
  // build.ts's own guard agrees (the shell check is the one it runs on index.html).
  injectShell(renderSupportPage("de", null), { js: ["/assets/main.js"], css: null });
});

Deno.test("[support page] supportPath falls back to English for a language we do not have", () => {
  assert.equal(supportPath("de"), "/support/de.html");
  assert.equal(supportPath("it"), "/support/en.html");
  assert.equal(supportPath("../x"), "/support/en.html");
});

Deno.test("[support page] writeSupportPages writes one page a language and the stylesheet", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const paths = await writeSupportPages(dir, "/assets/app.css");
    assert.deepEqual(paths.sort(), [SUPPORT_CSS, ...LOCALES.map(supportPath)].sort());
    for (const p of paths) assert.ok((await Deno.stat(dir + p)).size > 200, p);
    const css = await Deno.readTextFile(dir + SUPPORT_CSS);
    assert.match(css, /\.support-page main/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
