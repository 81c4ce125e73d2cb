import assert from "node:assert/strict";
import { en } from "../../client/i18n/locales/en.ts";
import { fr } from "../../client/i18n/locales/fr.ts";
import { format } from "../../client/i18n/format.ts";
import { dictionary, pickLocale } from "../../server/i18n.ts";

/** Keys whose French text is rightly the same as the English one. */
const SAME_IN_FRENCH = new Set<string>([
  "app.name",
  "app.version",
  "pinpad.faq",
  "common.ok",
  "errors.title", // "Messages"
  "options.title", // "Options"
  "menu.options", // "Options"
  "options.version", // "Version"
  "menu.title", // "Menu"
  "main.transactions", // "Transactions"
  "card.state.Active", // "Active"
  "secure.title", // "3-D Secure"
  "receipts.note", // "Note"
]);

const NBSP = "\u00a0";

function placeholders(text: string): string[] {
  return [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))].sort();
}

Deno.test("[i18n] fr has exactly the keys of en", () => {
  assert.deepEqual(Object.keys(fr).sort(), Object.keys(en).sort());
});

Deno.test("[i18n] every fr value is translated (non-empty, not English unless allowed)", () => {
  for (const [key, english] of Object.entries(en)) {
    const french = fr[key as keyof typeof en];
    assert.equal(typeof french, "string", key);
    assert.ok(french.trim().length > 0, `${key} is empty`);
    if (SAME_IN_FRENCH.has(key)) {
      assert.equal(french, english, `${key} should stay as in English`);
    } else {
      assert.notEqual(french, english, `${key} is not translated`);
    }
  }
});

Deno.test("[i18n] fr keeps every placeholder of en, and adds none", () => {
  for (const key of Object.keys(en) as (keyof typeof en)[]) {
    assert.deepEqual(placeholders(fr[key]), placeholders(en[key]), key);
  }
});

Deno.test("[i18n] fr typography: …, ’, no-break space before : ; ? !, line breaks kept", () => {
  for (const key of Object.keys(en) as (keyof typeof en)[]) {
    const french = fr[key];
    if (en[key].includes("…")) assert.ok(french.includes("…"), `${key} lost its "…"`);
    assert.ok(!french.includes("..."), `${key} uses "..." instead of "…"`);
    assert.ok(!french.includes("'"), `${key} uses ' instead of ’`);
    assert.ok(!/ [:;?!]/.test(french), `${key} has a plain space before : ; ? or !`);
    assert.ok(!/[^\s{][;?!]/u.test(french), `${key} lacks a no-break space before ; ? or !`);
    assert.ok(!/^\s|\s$/.test(french), `${key} has leading or trailing whitespace`);
    assert.equal(french.split("\n").length, en[key].split("\n").length, `${key} line breaks`);
  }
  assert.ok(fr["pinpad.help"].endsWith(`${NBSP}?`));
});

Deno.test("[i18n] fr spec wording", () => {
  assert.equal(fr["lost.noPrevious"], "Aucune activation précédente trouvée");
  assert.ok(fr["pin.repetition"].startsWith("Pour des raisons de sécurité, "));
  assert.ok(fr["pin.sequence"].startsWith("Pour des raisons de sécurité, "));
  assert.ok(fr["mail.activation.body"].startsWith("Bonjour {fname},\n\n"));
});

Deno.test("[i18n] format fills placeholders and leaves unknown ones visible", () => {
  assert.equal(format("Bonjour {name}", { name: "Ana" }), "Bonjour Ana");
  assert.equal(
    format(fr["pinpad.entered"], { count: 2, length: 6 }),
    `Chiffres saisis${NBSP}: 2 sur 6`,
  );
  assert.equal(format("{a} et {b}", { a: 1 }), "1 et {b}");
  assert.equal(format("{a} et {a}", { a: "x" }), "x et x");
  assert.equal(format("V {version}"), "V {version}");
  assert.equal(format("V {version}", { version: 0 }), "V 0");
  const body = format(fr["mail.activation.body"], {
    fname: "Ana",
    code: "12345",
    url: "https://example.test",
    expires: "2025-02-11 10:00 UTC",
  });
  assert.ok(!/\{\w+\}/.test(body), body);
  assert.ok(body.includes("12345") && body.includes("https://example.test"));
});

Deno.test("[i18n] pickLocale and dictionary", async () => {
  assert.equal(pickLocale("fr-FR,fr;q=0.9"), "fr");
  assert.equal(pickLocale("de"), "en");
  assert.equal(pickLocale("de-DE,fr;q=0.8"), "fr");
  assert.equal(pickLocale(undefined, null, ""), "en");
  assert.equal(pickLocale("FR"), "fr");
  assert.equal(await dictionary("fr"), fr);
  assert.equal(await dictionary("fr-CA"), fr);
  assert.equal(await dictionary("de"), en);
  assert.equal((await dictionary("fr"))["lost.noPrevious"], "Aucune activation précédente trouvée");
});
