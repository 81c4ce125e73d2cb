/**
 * DATEV-Format (EXTF) "Buchungsstapel": header line, column row and file rules as data.
 *
 * Target: Versionsnummer 700, Formatkategorie 21, Formatname "Buchungsstapel",
 * Formatversion 13 (the current Buchungsstapel version per DATEV's header page: its
 * expression for field 5 is ^(2|4|5|13)$ with "Buchungsstapel = 13"). 31 header fields,
 * 125 columns.
 *
 * SOURCES (no live web access was available; everything below comes from stored copies):
 *
 * Primary (DATEV developer portal, stored page excerpts):
 * - [P1] https://developer.datev.de/datev/platform/de/dtvf/einstieg (and .../en/dtvf):
 *   technical rules (";", CR/LF, quoted text, doubled quotes, no control characters,
 *   decimal comma, no thousands separators), file name EXTF_....csv, and the sample
 *   file's header line + column row (the stored excerpt ends after column 50).
 * - [P2] https://developer.datev.de/datev/platform/de/dtvf/formate/buchungsstapel:
 *   field table with regular expressions; the stored excerpt covers fields 1-9 only.
 * - [P3] https://developer.datev.de/datev/platform/en/dtvf/formate/header:
 *   header example and fields 1-5 (Versionsnummer ^(700)$, Formatversion 13).
 * - [P4] https://developer.datev.de/datev/platform/en/dtvf/zeichensatz: encoding.
 * - [P5] https://developer.datev.de/portal/en/dtvf/formate: max. 99,999 postings per file.
 *
 * Secondary (public GitHub code that copies DATEV's tables; used for fields not covered by
 * the stored DATEV excerpts; they agree with P1-P3 wherever those overlap):
 * - [S1] seamless-engineering/datev-extf, src/columns.ts: the 125 column headings
 *   "copied verbatim from line 2 of DATEV's own sample files (Musterdaten DATEV-Format)",
 *   and src/extf.ts: validator/writer rules (header text fields, Belegfeld 1 characters,
 *   CP1252, 99,999 rows, column counts per Formatversion 10:120, 11:122, 12:124, 13:125).
 * - [S2] an unattributed TypeScript file in the search index (index id 71009498539) whose
 *   header says it copies developer.datev.de ".../format-description/header",
 *   ".../booking-batch" and ".../sample-data" as of 2026-10-02: all 31 header names with
 *   expressions, the 125-column sample row and one expression per column. The `pattern`
 *   values below are taken from it, except #12 Belegfeld 2 (from S3, 12 characters);
 *   the repository name could not be determined.
 * - [S3] an unattributed Python file (index id 23131701221) embedding DATEV's Buchungsstapel
 *   field table for FV 13 (#, Überschrift, Ausdruck, Beschreibung, 125 rows). `specName` and
 *   most notes below come from it.
 * - [S4] OpenXE-org/OpenXE, www/pages/exportbuchhaltung.php: DATEV header table (31 fields
 *   with expressions) and booking table copied for Formatversion 12.
 * - [S5] ledermann/datev, lib/datev/base/booking.rb + lib/datev/base/header.rb: older
 *   Formatversion 9 (116 columns) definitions; only used to flag changes (e.g. KOST 8 -> 36).
 *
 * NOT VERIFIED / UNCERTAIN (said honestly rather than guessed):
 * - The full DATEV pages P1/P2 could not be read beyond the stored excerpts; columns 51-125
 *   and field rules beyond #9 rest on S1-S3, which agree with each other on names and order.
 * - Belegfeld 2 max length: 12 in S3/S4/S5, 36 in S2. 12 is used here (safe either way).
 * - Belegfeld 1 allowed characters: description says "$ & % * + - /"; S2's expression
 *   includes & * +, S3/S4's does not.
 * - BU-Schlüssel: expression demands 4 digits in quotes; older docs say max. 2 digits.
 * - Generalumkehr (#118): expression wants quoted "0"/"1", description says "G oder 1".
 * - WKZ Basis-Umsatz (#6): the source gives no expression; quoting assumed.
 * - Whether a plain http(s) URL in Beleglink is shown as a link by DATEV: not verified.
 * - Whether empty text fields must be written as "" or may be left bare: the DATEV sample
 *   header writes "" for empty text fields; a rule for booking rows was not found in a
 *   DATEV source (a 2015 third-party guide for version 510 says at least "" is required).
 * - Header "Datum vom/bis" must lie in one fiscal year: plausible (S1 checks it) but the
 *   DATEV "Anhang 2" it refers to was not available.
 */

// The two tables (the header's 31 fields, the 125 columns) are data: datev_format.json, written
// from the sources above; typed here.
import data from "./datev_format.json" with { type: "json" };

/** Value kinds used below. "flag" = 0/1 field; "amount" = money with decimal comma. */
export type DatevFieldType =
  | "text"
  | "number"
  | "amount"
  | "decimal"
  | "flag"
  | "date"
  | "timestamp"
  | "empty";

/** One field of the header line (line 1). */
export interface DatevHeaderField {
  /** 1-based position. */
  pos: number;
  /** Field name as DATEV's header table spells it [S2]. */
  name: string;
  type: DatevFieldType;
  /** Written in double quotes (DATEV's expression contains ["]...["]). */
  quoted: boolean;
  /** Fixed value for a Buchungsstapel (FV 13), if any. */
  value?: string | number;
  /**
   * DATEV's regular expression for the field as it appears in the file (with quotes).
   * Caution: DATEV writes `^[]$` for "empty"; in JavaScript `[]` never matches, so treat
   * that pattern as /^$/ when validating.
   */
  pattern: string;
  note: string;
}

/**
 * The 31 header fields for Versionsnummer 700 in order.
 * Sources: names and expressions [S2], confirmed by [S4] (older FV 12 copy, where 7-10 are
 * called "Reserviert") and for fields 1-5 by [P3]; example line [P1]/[P3].
 */
export const DATEV_HEADER_FIELDS: readonly DatevHeaderField[] = data
  .headerFields as DatevHeaderField[];

/**
 * DATEV's own example header line for a Buchungsstapel (31 fields), from [P1]/[P3].
 */
export const DATEV_HEADER_EXAMPLE =
  '"EXTF";700;21;"Buchungsstapel";13;20240130140440439;;"RE";"";"";29098;55003;20240101;4;' +
  '20240101;20240831;"Buchungsstapel";"WD";1;0;0;"EUR";;"";;;"03";;;"";""';

/** One column of the Buchungsstapel (line 2 = headings, lines 3ff. = bookings). */
export interface DatevBookingColumn {
  /** 1-based position ("Feld-Nr." / "#" in DATEV's table). */
  pos: number;
  /** Heading exactly as in DATEV's sample file, line 2 ([P1] up to #50, [S1], [S2]). */
  name: string;
  /** Spelling in DATEV's field table, where it differs from the sample heading [S3]. */
  specName?: string;
  type: DatevFieldType;
  /** Written in double quotes (DATEV's expression contains ["]...["]). */
  quoted: boolean;
  /** Max. characters (text) or digits (numbers/dates), without quotes. */
  maxLength?: number;
  /** Max. digits before the decimal comma (amount/decimal). */
  integerDigits?: number;
  /** Max. digits after the decimal comma (amount/decimal). */
  decimals?: number;
  /** Date layout, e.g. "TTMM" or "TTMMJJJJ". */
  format?: string;
  /** DATEV's expression for the value as written in the file ([S2]); null if none given. */
  pattern: string | null;
  note?: string;
}

/**
 * The 125 columns of Buchungsstapel Formatversion 13, in order. `name` is the heading row
 * DATEV's sample file uses (this is what goes into line 2); count and order checked against
 * [P1] (#1-#50), [S1] and [S2] (identical lists) and positions against [S3] (e.g. #20
 * Beleglink, #37 KOST1, #102 Herkunft-Kz, #115 Leistungsdatum, #125 Abw. Skontokonto).
 */
export const DATEV_BOOKING_COLUMNS: readonly DatevBookingColumn[] = data
  .bookingColumns as DatevBookingColumn[];

/** General file rules. */
export const DATEV_RULES = {
  /** File name prefix required by DATEV [P1]: "EXTF_....csv", e.g. EXTF_Buchungsstapel.csv. */
  fileNamePrefix: "EXTF_",
  fileExtension: ".csv",
  /** Line 1 = header (31 fields), line 2 = column headings, lines 3ff. = bookings [P1]. */
  headerFieldCount: 31,
  columnCount: 125,
  /** Column count per Buchungsstapel Formatversion, per [S1] ("from DATEV's changelog"). */
  columnCountByFormatVersion: { 10: 120, 11: 122, 12: 124, 13: 125 } as Record<number, number>,
  /** Field separator [P1]. */
  separator: ";",
  /** Every line ends with CR/LF [P1]. */
  lineEnding: "\r\n",
  /** Text fields in double quotes; a quote inside text is doubled [P1]. */
  quote: '"',
  escapedQuote: '""',
  /** Control characters (e.g. line breaks) are not allowed inside text fields [P1]. */
  controlCharactersAllowed: false,
  /** Decimal separator is a comma, e.g. 99,99; no thousands separators [P1]. */
  decimalSeparator: ",",
  thousandsSeparator: null,
  /** Amounts: positive, never signed; direction via Soll/Haben-Kennzeichen [P2]. */
  amountSign: "always positive; S/H in column #2",
  /**
   * Encoding [P4]: default ISO-8859-1 / CodePage 1252 (Windows-1252). UTF-8/16/32 is also
   * read, but only with a byte order mark (BOM, also for UTF-8), and only for manual import
   * in DATEV Rechnungswesen or via the online API accounting:extf-files; the KrStaPv app
   * does not support Unicode. Windows-1252 is the safe default.
   */
  encoding: "windows-1252",
  encodingAlternatives: "UTF-8/UTF-16/UTF-32 only with BOM, not via KrStaPv",
  /** Date formats: header YYYYMMDD, Erzeugt am YYYYMMDDHHMMSSFFF, Belegdatum TTMM,
   * other booking dates TTMMJJJJ [S2]/[S3]. */
  dateFormats: {
    headerDate: "YYYYMMDD",
    headerTimestamp: "YYYYMMDDHHMMSSFFF",
    belegdatum: "TTMM",
    bookingDates: "TTMMJJJJ",
  },
  /** Max. postings per Buchungsstapel file [P5]. */
  maxBookingsPerFile: 99_999,
  /** DATEV recommends one file per booking period [P2]. */
  recommendation: "one file per Buchungsperiode",
  /**
   * Line 2 (column headings): the DATEV sample writes the headings bare, separated by ";"
   * [P1]. DATEV reads columns by position; [S1] treats differing headings as warnings only.
   */
  headingsQuoted: false,
} as const;
