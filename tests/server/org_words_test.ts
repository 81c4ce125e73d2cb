/**
 * The organisation's words in the caller's language (spec §3 labels and descriptions, §7
 * lookups; server/org/labels.ts): the spec's plain fields answer in the language the app
 * shows (Accept-Language, else the user's), with English when the organisation gave none in
 * it; the words of every language ride along for the client's switch (client/shared/org_words.ts);
 * an organisation stored with plain texts keeps answering them.
 */
import assert from "node:assert/strict";
import { DEMO, type TestApi, withApp } from "../helpers.ts";
import { assertOk, getE, type Headers, login, postE } from "./api.ts";

type Item = Record<string, unknown>;
const list = async (api: TestApi, h: Headers, path: string, field: string) => {
  const r = await getE(api, h, path);
  assertOk(r);
  return r.json[field] as Item[];
};
const de = (h: Headers): Headers => ({ ...h, "accept-language": "de-AT,de;q=0.9,en;q=0.5" });

Deno.test(
  "[org words] lookups answer in the language asked, with every language alongside",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const types = await list(api, de(h), "pwatypes", "types");
    const travel = types.find((t) => t.oid === "type-travel")!;
    assert.equal(travel.description, "Reise");
    assert.deepEqual(travel.descriptions, {
      en: "Travel",
      fr: "Déplacement",
      de: "Reise",
      es: "Viaje",
    });
    const vat = await list(api, de(h), "pwavatcodes?countryid=DE", "vatcodes");
    assert.deepEqual(vat.map((v) => v.description).sort(), [
      "DE Regelsatz 19\u00a0%",
      "DE ermäßigt 7\u00a0%",
    ]);
    const receipts = await list(api, de(h), "pwareceipttypes", "receipttypes");
    assert.equal(receipts.find((r) => r.value === "rt-hotel")!.label, "Hotelrechnung");
    const acc = await list(
      api,
      { ...h, "accept-language": "es" },
      "pwaaccountingcodes",
      "accountingcodes",
    );
    assert.equal(acc.find((a) => a.value === "ac-meals")!.label, "Comidas");
    const ccs = await list(api, { ...h, "accept-language": "fr" }, "pwaccodes", "costcenters");
    assert.equal(ccs.find((c) => c.oid === "cc-sales")!.label, "Ventes");
    const gls = await list(api, de(h), "pwaledgers?ccoid=cc-admin", "ledgers");
    assert.equal(gls.find((g) => g.oid === "gl-office")!.label, "Büromaterial");
    const accounts = await list(api, de(h), "pwaaccounts", "accounts");
    assert.equal(accounts.find((a) => a.oid === "acc-eur")!.label, "Betriebskonto (EUR)");
    // Without Accept-Language: the user's language (English for employee@).
    const plain = await list(api, h, "pwavatcodes?countryid=DE", "vatcodes");
    assert.ok(plain.some((v) => v.description === "DE standard 19%"));
  }),
);

Deno.test(
  "[org words] a language the organisation left out falls back to English",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const { kv } = api.deps.store;
    const hotel = { value: "rt-hotel", label: { en: "Hotel bill", fr: "Note d’hôtel" } };
    assert.ok((await kv.atomic().set(["receipttype", "rt-hotel"], hotel).commit()).ok);
    const receipts = await list(api, de(h), "pwareceipttypes", "receipttypes");
    const row = receipts.find((r) => r.value === "rt-hotel")!;
    assert.equal(row.label, "Hotel bill");
    assert.deepEqual(row.labels, { en: "Hotel bill", fr: "Note d’hôtel" });
  }),
);

Deno.test(
  "[org words] an organisation stored with plain texts keeps answering them",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const { kv } = api.deps.store;
    // What the importer stored before labels could be multilingual.
    const old = { oid: "vat-de-7", description: "DE reduced 7%", percentage: 7, countryid: "DE" };
    const cc = (await api.deps.store.org.get<Item>("costcenter", "cc-it"))!;
    const op = kv.atomic().set(["vatcode", "vat-de-7"], old)
      .set(["costcenter", "cc-it"], { ...cc, label: "IT" });
    assert.ok((await op.commit()).ok);
    const vat = await list(api, de(h), "pwavatcodes?countryid=DE", "vatcodes");
    const seven = vat.find((v) => v.oid === "vat-de-7")!;
    assert.equal(seven.description, "DE reduced 7%");
    assert.equal("descriptions" in seven, false);
    const ccs = await list(api, de(h), "pwaccodes", "costcenters");
    assert.deepEqual(ccs.find((c) => c.oid === "cc-it"), {
      oid: "cc-it",
      value: "CC-300",
      label: "IT",
    });
  }),
);

Deno.test(
  "[org words] request and approval details name the type in the reader's language",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const created = await postE(api, de(h), "pwaexpenserequestcreate", {
      expenseRequest: {
        typeOid: "type-travel",
        amount: 120,
        purpose: "Zug nach Linz",
        costCenterOid: "cc-sales",
        GLOid: "gl-travel",
        projectOid: "prj-crm",
      },
    });
    assertOk(created);
    const entity = created.json.expenseRequest as { subType: Item; oid: string };
    assert.equal(entity.subType.description, "Reise");
    // The secret question of the lost-activation flow follows Accept-Language too.
    const qs = await getE(api, { ...h, "accept-language": "es" }, "pwasecretquestions");
    assertOk(qs);
    const birth = (qs.json.questions as Item[]).find((q) => q.id === "q-birth-city")!;
    assert.equal(birth.text, "¿En qué ciudad nació?");
  }),
);
