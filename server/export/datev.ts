/**
 * The export as a DATEV "Buchungsstapel" (DATEV-Format EXTF, Versionsnummer 700,
 * Formatkategorie 21, Formatversion 13), as datev_format.ts records DATEV's description: line 1
 * the 31 header fields, line 2 the 125 column headings, then one booking per VAT line;
 * `;`-separated, text in double quotes (a quote inside doubled), decimal comma, CRLF,
 * Windows-1252 (DATEV's default; UTF-8 is read only on some import paths).
 *
 * Each booking: Umsatz always positive, "S" (Soll) on the expense account for a purchase and
 * "H" (Haben) for a merchant's credit; Konto the request's GL account, Gegenkonto the card
 * clearing account of the organisation's `datev` settings; BU-Schlüssel the VAT code's
 * `datevKey` (none: the gross is booked without tax key); Belegdatum TTMM of the booking day;
 * Belegfeld 1 the request id, Belegfeld 2 the transaction's id (12 characters); Buchungstext the
 * merchant and purpose; Beleglink the receipt's path in the ZIP; KOST1 the cost centre, KOST2 the
 * project. A card amount in another currency than the file's (header WKZ) is booked converted
 * at the issuer's rates, the card amount kept in Zusatzinformation 1 (DATEV's Kurs cannot carry
 * a rate under 1, e.g. GBP per EUR). docs/export.md explains every column written.
 */
import { formatMinor } from "../issuer/fx.ts";
import { DATEV_BOOKING_COLUMNS, DATEV_RULES } from "./datev_format.ts";
import type { ExportLine } from "./rows.ts";

export interface DatevSettings {
  consultant: number;
  client: number;
  fiscalYearStartMonth: number;
  accountLength: number;
  chart: "03" | "04";
  contraAccount: string;
}

export const DATEV_DEFAULTS: DatevSettings = {
  consultant: 1001,
  client: 1,
  fiscalYearStartMonth: 1,
  accountLength: 4,
  chart: "03",
  contraAccount: "1360",
};

/** The fiscal year's first day (YYYY-MM-DD) of the year that holds `day`. */
export function fiscalYearStart(day: string, startMonth: number): string {
  const [y, m] = day.split("-").map(Number);
  const year = m >= startMonth ? y : y - 1;
  return `${year}-${String(startMonth).padStart(2, "0")}-01`;
}

/** A text field: quoted, quotes doubled, control characters out, cut to `max`. */
export function datevText(v: string, max: number): string {
  // deno-lint-ignore no-control-regex
  const clean = v.replace(/[\u0000-\u001f\u007f]+/g, " ").trim().slice(0, max);
  return `"${clean.replaceAll('"', '""')}"`;
}

/** Keeps only the characters a field's rule allows (e.g. KOST1: letters, digits, _ and space). */
const only = (v: string, allowed: RegExp, max: number) =>
  [...v].filter((c) => allowed.test(c)).join("").slice(0, max);

const ymd = (day: string) => day.replaceAll("-", "");
const pad2 = (n: number) => String(n).padStart(2, "0");

/** "Erzeugt am": YYYYMMDDHHMMSSFFF (UTC). */
function stamp(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}${pad2(d.getUTCMonth() + 1)}${pad2(d.getUTCDate())}` +
    `${pad2(d.getUTCHours())}${pad2(d.getUTCMinutes())}${pad2(d.getUTCSeconds())}` +
    String(d.getUTCMilliseconds()).padStart(3, "0");
}

/** Line 1 and line 2: the header and the column headings. */
export function datevHead(o: {
  settings: DatevSettings;
  from: string;
  to: string;
  currency: string;
  by: string;
  label: string;
  now: number;
}): string {
  const s = o.settings;
  const fields = [
    '"EXTF"',
    "700",
    "21",
    '"Buchungsstapel"',
    "13",
    stamp(o.now),
    "",
    '"RE"',
    `"${only(o.by, /\w/, 25)}"`,
    '""',
    String(s.consultant),
    String(s.client),
    ymd(fiscalYearStart(o.from, s.fiscalYearStartMonth)),
    String(s.accountLength),
    ymd(o.from),
    ymd(o.to),
    `"${only(o.label, /[\w./ ]/, 30)}"`,
    '"QC"',
    "1",
    "0",
    "0",
    `"${o.currency}"`,
    "",
    '""',
    "",
    "",
    `"${s.chart}"`,
    "",
    "",
    '""',
    '""',
  ];
  const headings = DATEV_BOOKING_COLUMNS.map((c) => c.name).join(DATEV_RULES.separator);
  return fields.join(";") + "\r\n" + headings + "\r\n";
}

/** Column positions (1-based) this export fills. */
const COL = {
  umsatz: 1,
  sh: 2,
  wkz: 3,
  konto: 7,
  gegenkonto: 8,
  bu: 9,
  belegdatum: 10,
  belegfeld1: 11,
  belegfeld2: 12,
  text: 14,
  beleglink: 20,
  infoArt1: 21,
  infoInhalt1: 22,
  infoArt2: 23,
  infoInhalt2: 24,
  kost1: 37,
  kost2: 38,
  zusatzArt1: 48,
  zusatzInhalt1: 49,
} as const;

const decimalComma = (minor: number, currency: string) =>
  formatMinor(Math.abs(minor), currency).replace(".", ",");

/**
 * The bookings of one transaction's lines (zero lines left out: DATEV takes no 0,00), in the
 * file's currency `currency`: `inBase` converts a card amount (minor units) into it.
 */
export function datevRows(
  lines: ExportLine[],
  o: { settings: DatevSettings; currency: string; inBase: (l: ExportLine) => number },
): string {
  let out = "";
  for (const l of lines) {
    const base = l.currency === o.currency ? l.gross : o.inBase(l);
    if (base === 0) continue;
    const f: string[] = new Array(DATEV_BOOKING_COLUMNS.length).fill("");
    const set = (pos: number, v: string) => (f[pos - 1] = v);
    set(COL.umsatz, decimalComma(base, o.currency));
    set(COL.sh, base > 0 ? '"S"' : '"H"');
    set(COL.wkz, `"${o.currency}"`);
    if (/^\d{1,9}$/.test(l.gl) && !/^0+$/.test(l.gl)) set(COL.konto, l.gl);
    set(COL.gegenkonto, o.settings.contraAccount);
    if (l.vatCode?.datevKey && l.vat !== 0) set(COL.bu, `"${l.vatCode.datevKey}"`);
    set(COL.belegdatum, l.booked.slice(8, 10) + l.booked.slice(5, 7));
    set(COL.belegfeld1, `"${only(l.requestId, /[\w$&%*+\-/]/, 36)}"`);
    set(COL.belegfeld2, `"${only(l.txOid, /[A-Za-z0-9]/, 12)}"`);
    set(COL.text, datevText([l.merchant, l.purpose].filter(Boolean).join(" / "), 60));
    if (l.receipts.length) set(COL.beleglink, datevText(l.receipts[0], 210));
    set(COL.infoArt1, datevText("Transaktion", 20));
    set(COL.infoInhalt1, datevText(l.txOid, 210));
    set(COL.infoArt2, datevText("Karteninhaber", 20));
    set(COL.infoInhalt2, datevText(l.holder, 210));
    if (l.costCenter) set(COL.kost1, `"${only(l.costCenter, /[\w ]/, 36)}"`);
    if (l.project) set(COL.kost2, `"${only(l.project, /[\w ]/, 36)}"`);
    if (l.currency !== o.currency) {
      set(COL.zusatzArt1, datevText("Kartenbetrag", 20));
      set(COL.zusatzInhalt1, datevText(`${decimalComma(l.gross, l.currency)} ${l.currency}`, 210));
    }
    out += f.join(";") + "\r\n";
  }
  return out;
}

/** Windows-1252's characters 0x80–0x9F (the rest of 0x00–0xFF is Latin-1). */
const CP1252_HIGH = "€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ";
const TO_CP1252 = new Map([...CP1252_HIGH].map((c, i) => [c, 0x80 + i]));

/** A text in Windows-1252 (a character it cannot hold becomes "?"). */
export function cp1252(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  let n = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    const b = TO_CP1252.get(ch) ?? (code < 0x80 || (code >= 0xa0 && code <= 0xff) ? code : 0x3f);
    out[n++] = b;
  }
  return out.subarray(0, n);
}
