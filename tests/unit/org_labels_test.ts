/**
 * The organisation's words in several languages (server/org/labels.ts, spec §3 labels and
 * descriptions): the organisation file takes a plain text or one text a language with English
 * required, `deno task import` names the path of a bad one, and a label is read in a language
 * with English as the fallback.
 */
import assert from "node:assert/strict";
import demo from "../../server/org/demo_org.json" with { type: "json" };
import { parseOrg } from "../../server/org/parse.ts";
import { labelIn, labelMap } from "../../server/org/labels.ts";
import { pickLabel } from "../../client/shared/org_words.ts";

// deno-lint-ignore no-explicit-any
type Json = any;
const copy = (): Json => structuredClone(demo);

function rejects(file: unknown, ...patterns: RegExp[]): void {
  assert.throws(() => parseOrg(file), (e: unknown) => {
    assert.ok(e instanceof Error);
    for (const p of patterns) assert.match(e.message, p);
    return true;
  });
}

Deno.test("[org words] plain texts stay valid and multilingual labels are kept per language", () => {
  const file = copy();
  file.receiptTypes[0].label = "  Invoice  ";
  file.vatCodes[0].description = "FR standard 20%";
  file.secretQuestions[0].text = "In which city were you born?";
  file.costCenters[0].label = { en: "Sales", de: "Vertrieb" };
  const org = parseOrg(file);
  assert.equal(org.receiptTypes[0].label, "Invoice");
  assert.equal(org.vatCodes[0].description, "FR standard 20%");
  assert.deepEqual(org.costCenters[0].label, { en: "Sales", de: "Vertrieb" });
  assert.equal(labelIn(org.costCenters[0].label, "de"), "Vertrieb");
  assert.equal(labelIn(org.costCenters[0].label, "fr"), "Sales", "English is the fallback");
  assert.equal(labelIn(org.secretQuestions[0].text, "es"), "In which city were you born?");
  assert.equal(labelMap(org.receiptTypes[0].label), undefined);
  assert.equal(pickLabel("Sales", { en: "Sales", de: "Vertrieb" }, "de"), "Vertrieb");
  assert.equal(pickLabel("Ventes", { en: "Sales" }, "es"), "Sales");
  assert.equal(pickLabel("Sales", undefined, "de"), "Sales");
});

Deno.test("[org words] the demo organisation speaks en, fr, de and es in every label", () => {
  const org = parseOrg(copy());
  const labels = [
    ...org.requestTypes.map((t) => t.description),
    ...org.vatCodes.map((v) => v.description),
    ...[org.receiptTypes, org.accountingCodes, org.costCenters, org.ledgers, org.projectCodes]
      .flat().map((x) => x.label),
    ...org.accounts.map((a) => a.label),
    ...org.secretQuestions.map((q) => q.text),
  ];
  assert.ok(labels.length > 40);
  for (const l of labels) {
    assert.equal(typeof l, "object", `${JSON.stringify(l)} is not multilingual`);
    assert.deepEqual(Object.keys(l).sort(), ["de", "en", "es", "fr"]);
  }
  const travel = org.requestTypes.find((t) => t.oid === "type-travel")!;
  assert.equal(labelIn(travel.description, "de"), "Reise");
});

Deno.test("[org words] a bad label is refused with its path and what to fix", () => {
  const noEnglish = copy();
  noEnglish.receiptTypes[1].label = { fr: "Ticket de caisse", de: "Kassenbon" };
  rejects(noEnglish, /receiptTypes\[1\]\.label: "en" is required/);
  const unknown = copy();
  unknown.requestTypes[0].description = { en: "Travel", it: "Viaggio" };
  rejects(
    unknown,
    /requestTypes\[0\]\.description\.it: unknown language "it" \(known: en, fr, de, es\)/,
  );
  const empty = copy();
  empty.vatCodes[2].description = { en: "FR reduced 5.5%", de: "  " };
  rejects(empty, /vatCodes\[2\]\.description\.de: must be a non-empty text/);
  const notText = copy();
  notText.accountingCodes[0].label = 12;
  rejects(notText, /accountingCodes\[0\]\.label: must be a text, or one text a language/);
  const blank = copy();
  blank.costCenters[0].label = "";
  rejects(blank, /costCenters\[0\]\.label: must not be empty/);
  const missing = copy();
  delete missing.ledgers[0].label;
  rejects(missing, /ledgers\[0\]\.label: required field is missing/);
  const question = copy();
  question.secretQuestions[0].text = { en: "City?", fr: 3 };
  rejects(question, /secretQuestions\[0\]\.text\.fr: must be a non-empty text/);
});

Deno.test("[org words] deno task import refuses a bad label and names its path", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = copy();
    file.vatCodes[0].description = { en: "FR standard 20%", xx: "?" };
    await Deno.writeTextFile(`${dir}/org.json`, JSON.stringify(file));
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "server/app/import_cli.ts", `${dir}/org.json`],
      env: { KV_PATH: `${dir}/qcard.kv` },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const err = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 1, err);
    assert.match(err, /Invalid organisation file/);
    assert.match(err, /vatCodes\[0\]\.description\.xx: unknown language "xx"/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
