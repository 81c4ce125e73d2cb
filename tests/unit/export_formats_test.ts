/**
 * The accounting export's pure parts (server/export/): the VAT split, the CSV writer's quoting
 * and marks by language, the DATEV writer's encoding, text fields, fiscal year and bookings.
 */
import assert from "node:assert/strict";
import { csvField, csvRows, csvStyle } from "../../server/export/csv.ts";
import {
  cp1252,
  DATEV_DEFAULTS,
  datevRows,
  datevText,
  fiscalYearStart,
} from "../../server/export/datev.ts";
import { type ExportLine, splitVat, stampOf } from "../../server/export/rows.ts";

const code = (percentage: number, oid = `v${percentage}`) => ({
  oid,
  percentage,
  countryid: "DE",
  description: `${percentage} %`,
  datevKey: percentage === 19 ? "9" : undefined,
});

Deno.test("[export] VAT split: each line grossed up at its rate, the rest without VAT, a rounding cent to the last line", () => {
  // 119.00 at 19 %: VAT 19.00, net 100.00, nothing left.
  assert.deepEqual(
    splitVat(11900, [{ code: code(19), vat: 1900 }]).map((l) => [l.gross, l.net, l.vat]),
    [[
      11900,
      10000,
      1900,
    ]],
  );
  // Two rates and a part without VAT (a tip): 107 + 119 + 10.
  const two = splitVat(23600, [{ code: code(7), vat: 700 }, { code: code(19), vat: 1900 }]);
  assert.deepEqual(two.map((l) => [l.gross, l.vat, l.code?.percentage ?? null]), [
    [10700, 700, 7],
    [11900, 1900, 19],
    [1000, 0, null],
  ]);
  // 9.99 at 20 %: VAT 1.67 grosses up to 10.02; the 3 cents are rounding, kept on the line.
  const r = splitVat(999, [{ code: code(20), vat: 167 }]);
  assert.equal(r.length, 1);
  assert.equal(r[0].gross, 999);
  assert.equal(r[0].net + r[0].vat, 999);
  // No VAT at all: one line, the whole amount.
  assert.deepEqual(splitVat(5000, []).map((l) => [l.gross, l.net, l.vat]), [[5000, 5000, 0]]);
  // Every split sums to its amount.
  for (const amount of [1, 99, 1234, 100000]) {
    const lines = splitVat(amount, [{ code: code(19), vat: Math.round(amount * 19 / 119) }]);
    assert.equal(lines.reduce((s, l) => s + l.gross, 0), amount);
  }
  assert.notEqual(stampOf("a"), stampOf("b"));
  assert.equal(stampOf("same"), stampOf("same"));
});

Deno.test("[export] CSV: separator and decimal mark by language, RFC 4180 quoting, formulas kept as text", () => {
  const en = csvStyle("en"), fr = csvStyle("fr"), de = csvStyle("de"), es = csvStyle("es");
  assert.deepEqual(en, { separator: ",", decimal: "." });
  for (const s of [fr, de, es]) assert.deepEqual(s, { separator: ";", decimal: "," });
  assert.equal(csvField("plain", en), "plain");
  assert.equal(csvField("a, b", en), '"a, b"');
  assert.equal(csvField("a, b", fr), "a, b");
  assert.equal(csvField("a; b", fr), '"a; b"');
  assert.equal(csvField('say "hi"', en), '"say ""hi"""');
  assert.equal(csvField("two\nlines", en), '"two\nlines"');
  assert.equal(csvField("=HYPERLINK(1)", en), "'=HYPERLINK(1)");
  assert.equal(csvField("-12.50", en), "-12.50", "a negative amount stays a number");
});

function line(over: Partial<ExportLine> = {}): ExportLine {
  return {
    txOid: "3cbd40f5-1785-4f7d-94d2-7065d8fef21d",
    line: 1,
    booked: "2026-11-13",
    purchased: "2026-11-12",
    captured: "2026-11-13",
    holder: "Jürgen Groß",
    holderEmail: "j@x.example",
    requestId: "R000003",
    purpose: 'Trip "Q4"',
    merchant: "Hôtel Bellecour",
    merchantCity: "Lyon",
    merchantCountry: "FR",
    mcc: "7011",
    type: "Purchase",
    amount: 11900,
    currency: "EUR",
    originalAmount: 11900,
    originalCurrency: "EUR",
    fxRate: null,
    amountAuthorized: 11900,
    amountCaptured: 11900,
    amountRefunded: 0,
    account: { oid: "acc-eur", value: "OPS-EUR", label: "Ops", currency: "EUR" },
    accountAmount: 11900,
    accountRate: "1",
    gross: 11900,
    net: 10000,
    vat: 1900,
    vatCode: code(19),
    accountGross: 11900,
    costCenter: "CC-100",
    gl: "6251",
    project: "P-EXP",
    accountingCode: "",
    receiptCount: 1,
    receipts: ["receipts/Jurgen-Gross/2026-11-13_R000003_Hotel-Bellecour_3cbd40f5.pdf"],
    noReceipt: "",
    noReceiptState: "",
    vatFlag: "yes",
    vatAccepted: true,
    state: "new",
    exportedAt: "",
    ...over,
  };
}

Deno.test("[export] CSV rows: amounts with the language's decimal mark, words translated", () => {
  const tr = (k: string) => `<${k}>`;
  const en = csvRows([line()], csvStyle("en"), tr as never);
  assert.ok(en.endsWith("\r\n"));
  assert.match(en, /,119\.00,EUR,/);
  assert.match(en, /,"Trip ""Q4""",/);
  const de = csvRows([line()], csvStyle("de"), tr as never);
  assert.match(de, /;119,00;EUR;/);
  assert.match(de, /;19;/, "the rate");
  assert.match(de, /<export\.word\.Purchase>/);
});

Deno.test("[export] DATEV: Windows-1252, quoted text fields, fiscal year, Soll and Haben, tax key only with VAT", () => {
  assert.deepEqual([...cp1252("Groß €ü")], [0x47, 0x72, 0x6f, 0xdf, 0x20, 0x80, 0xfc]);
  assert.deepEqual([...cp1252("→")], [0x3f], "what it cannot hold is '?'");
  assert.equal(datevText('Trip "Q4"\nnext', 60), '"Trip ""Q4"" next"');
  assert.equal(datevText("x".repeat(70), 60), `"${"x".repeat(60)}"`);
  assert.equal(fiscalYearStart("2026-11-13", 1), "2026-01-01");
  assert.equal(fiscalYearStart("2026-03-13", 7), "2025-07-01");
  assert.equal(fiscalYearStart("2026-07-01", 7), "2026-07-01");

  const o = { settings: DATEV_DEFAULTS, currency: "EUR", inBase: () => 0 };
  const [s] = datevRows([line()], o).trimEnd().split("\r\n").map((l) => l.split(";"));
  assert.equal(s.length, 125);
  assert.deepEqual(s.slice(0, 12), [
    "119,00",
    '"S"',
    '"EUR"',
    "",
    "",
    "",
    "6251",
    "1360",
    '"9"',
    "1311",
    '"R000003"',
    '"3cbd40f51785"',
  ]);
  assert.equal(s[36], '"CC100"', "KOST1: letters, digits, _ and space only");
  // Steuersatz only goes with tax keys that choose a rate (DATEV: e.g. 100, 400): the key says it.
  assert.equal(s[118], "", "Steuersatz");
  // A merchant's credit: Haben; a line without VAT: no tax key; zero lines left out.
  const credit = datevRows([
    line({ gross: -1000, vat: 0, vatCode: null, line: 0 }),
    line({ gross: 0 }),
  ], o);
  const rows = credit.trimEnd().split("\r\n").map((l) => l.split(";"));
  assert.equal(rows.length, 1);
  assert.deepEqual(rows[0].slice(0, 3), ["10,00", '"H"', '"EUR"']);
  assert.equal(rows[0][8], "");
  // Another currency: booked in the file's, the card amount kept in Zusatzinformation.
  const gbp = datevRows([line({ currency: "GBP", gross: 2500, vat: 0, vatCode: null })], {
    ...o,
    inBase: () => 2921,
  }).split(";");
  assert.equal(gbp[0], "29,21");
  assert.equal(gbp[47], '"Kartenbetrag"');
  assert.equal(gbp[48], '"25,00 GBP"');
});
