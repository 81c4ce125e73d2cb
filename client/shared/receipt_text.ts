/**
 * Reading a receipt's text (from OCR or a PDF's text layer): the total, its currency, the date,
 * the merchant and the VAT lines, in English, French, German and Spanish. Pure: no DOM, no
 * engine; the phone's reader (a Web Worker) and `deno task read-receipt` both end here.
 *
 * What is read is a suggestion the person confirms (spec §2 VAT panel, client/shared/vat_prefill.ts):
 * a field this is not sure of is listed in `unsure` and left for the person. The rules, in short
 * (docs/receipts.md; measured on the corpus by tests/bench/receipt_corpus.ts):
 * - an amount is digits with a decimal comma or point and two decimals ("1.234,56", "1,234.56",
 *   "7,50", "-3.00"); OCR's stray spaces inside it ("12, 50") are tolerated;
 * - the total is the amount on (or right under) a line that names the total to pay ("TOTAL",
 *   "SUMME", "MONTANT", "A PAGAR", …) and is not a subtotal, net, tax, tendered or change line,
 *   checked against what paid it (the card's line, cash less change); with no such line, what
 *   paid it, else the largest amount, unsure;
 * - the date is the first valid calendar date: day before month except for US dollars in English
 *   (or when the first number cannot be a month), years 2000-2099, written months in the four
 *   languages;
 * - the merchant is a chain named anywhere in the text, else a company line ("… GmbH"), else the
 *   first line of the top that reads as a name (not an address, phone, date or greeting);
 * - a VAT line holds a rate ("19%", "20,00 %") and an amount consistent with it (the tax of
 *   another amount on the line), or is a line labelled as tax; a VAT table is read by its
 *   heading's columns, a rate not read worked out from its tax and net.
 */

export type ReceiptLanguage = "en" | "fr" | "de" | "es";

export interface ReadVatLine {
  /** Percent, e.g. 19 or 5.5. */
  rate: number;
  /** The tax amount, in the receipt's currency. */
  amount: number;
}

export interface ReadReceipt {
  total: number | null;
  currency: string | null;
  /** ISO date (YYYY-MM-DD). */
  date: string | null;
  merchant: string | null;
  vat: ReadVatLine[];
  /** Fields read without certainty: shown marked, not filled. */
  unsure: ("total" | "date" | "merchant" | "vat")[];
}

export interface ReadHints {
  /** The person's language: the default day/month order and currency. */
  lang?: ReceiptLanguage;
  /** The payment's currency, when known: the default currency of the receipt. */
  currency?: string;
  /**
   * The text is the file's own (a PDF's text layer), not OCR's: a whole number on the total's
   * line is a whole amount ("Grand Total Rs 1939"), not a thermal print's lost decimal point.
   */
  exact?: boolean;
}

/** An amount: optional sign, thousands groups, a decimal comma or point and two decimals. */
const AMOUNT =
  /(?<![\d.,])(-?\s?)(\d{1,3}(?:[.,' ]\d{3})+|\d+)\s?([.,])\s?(\d{2})(?![\d%]|[.,]\d)(?!\s?%)/g;

/** The amounts of a line, left to right. */
export function amountsOf(line: string): number[] {
  const found: number[] = [];
  for (const m of line.matchAll(AMOUNT)) {
    const whole = m[2].replace(/[.,' ]/g, "");
    const value = Number(`${whole}.${m[4]}`);
    if (!Number.isFinite(value)) continue;
    found.push(m[1].trim() === "-" ? -value : value);
  }
  return found;
}

/** Words that name the amount to pay, per language (upper case, accents removed). */
const TOTAL_WORDS = [
  /\bTOTAL\b/,
  /\bGRAND TOTAL\b/,
  /\bAMOUNT DUE\b/,
  /\bBALANCE DUE\b/,
  /\bTO PAY\b/,
  /\bMONTANT\b/,
  /\bNET A PAYER\b/,
  /\bA PAYER\b/,
  /\bTTC\b/,
  /\bSUMME\b/,
  /\bGESAMT\b/,
  /\bZU ZAHLEN\b/,
  /\bZAHLEN\b/,
  /\bENDBETRAG\b/,
  /\bBETRAG\b/,
  /\bA PAGAR\b/,
  /\bIMPORTE\b/,
  /\bTOTAL EUR\b/,
];
/** Lines that carry an amount that is not the total to pay. */
const NOT_TOTAL = [
  /\bSUB ?-?TOTAL\b/,
  /\bSOUS[- ]?TOTAL\b/,
  /\bZWISCHENSUMME\b/,
  /\bSUMME NETTO\b/,
  /\bNETTO\b/,
  /\bNET\b(?! A PAYER)/,
  /\bHT\b/,
  /\bTOTAL (TVA|VAT|TAX|MWST|IVA)\b/,
  /\b(TVA|MWST|UST|IVA|VAT|TAX)\b/,
  /\bBASE IMPONIBLE\b/,
  /\b(CHANGE|RENDU|RENDU MONNAIE|RUCKGELD|RUECKGELD|CAMBIO|CAMBIO\/VUELTA|VUELTA)\b/,
  /\b(CASH|TENDERED|ESPECES|BAR|GEGEBEN|EFECTIVO|ENTREGADO|RECIBIDO)\b/,
  /\b(TIP|POURBOIRE|TRINKGELD|PROPINA)\b/,
  /\b(SAVINGS|REMISE|RABATT|DESCUENTO|ERSPARNIS)\b/,
  /\bPOINTS?\b/,
];

/** Upper case without accents, for the keyword rules ("Rückgeld" → "RUCKGELD"). */
function plain(line: string): string {
  return line.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toUpperCase();
}

/** Lines of a card payment: what the card paid is the total (no change is given). */
const CARD =
  /\b(KARTE|KREDITKARTE|EC-?KARTE|GIROCARD|MASTERCARD|VISA|MAESTRO|CARTE|CB|TARJETA|CARD|AMEX)\b/;
const CASH = /\b(BAR|BARGELD|CASH|ESPECES|EFECTIVO|GEGEBEN|ENTREGADO|TENDERED)\b/;
const CHANGE = /\b(RUCKGELD|RUECKGELD|ZURUCK|CHANGE|RENDU|CAMBIO|VUELTA)\b/;

/** The last positive amount of the first line matching `word`. */
function amountAfter(lines: string[], word: RegExp): number | null {
  for (const line of lines) {
    if (!word.test(plain(line))) continue;
    const a = amountsOf(line).map(Math.abs).filter((x) => x > 0);
    if (a.length) return a[a.length - 1];
  }
  return null;
}

/**
 * The total: the amount of a line naming the total to pay, checked against what paid it — the
 * card's amount, or cash given less change. A total line agreeing with a payment, or alone:
 * sure; contradicted by one payment line: unsure; by two that agree: theirs, unsure (a digit
 * misread). No total line: what paid it (sure when both agree), else a total whose decimal point
 * the print lost, else the largest amount — unsure.
 */
function readTotal(lines: string[], exact = false): { total: number | null; sure: boolean } {
  const named: number[] = [];
  const dropped: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    const p = plain(lines[i]);
    if (!TOTAL_WORDS.some((w) => w.test(p))) continue;
    // "TOTAL TVA", "SUMME NETTO", "Zwischensumme": not the amount to pay.
    if (NOT_TOTAL.some((w) => w.test(p)) && !/\bTTC\b|NET A PAYER|A PAGAR|ZU ZAHLEN/.test(p)) {
      continue;
    }
    let amounts = amountsOf(lines[i]).filter((a) => a > 0);
    // The amount one line down ("TOTAL" over "12,50"), when that line says nothing else.
    if (!amounts.length && i + 1 < lines.length && !/[A-Za-z]{3}/.test(lines[i + 1])) {
      amounts = amountsOf(lines[i + 1]).filter((a) => a > 0);
    }
    if (amounts.length) named.push(amounts[amounts.length - 1]);
    else if (exact) {
      // Printed without decimals: the last whole number of the line.
      const whole = [...lines[i].matchAll(/(?<![\d.,])(\d{1,3}(?:,\d{3})+|\d{1,7})(?![\d.,%])/g)];
      if (whole.length) named.push(Number(whole[whole.length - 1][1].replace(/,/g, "")));
    } else {
      // A thermal print's decimal point lost ("TOTAL 2100"): cents, and unsure.
      const bare = /(?<![\d.,])(\d{3,6})(?![\d.,%])/.exec(lines[i]);
      if (bare) dropped.push(Number(bare[1]) / 100);
    }
  }
  const card = amountAfter(lines, CARD);
  const cash = amountAfter(lines, CASH);
  const change = amountAfter(lines, CHANGE);
  const paid = cash !== null && change !== null && cash > change
    ? Math.round((cash - change) * 100) / 100
    : null;
  const payments = [card, paid].filter((x): x is number => x !== null);
  const total = named.length ? Math.max(...named) : null;
  if (total !== null) {
    if (payments.includes(total) || named.filter((n) => n === total).length > 1) {
      return { total, sure: true };
    }
    if (payments.length === 2 && payments[0] === payments[1]) {
      return { total: payments[0], sure: false };
    }
    // A total line alone: sure unless a payment line says otherwise.
    return { total, sure: payments.length === 0 };
  }
  if (payments.length) {
    return { total: payments[0], sure: payments.length === 2 && payments[0] === payments[1] };
  }
  if (dropped.length) return { total: Math.max(...dropped), sure: false };
  // No line names the total: the largest amount that is not cash tendered or change.
  const rest = lines
    .filter((l) => !NOT_TOTAL.slice(-5).some((w) => w.test(plain(l))))
    .flatMap(amountsOf)
    .filter((a) => a > 0);
  return rest.length ? { total: Math.max(...rest), sure: false } : { total: null, sure: false };
}

const CURRENCY_MARKS: [RegExp, string][] = [
  [/€|\bEUR\b|\bEURO/i, "EUR"],
  [/£|\bGBP\b/, "GBP"],
  [/\bCHF\b|\bFR\.\s?\d/, "CHF"],
  [/\bUSD\b|US\$/, "USD"],
  [/\bCAD\b|C\$/, "CAD"],
  [/₹|\bINR\b|\bRS\.?\s?\d/i, "INR"],
  [/\bAUD\b|A\$/, "AUD"],
  [/\$/, "USD"],
];

function readCurrency(text: string, hints: ReadHints): string | null {
  for (const [mark, code] of CURRENCY_MARKS) if (mark.test(text)) return code;
  if (hints.currency) return hints.currency;
  return hints.lang && hints.lang !== "en" ? "EUR" : null;
}

const MONTHS: Record<string, number> = {};
[
  ["JAN", "JANUARY", "JANVIER", "JANV", "JANUAR", "JANNER", "ENERO", "ENE"],
  ["FEB", "FEBRUARY", "FEVRIER", "FEVR", "FEV", "FEBRUAR", "FEBRERO"],
  ["MAR", "MARCH", "MARS", "MARZ", "MAERZ", "MARZO"],
  ["APR", "APRIL", "AVRIL", "AVR", "ABRIL", "ABR"],
  ["MAY", "MAI", "MAYO"],
  ["JUN", "JUNE", "JUIN", "JUNI", "JUNIO"],
  ["JUL", "JULY", "JUILLET", "JUIL", "JULI", "JULIO"],
  ["AUG", "AUGUST", "AOUT", "AGOSTO", "AGO"],
  ["SEP", "SEPT", "SEPTEMBER", "SEPTEMBRE", "SEPTIEMBRE", "SETIEMBRE"],
  ["OCT", "OCTOBER", "OCTOBRE", "OKT", "OKTOBER", "OCTUBRE"],
  ["NOV", "NOVEMBER", "NOVEMBRE", "NOVIEMBRE"],
  ["DEC", "DECEMBER", "DECEMBRE", "DEZ", "DEZEMBER", "DICIEMBRE", "DIC"],
].forEach((names, i) => names.forEach((n) => (MONTHS[n] = i + 1)));

function isoDate(y: number, m: number, d: number): string | null {
  if (y < 100) y += 2000;
  if (y < 2000 || y > 2099 || m < 1 || m > 12 || d < 1) return null;
  const probe = new Date(Date.UTC(y, m - 1, d));
  if (probe.getUTCMonth() !== m - 1) return null;
  return probe.toISOString().slice(0, 10);
}

function readDate(text: string, monthFirst: boolean): string | null {
  const p = plain(text);
  // 2024-03-07
  for (const m of p.matchAll(/\b(20\d{2})[-/.](\d{1,2})[-/.](\d{1,2})\b/g)) {
    const d = isoDate(+m[1], +m[2], +m[3]);
    if (d) return d;
  }
  // 07.03.2024, 07/03/24, 3-7-2024, OCR's 06,06,2015 and 31.08 2015; a time right after it
  // is fine ("07.03.24 12:41").
  for (
    const m of p.matchAll(
      /(?<![\d.,])(\d{1,2}) ?[./-] ?(\d{1,2})(?: ?[./-] ?|,| )(\d{4}|\d{2})(?![\d,]|\.\d)/g,
    )
  ) {
    const [a, b, y] = [+m[1], +m[2], +m[3]];
    if (m[3].length === 2 && !/[./-]\s?\d{2}$/.test(m[0])) continue;
    const first = monthFirst && a <= 12 ? isoDate(y, a, b) : isoDate(y, b, a);
    const d = first ?? isoDate(y, a, b);
    if (d) return d;
  }
  for (const m of p.matchAll(/(?<![\d.,])(\d{1,2}),(\d{1,2}),(\d{4})(?!\d)/g)) {
    const d = isoDate(+m[3], +m[2], +m[1]);
    if (d) return d;
  }
  // 7 mars 2024, 7. März 2024, 7 de marzo de 2024, 07 MAR 24 (on one line)
  for (
    const m of p.matchAll(
      /\b(\d{1,2})\.?[ \t]*(?:DE[ \t]+)?([A-Z]{3,10})\.?[ \t]*(?:DE[ \t]+)?(\d{4}|\d{2})\b/g,
    )
  ) {
    const month = MONTHS[m[2]];
    if (!month) continue;
    const d = isoDate(+m[3], month, +m[1]);
    if (d) return d;
  }
  // March 7, 2024
  for (const m of p.matchAll(/\b([A-Z]{3,9})\.?[ \t]+(\d{1,2}),?[ \t]+(\d{4})\b/g)) {
    const month = MONTHS[m[1]];
    if (!month) continue;
    const d = isoDate(+m[3], month, +m[2]);
    if (d) return d;
  }
  return null;
}

/** Top lines that are not the merchant's name. */
const NOT_A_NAME = [
  /\b(TEL|PHONE|FAX|TELEFON|TELEFONO|TEL\.|WWW|HTTP|@|SIRET|SIREN|TVA INTRA|UST-?ID|STEUER|CIF|NIF|VAT NO|RCS|APE)\b/,
  /\b(RECEIPT|TICKET|RECU|BELEG|KASSENBON|QUITTUNG|FACTURA|FACTURE|INVOICE|RECHNUNG|BON)\b/,
  /\b(WELCOME|BIENVENUE|WILLKOMMEN|BIENVENIDO|BIENVENIDOS|MERCI|DANKE|GRACIAS|THANK)\b/,
  /\b(RUE|AVENUE|AV\.|BD|BOULEVARD|STRASSE|STR\.|CALLE|C\/|PLAZA|ROAD|RD\.|STREET|ST\.|PLATZ|WEG)\b/,
  /\b\d{5}\b/, // a postcode
  /\d{2}[./-]\d{2}[./-]\d{2,4}/, // a date
];

/**
 * Chains and brands a receipt names (its logo is often read badly, its name printed again in
 * the footer or the company line): supermarkets, drugstores, DIY, fuel, restaurants, hotels
 * and taxis of the four languages' countries — none that is also a word of a receipt ("NETTO",
 * "TOTAL"). Found anywhere in the text, letters only, one letter wrong allowed from six
 * letters on.
 */
const CHAINS = [
  // Germany, Austria
  "ALDI",
  "LIDL",
  "REWE",
  "EDEKA",
  "PENNY",
  "KAUFLAND",
  "REAL",
  "MARKTKAUF",
  "GLOBUS",
  "TEGUT",
  "KAISER'S",
  "TENGELMANN",
  "ROSSMANN",
  "DM",
  "BUDNI",
  "HORNBACH",
  "OBI",
  "TOOM",
  "BAUHAUS",
  "HAGEBAU",
  "ROLLER",
  "IKEA",
  "MEDIAMARKT",
  "SATURN",
  "DECATHLON",
  "ARAL",
  "SHELL",
  "ESSO",
  "JET",
  "AVIA",
  "AGIP",
  "WESTFALEN",
  "TOTALENERGIES",
  "BILLA",
  "SPAR",
  "HOFER",
  "TCHIBO",
  "DEHNER",
  "FRESSNAPF",
  "THALIA",
  // France
  "CARREFOUR",
  "LECLERC",
  "AUCHAN",
  "INTERMARCHÉ",
  "MONOPRIX",
  "FRANPRIX",
  "CASINO",
  "LIDL",
  "PICARD",
  "FNAC",
  "DARTY",
  "BOULANGER",
  "LEROY MERLIN",
  "CASTORAMA",
  "SEPHORA",
  "BRIOCHE DORÉE",
  "FLUNCH",
  "BUFFALO GRILL",
  "HIPPOPOTAMUS",
  "G7",
  "IBIS",
  "NOVOTEL",
  "MERCURE",
  "CAMPANILE",
  "KYRIAD",
  // Spain
  "MERCADONA",
  "EROSKI",
  "ALCAMPO",
  "HIPERCOR",
  "EL CORTE INGLÉS",
  "CAPRABO",
  "BONPREU",
  "REPSOL",
  "CEPSA",
  "GALP",
  "TELEPIZZA",
  "RODILLA",
  "VIPS",
  "CABIFY",
  "MELIÁ",
  "NH HOTEL",
  "PARADOR",
  // English
  "TESCO",
  "SAINSBURY'S",
  "ASDA",
  "MORRISONS",
  "WAITROSE",
  "BOOTS",
  "PRET",
  "GREGGS",
  "WALMART",
  "COSTCO",
  "WALGREENS",
  "CVS",
  "BP",
  "TEXACO",
  "CHEVRON",
  "PREMIER INN",
  "TRAVELODGE",
  "HILTON",
  "MARRIOTT",
  "HOLIDAY INN",
  "HYATT",
  // Everywhere
  "MCDONALD'S",
  "BURGER KING",
  "STARBUCKS",
  "SUBWAY",
  "KFC",
  "VAPIANO",
  "UBER",
  "BOLT",
  "FREE NOW",
  "MOTEL ONE",
  "B&B HOTELS",
  "ACCOR",
  "BEST WESTERN",
];
const squeeze = (s: string) => plain(s).replace(/[^A-Z0-9&]/g, "");
const CHAIN_KEYS = [...new Set(CHAINS)].map((name) => ({ name, key: squeeze(name) }));

/** Whether `a` is `b` with at most one letter changed, added or dropped. */
function nearly(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1 || b.length < 6) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const rest = (x: string, y: string) => x === y;
  return rest(a.slice(i + 1), b.slice(i + 1)) || rest(a.slice(i + 1), b.slice(i)) ||
    rest(a.slice(i), b.slice(i + 1));
}

/** A chain named in the text (its words, or its logo read with spaces: "AL DI"). */
function chainIn(lines: string[]): string | null {
  for (const line of lines) {
    const words = plain(line).split(/[^A-Z0-9&']+/).filter(Boolean);
    const joined = squeeze(line);
    for (const { name, key } of CHAIN_KEYS) {
      // Short names as whole words only ("DM", "BP"); longer ones also inside a line read
      // without its spaces, or one letter off.
      if (key.length <= 3) {
        if (words.includes(key)) return name;
        continue;
      }
      const n = key.split(/(?=&)/).length;
      if (words.some((w) => nearly(w.replace(/'/g, ""), key))) return name;
      if (n === 1 && joined.length <= key.length + 2 && nearly(joined, key)) return name;
      if (key.length >= 6 && joined.includes(key)) return name;
    }
  }
  return null;
}

/** A company line ("Aldi GmbH & Co. KG", "real,- SB-Warenhaus GmbH"): the name before the form. */
const LEGAL_FORM =
  /^(.{2,40}?)[\s,.-]+(GMBH|AG|KG|OHG|E\.?K\.?|SAS|SARL|SA|S\.A\.|SL|S\.L\.|LTD|LIMITED|INC|LLC|PLC)\b/;

function readMerchant(lines: string[]): string | null {
  const chain = chainIn(lines);
  if (chain) return chain;
  const top = lines.slice(0, 8);
  for (const line of top) {
    const m = LEGAL_FORM.exec(plain(line));
    if (m && /[A-Z]{3}/.test(m[1])) return line.slice(0, m[1].length).replace(/[,.-]+$/, "").trim();
  }
  for (const line of top) {
    const text = line.replace(/[^\p{L}\p{N}&'’.\- ]/gu, " ").replace(/\s+/g, " ").trim();
    const letters = text.replace(/[^\p{L}]/gu, "");
    if (letters.length < 3 || letters.length < text.replace(/\s/g, "").length / 2) continue;
    if (NOT_A_NAME.some((w) => w.test(plain(text)))) continue;
    if (/^(EUR|EURO|USD|GBP|CHF)$/i.test(letters)) continue;
    if (amountsOf(line).length) continue;
    return text;
  }
  return null;
}

const RATE = /(?<![\d.,])(\d{1,2}(?:[.,:]\d{1,2})?)\s?%/g;
const TAX_WORDS = /\b(TVA|MWST|UST|IVA|VAT|TAX|STEUER|I\.V\.A|CUOTA)\b/;
/** Words of a line that carries a net or gross amount beside its rate, not the tax. */
const NET_OR_GROSS = /\b(NET|NETTO|HT|HORS TAXE|BASE|OHNE|BRUTTO|TTC|MIT|TOTAL|GROSS)\b/;
/** The rates of the four languages' countries (and their neighbours'), percent. */
const KNOWN_RATES = [2.1, 4, 5, 5.5, 7, 8.5, 10, 12, 13, 16, 19, 20, 21, 22, 23, 24, 25];

/** The known rate `percent` is, within a quarter of a point. */
const knownRate = (percent: number) => KNOWN_RATES.find((r) => Math.abs(r - percent) <= 0.25);

/** Whether `tax` is the tax at `rate` % of `net` or included in `gross` (to 2 cents). */
const taxOf = (rate: number, base: number, tax: number) =>
  Math.abs(base * rate / 100 - tax) <= 0.02 || Math.abs(base * rate / (100 + rate) - tax) <= 0.02;

type Column = "net" | "tax" | "gross";

/**
 * A VAT table's heading ("MWST Netto MWST-BETRAG BRUTTO", "MWST% MWST + Netto = Brutto",
 * "Taux HT TVA TTC"): its amount columns, left to right. The first tax word followed by "%"
 * (or before another tax word) names the rate column, not the tax.
 */
function tableColumns(line: string): Column[] | null {
  if (amountsOf(line).length) return null;
  const p = plain(line).replace(/[^A-Z%. ]/g, " ");
  const found: { at: number; col: Column }[] = [];
  const net = /\b(NETTO|NET|HT|HORS TAXE|BASE( IMPONIBLE)?|OHNE MWST)\b/.exec(p);
  if (net) found.push({ at: net.index, col: "net" });
  const gross = /\b(BRU.?TO|TTC|MIT MWST|TOTAL|IMPORTE|GROSS|UMSATZ)\b/.exec(p);
  if (gross) found.push({ at: gross.index, col: "gross" });
  const taxes = [
    ...p.matchAll(/\b(MWST|MAST|MEHRWERTST|STEUER|TVA|IVA|CUOTA|VAT|TAX|UST)[A-Z.-]*/g),
  ]
    .filter((m) => !/^\s*%/.test(p.slice(m.index + m[0].length)))
    .filter((m) => !/(OHNE|MIT)\s+$/.test(p.slice(0, m.index)));
  const tax = taxes.length > 1 ? taxes[taxes.length - 1] : taxes[0];
  if (tax) found.push({ at: tax.index, col: "tax" });
  if (found.length < 2 || !found.some((f) => f.col === "tax")) return null;
  return found.sort((a, b) => a.at - b.at).map((f) => f.col);
}

/** The known rate that makes `tax` the tax of `net` (closest; within 1.5 cents or 3 %). */
function rateOf(tax: number, net: number | undefined): number | undefined {
  if (!net || net <= 0 || tax <= 0) return undefined;
  const off = (r: number) => Math.abs((net * r) / 100 - tax);
  const best = KNOWN_RATES.reduce((a, b) => (off(b) < off(a) ? b : a));
  return off(best) <= Math.max(0.015, tax * 0.03) ? best : undefined;
}

/**
 * One row of a VAT table: its rate (printed, else worked out from its amounts) and tax. A row
 * read with fewer amounts than columns is tried against the columns from the right and from
 * the left; the reading whose amounts agree (a known rate) is taken.
 */
function tableRow(line: string, cols: Column[], total = false): ReadVatLine | null {
  const p = plain(line);
  const isTotal = /\b(SUMME|GESAMT|GESANTBETRAG|GESAMTBETRAG|TOTAL|TOTAUX|SUMA)\b/.test(p);
  if (isTotal !== total) return null;
  const printed = [...line.matchAll(RATE)].map((m) => knownRate(Number(m[1].replace(/[,:]/, "."))));
  const amounts = amountsOf(line.replace(RATE, " ")).filter((a) => a >= 0);
  if (amounts.length < 2) return null;
  const readings = [amounts.slice(-cols.length)];
  if (amounts.length < cols.length) readings.push(amounts);
  for (const row of readings) {
    const fromRight = row === readings[0];
    const at = (c: Column) => {
      const i = cols.indexOf(c) - (fromRight ? cols.length - row.length : 0);
      return i >= 0 && i < row.length ? row[i] : undefined;
    };
    const tax = at("tax");
    if (tax === undefined) continue;
    const gross = at("gross");
    // The printed rate first (a few cents of tax fit several rates); else worked out.
    const rate = (printed.length === 1 ? printed[0] : undefined) ?? rateOf(tax, at("net")) ??
      rateOf(tax, gross !== undefined ? gross - tax : undefined);
    if (rate !== undefined) return { rate, amount: tax };
  }
  return null;
}

function readVat(lines: string[]): { vat: ReadVatLine[]; sure: boolean } {
  const vat: ReadVatLine[] = [];
  let sure = true;
  const add = (v: ReadVatLine) => {
    if (!vat.some((x) => x.rate === v.rate && x.amount === v.amount)) vat.push(v);
  };
  for (let i = 0; i < lines.length; i++) {
    // A table: its heading, then up to four rows.
    const cols = tableColumns(lines[i]);
    if (cols) {
      const rows = lines.slice(i + 1, i + 6);
      const before = vat.length;
      for (const line of rows) {
        const row = tableRow(line, cols);
        if (row) add(row);
      }
      // No row read, one rate: the table's total row says it ("Summe 0,47 6,69 7,16").
      if (vat.length === before) {
        const sum = rows.map((l) => tableRow(l, cols, true)).find(Boolean);
        if (sum) {
          add(sum);
          sure = false;
        }
      }
      // Its rows are read: not again as lines of their own.
      i += rows.length;
      continue;
    }
    const line = lines[i];
    const p = plain(line);
    const rates = [...line.matchAll(RATE)].map((m) => Number(m[1].replace(/[,:]/, ".")));
    if (rates.length !== 1) continue;
    const rate = knownRate(rates[0]);
    if (rate === undefined) continue;
    const amounts = amountsOf(line.replace(RATE, " ")).filter((a) => a > 0);
    if (!amounts.length) continue;
    // An amount that is the tax of another on the line: the VAT line's tax.
    let tax: number | null = null;
    for (const a of amounts) {
      if (amounts.some((b) => b !== a && b > a && taxOf(rate, b, a))) {
        tax = a;
        break;
      }
    }
    if (tax === null) {
      // A line labelled as tax with one amount ("TVA 20% 1,67", not "20% VAT Net 8.50"): that
      // amount, less sure.
      if (!TAX_WORDS.test(p) || NET_OR_GROSS.test(p) || amounts.length !== 1) continue;
      tax = amounts[0];
      sure = false;
    }
    add({ rate, amount: tax });
  }
  return { vat, sure };
}

/** Reads what a receipt's text says; `unsure` lists what the person should check. */
export function readReceiptText(text: string, hints: ReadHints = {}): ReadReceipt {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const currency = readCurrency(text, hints);
  const monthFirst = currency === "USD" && (hints.lang ?? "en") === "en";
  const { total, sure: totalSure } = readTotal(lines, hints.exact);
  const date = readDate(text, monthFirst);
  const merchant = readMerchant(lines);
  const { vat, sure: vatSure } = readVat(lines);
  const unsure: ReadReceipt["unsure"] = [];
  if (total !== null && !totalSure) unsure.push("total");
  if (vat.length && (!vatSure || (total !== null && vatTotal(vat) >= total))) unsure.push("vat");
  return { total, currency, date, merchant, vat, unsure };
}

/** The sum of the VAT lines (cents exact). */
export function vatTotal(vat: readonly ReadVatLine[]): number {
  return Math.round(vat.reduce((s, v) => s + v.amount * 100, 0)) / 100;
}

/** A text item of a PDF's text layer (pdf.js `getTextContent()`), the parts read here. */
export interface PdfTextItem {
  str: string;
  /** The text matrix: [4] is x, [5] is y (up from the page's bottom). */
  transform: number[];
  hasEOL?: boolean;
}

/**
 * A PDF page's text items as lines, top to bottom, each left to right: items on the same
 * baseline (within 2 units) are one line, so "TOTAL" and its amount stay together.
 */
export function pdfLines(items: readonly PdfTextItem[]): string[] {
  const rows: { y: number; parts: { x: number; s: string }[] }[] = [];
  for (const item of items) {
    const s = item.str.trim();
    if (!s) continue;
    const [x, y] = [item.transform[4] ?? 0, item.transform[5] ?? 0];
    let row = rows.find((r) => Math.abs(r.y - y) <= 2);
    if (!row) rows.push(row = { y, parts: [] });
    row.parts.push({ x, s });
  }
  return rows.sort((a, b) => b.y - a.y).map((r) =>
    r.parts.sort((a, b) => a.x - b.x).map((p) => p.s).join(" ")
  );
}
