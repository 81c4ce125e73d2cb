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
 * Each rule lives in client/shared/receipt/ (amounts, total, dates, merchant, vat_lines); this
 * module puts them together.
 */
import { amountsOf } from "./receipt/amounts.ts";
import { readDate } from "./receipt/dates.ts";
import { readMerchant } from "./receipt/merchant.ts";
import { readCurrency, readTotal } from "./receipt/total.ts";
import type { ReadHints, ReadReceipt, ReadVatLine } from "./receipt/types.ts";
import { readVat } from "./receipt/vat_lines.ts";

export type { ReadHints, ReadReceipt, ReadVatLine, ReceiptLanguage } from "./receipt/types.ts";
export { amountsOf };

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
