/** The total to pay and its currency (client/shared/receipt_text.ts). */
import { amountsOf, plain } from "./amounts.ts";
import type { ReadHints } from "./types.ts";

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
export function readTotal(lines: string[], exact = false): { total: number | null; sure: boolean } {
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

export function readCurrency(text: string, hints: ReadHints): string | null {
  for (const [mark, code] of CURRENCY_MARKS) if (mark.test(text)) return code;
  if (hints.currency) return hints.currency;
  return hints.lang && hints.lang !== "en" ? "EUR" : null;
}
