import assert from "node:assert/strict";
import {
  calendarWords,
  dayNumber,
  formatDateTime,
  formatDay,
  formatMoney,
  formatNumber,
  inputNumber,
  regionalLocale,
  zoneOf,
} from "../../client/shared/intl.ts";
import { groupTransactions, txGroup } from "../../client/lib/transaction_view.ts";
import type { TransactionRow } from "../../client/shared/contract/transactions.ts";

/** '_' stands for a no-break space (U+00A0), '~' for a narrow no-break space (U+202F). */
const sp = (s: string) => s.replace(/_/g, "\u00a0").replace(/~/g, "\u202f");

const LOCALES = ["en-GB", "en-US", "fr-FR", "de-DE", "es-ES"] as const;
type Loc = typeof LOCALES[number];
const each = (want: Record<Loc, string>, got: (l: Loc) => string) => {
  for (const l of LOCALES) assert.equal(got(l), sp(want[l]), l);
};

Deno.test("[intl] amounts in EUR, GBP, USD, JPY and PLN follow each locale", () => {
  const cases: Record<string, Record<Loc, string>> = {
    EUR: {
      "en-GB": "€1,234.50",
      "en-US": "€1,234.50",
      "fr-FR": "1~234,50_€",
      "de-DE": "1.234,50_€",
      "es-ES": "1234,50_€",
    },
    GBP: {
      "en-GB": "£1,234.50",
      "en-US": "£1,234.50",
      "fr-FR": "1~234,50_£",
      "de-DE": "1.234,50_£",
      "es-ES": "1234,50_£",
    },
    USD: {
      "en-GB": "$1,234.50",
      "en-US": "$1,234.50",
      "fr-FR": "1~234,50_$",
      "de-DE": "1.234,50_$",
      "es-ES": "1234,50_$",
    },
    // JPY has no minor unit (ISO 4217): the spec's '1.2-2' is for two-decimal currencies.
    JPY: {
      "en-GB": "¥1,235",
      "en-US": "¥1,235",
      "fr-FR": "1~235_¥",
      "de-DE": "1.235_¥",
      "es-ES": "1235_¥",
    },
    PLN: {
      "en-GB": "zł_1,234.50",
      "en-US": "zł_1,234.50",
      "fr-FR": "1~234,50_zł",
      "de-DE": "1.234,50_zł",
      "es-ES": "1234,50_zł",
    },
  };
  for (const [currency, want] of Object.entries(cases)) {
    each(want, (l) => formatMoney(1234.5, currency, l));
  }
});

Deno.test("[intl] large amounts are grouped by each locale's rule, '1.2-2' kept", () => {
  each({
    "en-GB": "€1,234,567.89",
    "en-US": "€1,234,567.89",
    "fr-FR": "1~234~567,89_€",
    "de-DE": "1.234.567,89_€",
    "es-ES": "1.234.567,89_€",
  }, (l) => formatMoney(1234567.89, "EUR", l));
  each({
    "en-GB": "€10,000.01",
    "en-US": "€10,000.01",
    "fr-FR": "10~000,01_€",
    "de-DE": "10.000,01_€",
    "es-ES": "10.000,01_€",
  }, (l) => formatMoney(10000.01, "EUR", l));
  each({
    "en-GB": "£5.00",
    "en-US": "£5.00",
    "fr-FR": "5,00_£",
    "de-DE": "5,00_£",
    "es-ES": "5,00_£",
  }, (l) => formatMoney(5, "GBP", l));
  each({
    "en-GB": "¥1,234,567",
    "en-US": "¥1,234,567",
    "fr-FR": "1~234~567_¥",
    "de-DE": "1.234.567_¥",
    "es-ES": "1.234.567_¥",
  }, (l) => formatMoney(1234567, "JPY", l));
});

Deno.test("[intl] the spec's symbols are the fallback where Intl only knows the code", () => {
  assert.equal(formatMoney(5, "RSD", "en-GB"), sp("дин._5.00"));
  assert.equal(formatMoney(5, "QAR", "de-DE"), sp("5,00_QR"));
  assert.equal(formatMoney(5, "AED", "fr-FR"), sp("5,00_د.إ"));
  // Unknown to both: the code; refused by Intl: the number, then the code.
  assert.equal(formatMoney(5, "XYZ", "de-DE"), sp("5,00_XYZ"));
  assert.equal(formatMoney(5, "EURO", "en-US"), "5.00 EURO");
  assert.equal(formatMoney(5, null, "de-DE"), sp("5,00_€"));
  assert.equal(formatMoney(-12.5, "eur", "de-DE"), sp("-12,50_€"));
});

Deno.test("[intl] the spec's digit info sets minimum and maximum fraction digits", () => {
  assert.equal(formatNumber(5, "2.0-0", "de-DE"), "05");
  assert.equal(formatNumber(1234.5, "1.2-2", "de-DE"), "1.234,50");
  assert.equal(formatNumber(1234.5, "1.0-1", "fr-FR"), sp("1~234,5"));
  assert.equal(formatNumber(9.999, "1.2-2", "en-US"), "10.00");
  assert.equal(formatMoney(1.5, "EUR", "en-GB", "1.0-2"), "€1.5");
  assert.throws(() => formatNumber(1, "x"), /bad digit info/);
  assert.equal(inputNumber(1234.5, 2, "de-DE"), "1234,50");
  assert.equal(inputNumber(1234.5, 2, "en-GB"), "1234.50");
});

Deno.test("[intl] calendar days are shown in each locale's order, never moved by a zone", () => {
  each({
    "en-GB": "17/11/2026",
    "en-US": "11/17/2026",
    "fr-FR": "17/11/2026",
    "de-DE": "17.11.2026",
    "es-ES": "17/11/2026",
  }, (l) => formatDay("2026-11-17", l));
  assert.equal(formatDay("2026-11-17T23:30:00Z", "de-DE"), "17.11.2026");
  assert.equal(formatDay(Date.UTC(2026, 10, 16, 23, 30), "de-DE", "Europe/Berlin"), "17.11.2026");
  assert.equal(formatDay("not a day", "de-DE"), "");
});

const BERLIN = "Europe/Berlin";
const at = (iso: string) => Date.parse(iso);

Deno.test("[intl] times across midnight are shown on the local day, in the language's order", () => {
  const t = at("2026-11-16T23:30:00Z"); // 00:30 on the 17th in Berlin
  each({
    "en-GB": "17/11, 00:30",
    "en-US": "11/17, 00:30",
    "fr-FR": "17/11 00:30",
    "de-DE": "17.11., 00:30",
    "es-ES": "17/11, 00:30",
  }, (l) => formatDateTime(t, l, BERLIN, BERLIN));
  // spec §9's UTC, chosen in Options: the zone is named since it is not the device's.
  each({
    "en-GB": "16/11, 23:30 UTC",
    "en-US": "11/16, 23:30 UTC",
    "fr-FR": "16/11 23:30 UTC",
    "de-DE": "16.11., 23:30 UTC",
    "es-ES": "16/11, 23:30 UTC",
  }, (l) => formatDateTime(t, l, "UTC", BERLIN));
  // UTC on a device that runs in UTC: nothing to name.
  assert.equal(formatDateTime(t, "de-DE", "UTC", "UTC"), "16.11., 23:30");
  assert.equal(formatDateTime(NaN, "de-DE"), "");
});

Deno.test("[intl] times across a DST change keep the wall clock of each side", () => {
  // Berlin springs forward at 01:00 UTC on 2026-03-29 (02:00 CET → 03:00 CEST).
  each({
    "en-GB": "29/03, 01:30",
    "en-US": "03/29, 01:30",
    "fr-FR": "29/03 01:30",
    "de-DE": "29.03., 01:30",
    "es-ES": "29/3, 01:30",
  }, (l) => formatDateTime(at("2026-03-29T00:30:00Z"), l, BERLIN, BERLIN));
  each({
    "en-GB": "29/03, 03:30",
    "en-US": "03/29, 03:30",
    "fr-FR": "29/03 03:30",
    "de-DE": "29.03., 03:30",
    "es-ES": "29/3, 03:30",
  }, (l) => formatDateTime(at("2026-03-29T01:30:00Z"), l, BERLIN, BERLIN));
  // Shown in Berlin's zone on a device elsewhere: the zone is named.
  assert.equal(
    formatDateTime(at("2026-03-29T01:30:00Z"), "de-DE", BERLIN, "UTC"),
    "29.03., 03:30 MESZ",
  );
  // Autumn (2026-10-25): 00:30 UTC is 02:30 CEST, 01:30 UTC is 02:30 CET — the same wall
  // clock twice, on one 25-hour day.
  assert.equal(
    formatDateTime(at("2026-10-25T00:30:00Z"), "de-DE", BERLIN, BERLIN),
    "25.10., 02:30",
  );
  assert.equal(
    formatDateTime(at("2026-10-25T01:30:00Z"), "de-DE", BERLIN, BERLIN),
    "25.10., 02:30",
  );
  assert.equal(
    dayNumber(at("2026-10-25T22:59:00Z"), BERLIN),
    dayNumber(at("2026-10-25T00:00:00Z"), BERLIN),
  );
  assert.equal(
    dayNumber(at("2026-10-25T23:00:00Z"), BERLIN) - dayNumber(at("2026-10-25T00:00:00Z"), BERLIN),
    1,
  );
});

Deno.test("[intl] the browser's region is used when it is the chosen language's", () => {
  assert.equal(regionalLocale("de", ["de-AT", "en"]), "de-AT");
  assert.equal(regionalLocale("fr", ["en-US", "fr-CH"]), "fr-CH");
  assert.equal(regionalLocale("es", ["es-MX"]), "es-MX");
  assert.equal(regionalLocale("de", ["en-GB"]), "de");
  assert.equal(regionalLocale("en", ["en-gb"]), "en-GB");
  assert.equal(regionalLocale("de", ["de-!!", "de-CH"]), "de-CH");
  assert.equal(regionalLocale("de", []), "de");
  assert.equal(formatMoney(1234.5, "EUR", regionalLocale("de", ["de-AT"])), sp("€_1.234,50"));
  assert.equal(zoneOf("utc", BERLIN), "UTC");
  assert.equal(zoneOf("device", BERLIN), BERLIN);
});

Deno.test("[intl] the calendar's words follow the locale", () => {
  const w = calendarWords("de-DE");
  assert.equal(w.month(Date.UTC(2026, 10, 1)), "November 2026");
  assert.equal(w.weekday(Date.UTC(2024, 0, 1)), "M");
  assert.equal(
    calendarWords("es-ES").day(Date.UTC(2026, 10, 17)),
    "martes, 17 de noviembre de 2026",
  );
});

const row = (iso: string) => ({ transactionCreateDate: iso }) as TransactionRow;

Deno.test("[intl] transaction groups are counted in the zone the times are shown in", () => {
  const now = at("2026-11-17T09:00:00Z"); // 10:00 in Berlin
  // 00:30 local on the 17th is 23:30 UTC on the 16th: Today in Berlin, Yesterday in UTC.
  assert.equal(txGroup("2026-11-16T23:30:00Z", now, BERLIN), "today");
  assert.equal(txGroup("2026-11-16T23:30:00Z", now, "UTC"), "yesterday");
  assert.equal(txGroup("2026-11-16T22:30:00Z", now, BERLIN), "yesterday");
  assert.equal(txGroup("2026-11-10T23:30:00Z", now, BERLIN), "lastWeek"); // the 11th: 6 days
  assert.equal(txGroup("2026-11-09T22:59:00Z", now, BERLIN), "older"); // the 9th: 8 days
  // New York (UTC-5): 23:30 UTC on the 16th is 18:30 on the 16th.
  assert.equal(
    txGroup("2026-11-16T23:30:00Z", at("2026-11-17T04:00:00Z"), "America/New_York"),
    "today",
  );
  // Across spring's DST change (a 23-hour day) yesterday is still yesterday.
  assert.equal(txGroup("2026-03-28T23:30:00Z", at("2026-03-29T22:30:00Z"), BERLIN), "yesterday");
  assert.equal(txGroup("2026-03-28T22:30:00Z", at("2026-03-29T21:30:00Z"), BERLIN), "yesterday");
  const sections = groupTransactions(
    [row("2026-11-16T23:30:00Z"), row("2026-11-16T22:30:00Z")].map((r, i) => ({
      ...r,
      oid: String(i),
      transactionStatus: "Captured",
      merchantname: "M",
      originalPurpose: "",
      monetaryAmount: 1,
      displayMonetaryAmount: 1,
      pricingCurrency: "EUR",
      originalCurrency: "EUR",
    })) as TransactionRow[],
    "",
    now,
    BERLIN,
  );
  assert.deepEqual(sections.map((s) => [s.group, s.rows.length]), [["today", 1], ["yesterday", 1]]);
});

/**
 * Hand-written number and date formats the formatting module replaces (spec §9 through Intl):
 * each a pattern, and the files allowed to keep it with the reason.
 */
const FORBIDDEN: { what: string; re: RegExp; allowed: Record<string, string> }[] = [
  {
    what: "toFixed (a decimal mark written by hand)",
    re: /\.toFixed\(/,
    allowed: {
      "client/shared/currency_units.ts": "rounds minor-unit arithmetic, returns a number",
      "client/shared/money.ts": "spec §3 fullamount/fractionamount wire fields, not shown",
      "client/lib/transaction_view.ts": "search matching of typed amounts, not shown",
      "client/lib/jpeg_pdf.ts": "PDF page coordinates in the file's syntax, not shown",
      "client/build/report.ts": "the build's size table in a terminal, not the app",
    },
  },
  { what: "toLocale*String outside the module", re: /\.toLocale\w*String\(/, allowed: {} },
  {
    what: "Intl formatter outside the module",
    re: /new Intl\.(NumberFormat|DateTimeFormat|PluralRules|RelativeTimeFormat)/,
    allowed: { "client/shared/i18n/format.ts": "plural forms of translations (first load)" },
  },
  {
    what: "hand-made thousands grouping",
    re: /\\B\(\?=\(\\d\{3\}\)/,
    allowed: {},
  },
  { what: "decimal mark swapped by hand", re: /\.replace\("\.", ?","\)/, allowed: {} },
  {
    what: "date or time assembled from its fields",
    re: /get(UTC)?(Hours|Minutes)\(\)|padStart\(2, "0"\)/,
    allowed: {
      "client/shared/dates.ts": "isoDay writes the machine form YYYY-MM-DD, not shown",
      "client/actions/capture.ts":
        "a receipt's file name (receipt-YYYY-MM-DD-HHmm), a machine form",
      "client/build/release.ts": "spec §1's fixed release label (2.yy.MMdd, dd-MM-yyyy), at build",
    },
  },
  {
    what: "a currency symbol written after a number",
    re: /\} ?(€|£|\$\{currencySymbol|\$\{symbol)/,
    allowed: {},
  },
];

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory && e.name !== "locales") yield* sources(p);
    else if (/\.tsx?$/.test(e.name) && p !== "client/shared/intl.ts") yield p;
  }
}

Deno.test("[intl] no hand-written number or date formats are left in client/", async () => {
  const found: string[] = [];
  for await (const file of sources("client")) {
    const lines = (await Deno.readTextFile(file)).split("\n");
    for (const rule of FORBIDDEN) {
      if (file in rule.allowed) continue;
      lines.forEach((line, i) => {
        if (rule.re.test(line)) found.push(`${file}:${i + 1} ${rule.what}: ${line.trim()}`);
      });
    }
  }
  assert.deepEqual(found, []);
});
