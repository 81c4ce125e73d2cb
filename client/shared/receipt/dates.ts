/** The receipt's date (client/shared/receipt_text.ts). */
import { plain } from "./amounts.ts";

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

export function readDate(text: string, monthFirst: boolean): string | null {
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
