/**
 * The organisation's words on records (spec §3 cost center, GL and project; server/org/labels.ts
 * codesIn): a request created in English keeps every language's words of its codes and shows
 * them in the reader's language — its list row, its detail and its card — in German and in
 * Spanish, as the request type already is; a record stored before those words were kept still
 * shows the words it was written with.
 */
import assert from "node:assert/strict";
import { DEMO, type TestApi, withApp } from "../helpers.ts";
import { assertOk, getE, type Headers, login, postE } from "./api.ts";
import { defineSecure } from "./purchase_helpers.ts";
import { recordDecision } from "../../server/domain/requests.ts";
import { details, rowOf } from "./approvals_fixture.ts";

type Item = Record<string, unknown>;
const inLang = (h: Headers, lang: string): Headers => ({ ...h, "accept-language": lang });

const TRAVEL = {
  typeOid: "type-travel",
  amount: 120,
  purpose: "Train to Lyon",
  costCenterOid: "cc-sales",
  GLOid: "gl-travel",
  projectOid: "prj-crm",
};

/** A request created by an English reader: its oid. */
async function createdInEnglish(api: TestApi, h: Headers): Promise<string> {
  const created = await postE(api, inLang(h, "en"), "pwaexpenserequestcreate", {
    expenseRequest: TRAVEL,
  });
  assertOk(created);
  const e = created.json.expenseRequest as Item;
  assert.equal(e.costCenter, "Sales");
  assert.equal(e.GLCode, "Travel and accommodation");
  assert.equal(e.projectCode, "CRM rollout");
  return e.oid as string;
}

async function row(api: TestApi, h: Headers, oid: string): Promise<Item> {
  const r = await getE(api, h, "pwalists");
  assertOk(r);
  const rows = (r.json.expenses as { expenseslist: Item[] }).expenseslist;
  return rows.find((x) => x.oid === oid)!;
}

async function detail(api: TestApi, h: Headers, oid: string): Promise<Item> {
  const r = await getE(api, h, `pwaexpenseentity?record=${oid}`);
  assertOk(r);
  return r.json.expenseRequest as Item;
}

const codes = (x: Item) => [x.costCenter, x.GLCode, x.projectCode];

Deno.test(
  "[org labels] a request created in English reads in German: row, detail and card",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const oid = await createdInEnglish(api, h);
    const german = ["Vertrieb", "Reisen und Unterkunft", "CRM-Einführung"];
    assert.deepEqual(codes(await row(api, inLang(h, "de-DE,de;q=0.9"), oid)), german);
    const d = await detail(api, inLang(h, "de"), oid);
    assert.deepEqual(codes(d), german);
    assert.equal((d.subType as Item).description, "Reise");
    // The English reader still reads English, from the same stored record.
    assert.deepEqual(codes(await row(api, inLang(h, "en"), oid)), [
      "Sales",
      "Travel and accommodation",
      "CRM rollout",
    ]);

    // Its card, for a user whose language is German (the card answers in the user's).
    await defineSecure(api, h);
    assertOk(await postE(api, h, "pwasubmit", { record: oid }));
    const [a] = await api.deps.store.approvals.byRequest(oid);
    assert.equal((await recordDecision(api.deps, a.oid, "accepted"))?.status, "accepted");
    // Options → Deutsch: pwatranslation records the user's language.
    assertOk(await getE(api, h, "pwatranslation?locale=de"));
    const g = await postE(api, h, "pwanewqcard", { oid });
    assertOk(g);
    assert.deepEqual(codes(g.json.card as Item), german);
    const c = await getE(api, h, `pwaexpensecard?oid=${oid}`);
    assertOk(c);
    assert.deepEqual(codes(c.json.card as Item), german);
  }),
);

Deno.test(
  "[org labels] a request created in English reads in Spanish; a language left out falls back to English",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const oid = await createdInEnglish(api, h);
    const spanish = ["Ventas", "Viajes y alojamiento", "Implantación del CRM"];
    assert.deepEqual(codes(await row(api, inLang(h, "es"), oid)), spanish);
    assert.deepEqual(codes(await detail(api, inLang(h, "es-ES"), oid)), spanish);
    // Edited to codes of another cost center: the new codes' words, in every language.
    const edit = await postE(api, inLang(h, "es"), "pwamodify", {
      record: { oid, ...TRAVEL, costCenterOid: "cc-admin", GLOid: "gl-office", projectOid: null },
    });
    assertOk(edit);
    assert.deepEqual(codes(edit.json.expenseRequest as Item), [
      "Administración",
      "Material de oficina",
      "",
    ]);
    // A language the organisation gave no words in reads English ("it" is not offered).
    assert.deepEqual(codes(await row(api, inLang(h, "it"), oid)), [
      "Administration",
      "Office supplies",
      "",
    ]);
  }),
);

Deno.test(
  "[org labels] a request stored before every language's words were kept shows its own words",
  withApp(async (api) => {
    const { h, oid: userOid } = await login(api, DEMO.employee);
    const oid = await createdInEnglish(api, h);
    const { requests, kv } = api.deps.store;
    const entry = await requests.get(userOid, oid);
    const old = { ...entry.value! };
    delete old.codeWords;
    assert.ok((await requests.put(kv.atomic().check(entry), old).commit()).ok);
    const english = ["Sales", "Travel and accommodation", "CRM rollout"];
    assert.deepEqual(codes(await row(api, inLang(h, "de"), oid)), english);
    assert.deepEqual(codes(await detail(api, inLang(h, "es"), oid)), english);
  }),
);

Deno.test(
  "[org labels] the approver reads an English-created request's codes in the approver's language: list row and detail",
  withApp(async (api) => {
    const { h } = await login(api, DEMO.employee);
    const oid = await createdInEnglish(api, h);
    await defineSecure(api, h);
    assertOk(await postE(api, h, "pwasubmit", { record: oid }));
    const [a] = await api.deps.store.approvals.byRequest(oid);
    const approver = await login(api, DEMO.approver);
    // Options → Deutsch: the approver's language is German.
    assertOk(await getE(api, approver.h, "pwatranslation?locale=de"));
    const german = ["Vertrieb", "Reisen und Unterkunft", "CRM-Einführung"];
    assert.deepEqual(codes((await rowOf(api, approver.h, a.oid))! as unknown as Item), german);
    assert.deepEqual(codes((await details(api, approver.h, a.oid)) as unknown as Item), german);
  }),
);
