import assert from "node:assert/strict";
import { en } from "../../client/shared/i18n/locales/en.ts";
import { fr } from "../../client/shared/i18n/locales/fr.ts";
import { de } from "../../client/shared/i18n/locales/de.ts";
import { es } from "../../client/shared/i18n/locales/es.ts";
import { format } from "../../client/shared/i18n/format.ts";
import { refusedAbbreviation } from "../../client/shared/transaction_rules.ts";
import { dictionary, LOCALES, pickLocale } from "../../server/i18n.ts";

type Key = keyof typeof en;

/** Keys whose text is rightly the same as the English one, per language. */
const SAME_AS_ENGLISH: Record<string, Set<string>> = {
  fr: new Set([
    "app.name",
    "app.version",
    "pinpad.faq",
    "common.ok",
    "errors.title", // "Messages"
    "options.title", // "Options"
    "menu.options", // "Options"
    "menu.title", // "Menu"
    "main.transactions", // "Transactions"
    "card.state.Active", // "Active"
    "secure.title", // "3-D Secure"
    "receipts.note", // "Note"
    "export.datev", // "DATEV Buchungsstapel": the format's name
    "export.col.mcc", // "MCC"
  ]),
  de: new Set([
    "app.name",
    "app.version",
    "common.ok",
    "pinpad.faq",
    "menu.support", // "Support"
    "main.support",
    "main.wallet", // "Wallet"
    "main.filter", // "Filter"
    "filter.title",
    "tx.status", // "Status"
    "detail.status",
    "approval.status",
    "field.optional", // "{label} (optional)"
    "create.confirmExtra", // "{amount}: {purpose}"
    "approval.decisionExtra", // "{description}"
    "budget.title", // "Budget"
    "detail.budget",
    "card.cvc",
    "secure.title", // "3-D Secure"
    "secure.pin",
    "install.androidTitle", // "Android (Chrome)"
    "approval.teams", // "Teams"
    "export.datev",
    "export.col.mcc",
  ]),
  es: new Set([
    "app.name",
    "app.version",
    "common.no",
    "create.confirmExtra",
    "approval.decisionExtra",
    "budget.total", // "Total {total}"
    "card.cvc",
    "secure.title", // "3-D Secure"
    "secure.pin",
    "install.androidTitle",
    "export.datev",
    "export.col.mcc",
    "export.word.no", // "no"
  ]),
};

const TRANSLATIONS: Record<string, Record<Key, string>> = { fr, de, es };
const NBSP = "\u00a0";

function placeholders(text: string): string[] {
  return [...new Set([...text.matchAll(/\{(\w+)(?:\}|, plural,)/g)].map((m) => m[1]))].sort();
}

for (const [lang, dict] of Object.entries(TRANSLATIONS)) {
  Deno.test(`[i18n] ${lang} has exactly the keys of en`, () => {
    assert.deepEqual(Object.keys(dict).sort(), Object.keys(en).sort());
  });

  Deno.test(`[i18n] every ${lang} value is translated (non-empty, not English unless allowed)`, () => {
    for (const [key, english] of Object.entries(en)) {
      const text = dict[key as Key];
      assert.equal(typeof text, "string", key);
      assert.ok(text.trim().length > 0, `${key} is empty`);
      if (SAME_AS_ENGLISH[lang].has(key)) {
        assert.equal(text, english, `${key} should stay as in English`);
      } else {
        assert.notEqual(text, english, `${key} is not translated`);
      }
    }
  });

  Deno.test(`[i18n] ${lang} keeps every placeholder of en, and adds none`, () => {
    for (const key of Object.keys(en) as Key[]) {
      assert.deepEqual(placeholders(dict[key]), placeholders(en[key]), key);
    }
  });

  Deno.test(`[i18n] ${lang} typography shared by all: …, no straight quotes, line breaks kept`, () => {
    for (const key of Object.keys(en) as Key[]) {
      const text = dict[key];
      if (en[key].includes("…")) assert.ok(text.includes("…"), `${key} lost its "…"`);
      assert.ok(!text.includes("..."), `${key} uses "..." instead of "…"`);
      assert.ok(!/['"]/.test(text), `${key} uses a straight quote or apostrophe`);
      assert.ok(!/^\s|\s$/.test(text), `${key} has leading or trailing whitespace`);
      assert.equal(text.split("\n").length, en[key].split("\n").length, `${key} line breaks`);
      // A question stays a question (the Spanish ¿ comes first, the ? still ends it).
      if (/\?$/.test(en[key])) assert.ok(/\?$/.test(text), `${key} is no longer a question`);
    }
  });
}

Deno.test("[i18n] fr typography: ’, no-break space before : ; ? !", () => {
  for (const key of Object.keys(en) as Key[]) {
    const french = fr[key];
    assert.ok(!/ [:;?!]/.test(french), `${key} has a plain space before : ; ? or !`);
    assert.ok(!/[^\s{][;?!]/u.test(french), `${key} lacks a no-break space before ; ? or !`);
  }
  assert.ok(fr["pinpad.help"].endsWith(`${NBSP}?`));
});

Deno.test("[i18n] de typography: no space before : ; ? !, „…“ quotes paired", () => {
  for (const key of Object.keys(en) as Key[]) {
    const german = de[key];
    assert.ok(!/\s[:;?!]/.test(german), `${key} has a space before : ; ? or !`);
    const open = [...german.matchAll(/„/g)].length;
    assert.equal(open, [...german.matchAll(/“/g)].length, `${key} has unpaired „…“`);
    assert.ok(!/[«»]/.test(german), `${key} uses French quotes`);
  }
  assert.equal(de["pinpad.help"], "Brauchen Sie Hilfe?");
});

Deno.test("[i18n] es typography: every ? and ! opened by ¿ and ¡, «…» quotes paired", () => {
  for (const key of Object.keys(en) as Key[]) {
    const spanish = es[key];
    const count = (re: RegExp) => [...spanish.matchAll(re)].length;
    assert.equal(count(/¿/g), count(/\?/g), `${key}: each question needs ¿…?`);
    assert.equal(count(/¡/g), count(/!/g), `${key}: each exclamation needs ¡…!`);
    // ¿ opens the question: it comes before its ?.
    if (spanish.includes("?")) assert.ok(spanish.indexOf("¿") < spanish.indexOf("?"), key);
    assert.equal(count(/«/g), count(/»/g), `${key} has unpaired «…»`);
    assert.ok(!/\s[:;?!]/.test(spanish), `${key} has a space before : ; ? or !`);
  }
  assert.equal(es["pinpad.help"], "¿Necesita ayuda?");
});

Deno.test("[i18n] spec wording in every language (the spec's 'secuity' typo fixed)", () => {
  assert.equal(fr["lost.noPrevious"], "Aucune activation précédente trouvée");
  assert.ok(fr["pin.repetition"].startsWith("Pour des raisons de sécurité, "));
  assert.ok(fr["pin.sequence"].startsWith("Pour des raisons de sécurité, "));
  assert.ok(fr["mail.activation.body"].startsWith("Bonjour {fname},\n\n"));
  assert.equal(de["lost.noPrevious"], "Keine frühere Aktivierung gefunden");
  assert.ok(de["pin.repetition"].startsWith("Aus Sicherheitsgründen "));
  assert.ok(de["pin.sequence"].startsWith("Aus Sicherheitsgründen "));
  assert.ok(de["mail.activation.body"].startsWith("Hallo {fname},\n\n"));
  assert.equal(es["lost.noPrevious"], "No se ha encontrado ninguna activación anterior");
  assert.ok(es["pin.repetition"].startsWith("Por motivos de seguridad, "));
  assert.ok(es["pin.sequence"].startsWith("Por motivos de seguridad, "));
  assert.ok(es["mail.activation.body"].startsWith("Hola, {fname}:\n\n"));
  for (const d of [en, fr, de, es]) {
    assert.ok(!/secuity/i.test(d["pin.repetition"] + d["pin.sequence"]));
  }
});

Deno.test("[i18n] format fills placeholders and leaves unknown ones visible", () => {
  assert.equal(format("Bonjour {name}", { name: "Ana" }), "Bonjour Ana");
  assert.equal(
    format(fr["pinpad.entered"], { count: 2, length: 6 }),
    `Chiffres saisis${NBSP}: 2 sur 6`,
  );
  assert.equal(format(de["pinpad.entered"], { count: 2, length: 6 }), "2 von 6 Ziffern eingegeben");
  assert.equal(format("{a} et {b}", { a: 1 }), "1 et {b}");
  assert.equal(format("{a} et {a}", { a: "x" }), "x et x");
  assert.equal(format("V {version}"), "V {version}");
  assert.equal(format("V {version}", { version: 0 }), "V 0");
  for (const d of [fr, de, es]) {
    const body = format(d["mail.activation.body"], {
      fname: "Ana",
      code: "12345",
      url: "https://example.test",
      expires: "2025-02-11 10:00 UTC",
    });
    assert.ok(!/\{\w+\}/.test(body), body);
    assert.ok(body.includes("12345") && body.includes("https://example.test"));
  }
});

Deno.test("[i18n] pickLocale and dictionary serve en, fr, de and es", async () => {
  assert.deepEqual([...LOCALES].sort(), ["de", "en", "es", "fr"]);
  assert.equal(pickLocale("fr-FR,fr;q=0.9"), "fr");
  assert.equal(pickLocale("de"), "de");
  assert.equal(pickLocale("es-419,es;q=0.9"), "es");
  assert.equal(pickLocale("it-IT,de;q=0.8"), "de");
  assert.equal(pickLocale("it"), "en");
  assert.equal(pickLocale(undefined, null, ""), "en");
  assert.equal(pickLocale("FR"), "fr");
  assert.equal(pickLocale("co", "__", "constructor"), "en");
  assert.equal(await dictionary("fr"), fr);
  assert.equal(await dictionary("fr-CA"), fr);
  assert.equal(await dictionary("de-AT"), de);
  assert.equal(await dictionary("es"), es);
  assert.equal(await dictionary("it"), en);
  assert.equal((await dictionary("fr"))["lost.noPrevious"], "Aucune activation précédente trouvée");
});

const ALL: Record<string, Record<Key, string>> = { en, fr, de, es };
const PLURAL = /\{(\w+), plural,/g;

Deno.test("[i18n] every plural key gives each form its language needs, for 0, 1, 2 and 5", () => {
  let checked = 0;
  for (const [lang, dict] of Object.entries(ALL)) {
    const rules = new Intl.PluralRules(lang);
    const categories = rules.resolvedOptions().pluralCategories;
    for (const [key, text] of Object.entries(dict)) {
      const names = [...text.matchAll(PLURAL)].map((m) => m[1]);
      if (!names.length) continue;
      for (const c of categories) {
        assert.ok(text.includes(` ${c} {`), `${lang} ${key} lacks the '${c}' form`);
      }
      for (const n of [0, 1, 2, 5]) {
        const params: Record<string, string | number> = { total: "€1.00" };
        // Other placeholders of the text ({first}, {last}…) get a plain word.
        for (const m of text.matchAll(/\{(\w+)\}/g)) params[m[1]] ??= "x";
        for (const name of names) params[name] = n;
        const out = format(text, params, lang);
        assert.ok(!/[{}#]/.test(out), `${lang} ${key} (${n}) left a mark: ${out}`);
        assert.ok(out.includes(String(n)), `${lang} ${key} (${n}) lost the number: ${out}`);
        checked++;
      }
    }
  }
  assert.ok(checked >= 4 * 4 * 5, `only ${checked} plural texts checked`);
});

Deno.test("[i18n] no '1 receipts': counted nouns follow the number", () => {
  assert.equal(format(en["tx.receipts"], { count: 1 }, "en"), "1 receipt");
  assert.equal(format(en["tx.receipts"], { count: 2 }, "en"), "2 receipts");
  assert.equal(format(en["tx.found"], { count: 1 }, "en"), "1 transaction found");
  assert.equal(format(de["tx.receipts"], { count: 1 }, "de"), "1 Beleg");
  assert.equal(format(de["tx.receipts"], { count: 5 }, "de"), "5 Belege");
  assert.equal(format(es["tx.found"], { count: 1 }, "es"), "1 transacción encontrada");
  assert.equal(format(fr["tx.receipts"], { count: 0 }, "fr"), "0 justificatif");
  assert.equal(
    format(fr["tx.receipts"], { count: 1_000_000 }, "fr"),
    "1\u202f000\u202f000 de justificatifs",
  );
  assert.equal(format(en["pin.attemptsLeft"], { count: 1 }, "en"), "Wrong PIN. 1 attempt left");
  // A count written before an English plural noun without a plural form is the bug itself.
  // (Limits such as {max} characters or a PIN's {length} are never one.)
  for (const [key, text] of Object.entries(en)) {
    assert.ok(
      !/\{(count|days)\} [a-z]+s\b/.test(text),
      `${key} counts a noun without a plural form`,
    );
  }
});

Deno.test("[i18n] format: an exact '=0' form wins, a missing category falls back to other", () => {
  const text = "{n, plural, =0 {none} one {# item} other {# items}} for {who}";
  assert.equal(format(text, { n: 0, who: "Ann" }, "en"), "none for Ann");
  assert.equal(format(text, { n: 1, who: "Ann" }, "en"), "1 item for Ann");
  assert.equal(format(text, { n: 1200, who: "Ann" }, "de"), "1.200 items for Ann");
  assert.equal(format(text, { who: "Ann" }, "en"), `${text.split(" for")[0]} for Ann`);
});

Deno.test("[i18n] a blocked card has one word in every language (spec §4 'blocked')", () => {
  // The state, its actions, their progress, notice and hint all say the spec's word; none
  // says "frozen" in any language.
  const WORD: Record<string, RegExp> = {
    en: /block/i,
    fr: /blo[cq]/i,
    de: /sperr/i,
    es: /bloque/i,
  };
  const keys: Key[] = [
    "card.state.Blocked",
    "card.freeze",
    "card.unfreeze",
    "card.freezing",
    "card.unfreezing",
    "card.frozenNotice",
    "card.freezeHint",
  ];
  for (const [lang, dict] of Object.entries({ en, ...TRANSLATIONS })) {
    for (const key of keys) {
      assert.match(dict[key], WORD[lang], `${lang} ${key}: "${dict[key]}"`);
      assert.doesNotMatch(
        dict[key],
        /free?z|froz|\bgel[ée]|d[ée]gel|congel|friert|gefror/i,
        `${lang} ${key}`,
      );
    }
  }
});

Deno.test("[i18n] the Options' version line says 'Version' once, then the version (no 'VersionV')", () => {
  const args = { version: "2.26.1126", date: "26-11-2026" };
  const want: Record<string, string> = {
    en: "Version 2.26.1126, released 26-11-2026",
    fr: "Version 2.26.1126, publiée le 26-11-2026",
    de: "Version 2.26.1126, veröffentlicht am 26-11-2026",
    es: "Versión 2.26.1126, publicada el 26-11-2026",
  };
  for (const [lang, dict] of Object.entries({ en, ...TRANSLATIONS })) {
    assert.equal(format(dict["options.version"], args), want[lang], lang);
  }
});

Deno.test("[i18n] 3-D Secure is spelled one way in every language (German compounds hyphen it)", () => {
  for (const [lang, dict] of Object.entries({ en, ...TRANSLATIONS })) {
    for (const [key, text] of Object.entries(dict)) {
      if (!/3.?d.?s/i.test(text)) continue;
      const rest = text.replace(/3-D(-| )Secure/g, "");
      assert.doesNotMatch(rest, /3.?d.?s/i, `${lang} ${key}: "${text}"`);
      if (lang !== "de") assert.ok(!text.includes("3-D-Secure"), `${lang} ${key}: "${text}"`);
    }
  }
  // The refused reason's abbreviation (spec §8 matches the issuer's '3Dsecure') shows the same.
  assert.equal(refusedAbbreviation("3Dsecure not enrolled/none"), "3-D Secure");
});

Deno.test("[i18n] a translation that changes nothing shown renders nothing again; one that changes a text, brings a key asked for or another language does", async () => {
  const { effect } = await import("@preact/signals-react");
  const ui = await import("../../client/i18n/index.ts");
  const key = (k: string) => k as Parameters<typeof ui.t>[0];
  let renders = 0;
  const stop = effect(() => {
    void ui.dictionary.value;
    renders++;
  });
  try {
    const faq = ui.t(key("pinpad.faq"));
    const base = { ...ui.dictionary.peek() };
    ui.applyTranslation({ ...base, "test.added": "Added" }, "en");
    assert.equal(renders, 1, "only keys added: no render");
    assert.equal(ui.t(key("test.added")), "Added");
    assert.equal(ui.t(key("test.late")), "", "not there yet");
    ui.applyTranslation({ ...base, "test.late": "Late" }, "en");
    assert.equal(renders, 2, "a key asked for before it came");
    assert.equal(ui.t(key("test.late")), "Late");
    ui.applyTranslation({ ...base, "pinpad.faq": `${faq}!` }, "en");
    assert.equal(renders, 3, "a text changed");
    ui.applyTranslation({ ...base, "pinpad.faq": `${faq}!` }, "fr");
    assert.equal(renders, 4, "another language");
    ui.applyTranslation({ ...base }, "en");
  } finally {
    stop();
  }
});
