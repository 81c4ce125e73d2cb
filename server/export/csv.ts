/**
 * The export as CSV (docs/export.md): UTF-8 with a byte-order mark (so spreadsheet programs
 * read the accents), one row per VAT line, the column names and words in the finance user's
 * language, and that language's separator and decimal mark: `,` and `.` in English, `;` and
 * `,` in French, German and Spanish (where the comma is the decimal mark). Fields are quoted as
 * RFC 4180 says (a separator, a quote or a line break inside), lines end in CRLF, dates are ISO.
 *
 * Written by hand, not with a CSV library: quoting is the whole of it (see docs/export.md).
 */
import type { TranslationKey } from "../../client/shared/i18n/locales/en.ts";
import { formatMinor } from "../issuer/fx.ts";
import type { ExportLine } from "./rows.ts";

type Tr = (key: TranslationKey, params?: Record<string, string | number>) => string;

export interface CsvStyle {
  separator: "," | ";";
  decimal: "." | ",";
}

export function csvStyle(locale: string): CsvStyle {
  return locale.startsWith("en")
    ? { separator: ",", decimal: "." }
    : { separator: ";", decimal: "," };
}

const pct = (p: number, s: CsvStyle) => String(p).replace(".", s.decimal);

/** The columns in order: the translation key of the name and the cell of a line. */
const COLUMNS: [string, (l: ExportLine, s: CsvStyle, tr: Tr) => string][] = [
  ["booked", (l) => l.booked],
  ["purchased", (l) => l.purchased],
  ["captured", (l) => l.captured],
  ["holder", (l) => l.holder],
  ["holderEmail", (l) => l.holderEmail],
  ["requestId", (l) => l.requestId],
  ["purpose", (l) => l.purpose],
  ["merchant", (l) => l.merchant],
  ["merchantCity", (l) => l.merchantCity],
  ["merchantCountry", (l) => l.merchantCountry],
  ["mcc", (l) => l.mcc],
  ["type", (l, _s, tr) => tr(`export.word.${l.type}`)],
  ["amount", (l, s) => money(l.amount, l.currency, s)],
  ["currency", (l) => l.currency],
  ["originalAmount", (l, s) => money(l.originalAmount, l.originalCurrency, s)],
  ["originalCurrency", (l) => l.originalCurrency],
  ["fxRate", (l, s) => (l.fxRate ?? "").replace(".", s.decimal)],
  ["amountAuthorized", (l, s) => money(l.amountAuthorized, l.currency, s)],
  ["amountCaptured", (l, s) => money(l.amountCaptured, l.currency, s)],
  ["amountRefunded", (l, s) => money(l.amountRefunded, l.currency, s)],
  ["account", (l) => l.account?.value ?? ""],
  ["accountCurrency", (l) => l.account?.currency ?? l.currency],
  ["accountAmount", (l, s) => money(l.accountAmount, l.account?.currency ?? l.currency, s)],
  ["accountRate", (l, s) => l.accountRate.replace(".", s.decimal)],
  ["line", (l) => String(l.line)],
  ["gross", (l, s) => money(l.gross, l.currency, s)],
  ["net", (l, s) => money(l.net, l.currency, s)],
  ["vatRate", (l, s) => l.vatCode ? pct(l.vatCode.percentage, s) : ""],
  [
    "vatCode",
    (l, _s, tr) => l.vatCode?.description ?? (l.line === 0 ? tr("export.word.noVat") : ""),
  ],
  ["vat", (l, s) => money(l.vat, l.currency, s)],
  ["accountGross", (l, s) => money(l.accountGross, l.account?.currency ?? l.currency, s)],
  ["costCenter", (l) => l.costCenter],
  ["gl", (l) => l.gl],
  ["project", (l) => l.project],
  ["accountingCode", (l) => l.accountingCode],
  ["receiptCount", (l) => String(l.receiptCount)],
  ["receipts", (l) => l.receipts.join(" | ")],
  ["noReceipt", (l) => l.noReceipt],
  ["noReceiptState", (l) => l.noReceiptState],
  ["vatFlag", (l, _s, tr) => tr(`export.word.${l.vatFlag}`)],
  ["vatAccepted", (l, _s, tr) => tr(l.vatAccepted ? "export.word.yes" : "export.word.no")],
  ["state", (l, _s, tr) => tr(`export.word.${l.state}`)],
  ["exportedAt", (l) => l.exportedAt],
  ["txOid", (l) => l.txOid],
];

export const CSV_COLUMNS = COLUMNS.map(([k]) => k);

function money(minor: number, currency: string, s: CsvStyle): string {
  return formatMinor(minor, currency).replace(".", s.decimal);
}

/** One field, quoted when it holds the separator, a quote, a line break or edge spaces. */
export function csvField(v: string, s: CsvStyle): string {
  // A formula-looking text is kept as text (CSV injection: =, +, -, @ start a formula).
  const safe = /^[=+\-@\t\r]/.test(v) && !/^-?\d+([.,]\d+)?$/.test(v) ? `'${v}` : v;
  return safe.includes(s.separator) || /["\r\n]/.test(safe) || safe !== safe.trim()
    ? `"${safe.replaceAll('"', '""')}"`
    : safe;
}

const row = (cells: string[], s: CsvStyle) =>
  cells.map((c) => csvField(c, s)).join(s.separator) + "\r\n";

/** The first text of the file: the byte-order mark and the column names. */
export function csvHead(s: CsvStyle, tr: Tr): string {
  return "\uFEFF" + row(COLUMNS.map(([k]) => tr(`export.col.${k}` as TranslationKey)), s);
}

/** The rows of one transaction's lines. */
export function csvRows(lines: ExportLine[], s: CsvStyle, tr: Tr): string {
  return lines.map((l) => row(COLUMNS.map(([, cell]) => cell(l, s, tr)), s)).join("");
}
