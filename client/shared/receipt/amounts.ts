/** Amounts on a receipt's lines, and the plain form of a line its keyword rules read. */

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

/** Upper case without accents, for the keyword rules ("Rückgeld" → "RUCKGELD"). */
export function plain(line: string): string {
  return line.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toUpperCase();
}
