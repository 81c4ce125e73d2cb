/** The VAT lines and tables (client/shared/receipt_text.ts). */
import { amountsOf, plain } from "./amounts.ts";
import type { ReadVatLine } from "./types.ts";

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

export function readVat(lines: string[]): { vat: ReadVatLine[]; sure: boolean } {
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
