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
export const DATEV_HEADER_FIELDS: readonly DatevHeaderField[] = [
  {
    pos: 1,
    name: "Kennzeichen",
    type: "text",
    quoted: true,
    value: "EXTF",
    pattern: String.raw`^["](EXTF|DTVF)["]$`,
    note: 'Quoted, upper case. "EXTF" = Export aus 3rd-Party-App; "DTVF" is for DATEV apps.',
  },
  {
    pos: 2,
    name: "Versionsnummer",
    type: "number",
    quoted: false,
    value: 700,
    pattern: String.raw`^(700)$`,
    note: "Version of the header layout; bare number 700.",
  },
  {
    pos: 3,
    name: "Formatkategorie",
    type: "number",
    quoted: false,
    value: 21,
    pattern: String.raw`^(16|20|21|46|48|65)$`,
    note: "21 = Buchungsstapel (16 Debitoren/Kreditoren, 20 Kontenbeschriftungen, " +
      "46 Zahlungsbedingungen, 48 Diverse Adressen, 65 Wiederkehrende Buchungen).",
  },
  {
    pos: 4,
    name: "Formatname",
    type: "text",
    quoted: true,
    value: "Buchungsstapel",
    pattern: String.raw`^["](Buchungsstapel|Wiederkehrende Buchungen|Debitoren/Kreditoren|` +
      String.raw`Kontenbeschriftungen|Zahlungsbedingungen|Diverse Adressen)["]$`,
    note: 'Quoted "Buchungsstapel", spelled exactly so.',
  },
  {
    pos: 5,
    name: "Formatversion",
    type: "number",
    quoted: false,
    value: 13,
    pattern: String.raw`^(2|4|5|13)$`,
    note: "Buchungsstapel = 13 (Debitoren/Kreditoren 5, Kontenbeschriftungen 3, " +
      "Zahlungsbedingungen 2, Wiederkehrende Buchungen 4, Diverse Adressen 2).",
  },
  {
    pos: 6,
    name: "Erzeugt am",
    type: "timestamp",
    quoted: false,
    pattern: String.raw`^([2])([0])([0-9]{2})(0[1-9]|1[0-2])(0[1-9]|[1-2][0-9]|3[0-1])` +
      String.raw`(2[0-3]|[01][0-9])([0-5][0-9])([0-5][0-9][0-9][0-9][0-9])$`,
    note: "Bare timestamp YYYYMMDDHHMMSSFFF (17 digits, milliseconds), e.g. 20240130140440439.",
  },
  {
    pos: 7,
    name: "Importiert",
    type: "empty",
    quoted: false,
    pattern: String.raw`^[]$`,
    note: "Leave empty (bare); set by DATEV on import.",
  },
  {
    pos: 8,
    name: "Herkunft",
    type: "text",
    quoted: true,
    pattern: String.raw`^["]\w{0,2}["]$`,
    note: 'Quoted, max. 2 characters; the DATEV sample uses "RE". Replaced by "SV" on import.',
  },
  {
    pos: 9,
    name: "Exportiert von",
    type: "text",
    quoted: true,
    pattern: String.raw`^["]\w{0,25}["]$`,
    note: 'Quoted user name, max. 25 word characters; sample has "".',
  },
  {
    pos: 10,
    name: "Importiert von",
    type: "text",
    quoted: true,
    pattern: String.raw`^["]\w{0,25}["]$`,
    note: 'Quoted, max. 25; leave "" (filled by DATEV on import).',
  },
  {
    pos: 11,
    name: "Beraternummer",
    type: "number",
    quoted: false,
    pattern: String.raw`^(\d{4,6}|\d{7})$`,
    note: 'Bare number, range 1001-9999999 (the brief\'s "Berater").',
  },
  {
    pos: 12,
    name: "Mandantennummer",
    type: "number",
    quoted: false,
    pattern: String.raw`^\d{1,5}$`,
    note: 'Bare number, range 1-99999 (the brief\'s "Mandant").',
  },
  {
    pos: 13,
    name: "WJ-Beginn",
    type: "date",
    quoted: false,
    pattern: String.raw`^([2])([0])([0-9]{2})(0[1-9]|1[0-2])(0[1-9]|[1-2][0-9]|3[0-1])$`,
    note: "Wirtschaftsjahresbeginn, bare YYYYMMDD. The year of every Belegdatum (TTMM) is " +
      "taken from this field.",
  },
  {
    pos: 14,
    name: "Sachkontenlänge",
    type: "number",
    quoted: false,
    pattern: String.raw`^[4-8]$`,
    note: "Bare 4..8; must match the client's configuration in DATEV. Personenkonten are " +
      "one digit longer.",
  },
  {
    pos: 15,
    name: "Datum von",
    type: "date",
    quoted: false,
    pattern: String.raw`^([2])([0])([0-9]{2})(0[1-9]|1[0-2])(0[1-9]|[1-2][0-9]|3[0-1])$`,
    note: 'Start of the batch period, bare YYYYMMDD (the brief\'s "Datum vom").',
  },
  {
    pos: 16,
    name: "Datum bis",
    type: "date",
    quoted: false,
    pattern: String.raw`^([2])([0])([0-9]{2})(0[1-9]|1[0-2])(0[1-9]|[1-2][0-9]|3[0-1])$`,
    note: "End of the batch period, bare YYYYMMDD.",
  },
  {
    pos: 17,
    name: "Bezeichnung",
    type: "text",
    quoted: true,
    pattern: String.raw`^["][\w.-/ ]{0,30}["]$`,
    note: 'Quoted batch label, max. 30 characters, e.g. "Rechnungsausgang 09/2019".',
  },
  {
    pos: 18,
    name: "Diktatkürzel",
    type: "text",
    quoted: true,
    pattern: String.raw`^["]([A-Z]{2}){0,2}["]$`,
    note: 'Quoted upper-case initials of the clerk, e.g. "MM"; may be "".',
  },
  {
    pos: 19,
    name: "Buchungstyp",
    type: "number",
    quoted: false,
    value: 1,
    pattern: String.raw`^[1-2]$`,
    note: "Bare: 1 = Finanzbuchführung (default), 2 = Jahresabschluss.",
  },
  {
    pos: 20,
    name: "Rechnungslegungszweck",
    type: "number",
    quoted: false,
    pattern: String.raw`^(0|30|40|50|64)$`,
    note: "Bare: 0 = unabhängig (default), 30 Steuerrecht, 40 Kalkulatorik, 50 Handelsrecht, " +
      "64 IFRS.",
  },
  {
    pos: 21,
    name: "Festschreibung",
    type: "flag",
    quoted: false,
    pattern: String.raw`^(0|1)$`,
    note: "Bare: 0 = keine Festschreibung, 1 = Festschreibung (default per [S4]).",
  },
  {
    pos: 22,
    name: "WKZ",
    type: "text",
    quoted: true,
    pattern: String.raw`^["]([A-Z]{3})["]$`,
    note: 'Quoted ISO currency code, "EUR" = default; default for column #3 WKZ Umsatz.',
  },
  {
    pos: 23,
    name: "Reserviert",
    type: "empty",
    quoted: false,
    pattern: String.raw`^[]$`,
    note: "Empty, bare.",
  },
  {
    pos: 24,
    name: "Derivatskennzeichen",
    type: "empty",
    quoted: true,
    pattern: String.raw`^["]["]$`,
    note: 'Empty, written as "".',
  },
  {
    pos: 25,
    name: "Reserviert",
    type: "empty",
    quoted: false,
    pattern: String.raw`^[]$`,
    note: "Empty, bare.",
  },
  {
    pos: 26,
    name: "Reserviert",
    type: "empty",
    quoted: false,
    pattern: String.raw`^[]$`,
    note: "Empty, bare.",
  },
  {
    pos: 27,
    name: "Sachkontenrahmen",
    type: "text",
    quoted: true,
    pattern: String.raw`^["](\d{2}){0,2}["]$`,
    note: 'Quoted chart of accounts used for the data, e.g. "03" (SKR03) or "04" (SKR04).',
  },
  {
    pos: 28,
    name: "ID der Branchenlösung",
    type: "number",
    quoted: false,
    pattern: String.raw`^\d{0,4}$`,
    note: "Bare, only if a special DATEV Branchenlösung is used; otherwise empty.",
  },
  {
    pos: 29,
    name: "Reserviert",
    type: "empty",
    quoted: false,
    pattern: String.raw`^[]$`,
    note: "Empty, bare.",
  },
  {
    pos: 30,
    name: "Reserviert",
    type: "empty",
    quoted: true,
    pattern: String.raw`^["]["]$`,
    note: 'Empty, written as "".',
  },
  {
    pos: 31,
    name: "Anwendungsinformation",
    type: "text",
    quoted: true,
    pattern: String.raw`^["].{0,16}["]$`,
    note: 'Quoted, max. 16: processing mark of the exporting application, e.g. "09/2019".',
  },
];

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
export const DATEV_BOOKING_COLUMNS: readonly DatevBookingColumn[] = [
  {
    pos: 1,
    name: "Umsatz (ohne Soll/Haben-Kz)",
    specName: "Umsatz",
    type: "amount",
    quoted: false,
    integerDigits: 10,
    decimals: 2,
    pattern: String.raw`^(?!0{1,10}\,00)\d{1,10}\,\d{2}$`,
    note: "Pflicht. Immer positiv, nicht 0,00; Dezimalkomma, genau 2 Nachkommastellen, " +
      "max. 10 Vorkommastellen, kein Tausendertrennzeichen. Beispiel 1234567890,12. " +
      "Die Richtung steht in #2.",
  },
  {
    pos: 2,
    name: "Soll/Haben-Kennzeichen",
    specName: "Soll-/Haben-Kennzeichen",
    type: "text",
    quoted: true,
    maxLength: 1,
    pattern: String.raw`^["](S|H)["]$`,
    note: 'Pflicht. "S" = Soll (default), "H" = Haben; bezieht sich auf #7 Konto.',
  },
  {
    pos: 3,
    name: "WKZ Umsatz",
    type: "text",
    quoted: true,
    maxLength: 3,
    pattern: String.raw`^["]([A-Z]{3})["]$`,
    note: "ISO-4217-Code der Währung von #1; leer = WKZ aus Header-Feld #22.",
  },
  {
    pos: 4,
    name: "Kurs",
    type: "decimal",
    quoted: false,
    integerDigits: 4,
    decimals: 6,
    pattern: String.raw`^([1-9]\d{0,3}[,]\d{2,6})$`,
    note: "Fremdwährungskurs, 2 bis 6 Nachkommastellen, Beispiel 1234,123456; 0 ist " +
      "unzulässig. Bei Umsatz in Fremdwährung sind #4, #5 und #6 zu übergeben.",
  },
  {
    pos: 5,
    name: "Basis-Umsatz",
    specName: "Basisumsatz",
    type: "amount",
    quoted: false,
    integerDigits: 10,
    decimals: 2,
    pattern: String.raw`^(?!0{1,10}\,00)\d{1,10}\,\d{2}$`,
    note: "Nur zusammen mit #6 WKZ Basis-Umsatz. Beispiel 1123123123,12.",
  },
  {
    pos: 6,
    name: "WKZ Basis-Umsatz",
    specName: "WKZ Basisumsatz",
    type: "text",
    quoted: true,
    maxLength: 3,
    pattern: null,
    note: "ISO-Code der Basiswährung; nur zusammen mit #5. Die Quelle nennt hier keinen " +
      "Ausdruck; Quoting und Länge 3 wie bei #3 angenommen (nicht belegt).",
  },
  {
    pos: 7,
    name: "Konto",
    type: "number",
    quoted: false,
    maxLength: 9,
    pattern: String.raw`^(?!0{1,9}$)(\d{1,9})$`,
    note: "Pflicht. Sach- oder Personenkonto, max. 8 bzw. 9 Stellen (abhängig von der " +
      "Sachkontennummernlänge); Personenkonten genau 1 Stelle länger als die " +
      "Sachkontenlänge aus Header #14. Nicht 0. Beispiel 4400.",
  },
  {
    pos: 8,
    name: "Gegenkonto (ohne BU-Schlüssel)",
    type: "number",
    quoted: false,
    maxLength: 9,
    pattern: String.raw`^(?!0{1,9}$)(\d{1,9})$`,
    note: "Pflicht. Sach- oder Personenkonto, max. 8 bzw. 9 Stellen (abhängig von der " +
      "Sachkontennummernlänge); Personenkonten genau 1 Stelle länger als die " +
      "Sachkontenlänge aus Header #14. Nicht 0. Beispiel 70000.",
  },
  {
    pos: 9,
    name: "BU-Schlüssel",
    type: "text",
    quoted: true,
    maxLength: 4,
    pattern: String.raw`^(["]\d{4}["])$`,
    note: "Steuerungskennzeichen (Steuer-/Berichtigungsschlüssel). Der Ausdruck der " +
      "Quelle verlangt 4 Ziffern in Anführungszeichen; ältere Beschreibungen (FV 9, " +
      "ledermann/datev) nennen max. 2 Stellen. Ob kürzere Werte ohne führende Nullen " +
      "akzeptiert werden, ist NICHT verifiziert.",
  },
  {
    pos: 10,
    name: "Belegdatum",
    type: "date",
    quoted: false,
    maxLength: 4,
    format: "TTMM",
    pattern: String.raw`^(\d{4})$`,
    note: 'Pflicht. Genau 4 Ziffern TTMM, z. B. "0105" für 1. Mai (führende Null!). Das ' +
      "Jahr ermittelt DATEV aus Header-Feld #13 (WJ-Beginn).",
  },
  {
    pos: 11,
    name: "Belegfeld 1",
    type: "text",
    quoted: true,
    maxLength: 36,
    pattern: String.raw`^(["][\w$&%*+\-\/]{0,36}["])$`,
    note: "Rechnungs-/Belegnummer, Schlüssel für den OPOS-Ausgleich. Max. 36 Zeichen. " +
      "Erlaubt: Buchstaben, Ziffern und die Sonderzeichen $ & % * + - /. Unzulässig " +
      "u. a. Leerzeichen, Umlaute, Punkt, Komma, Semikolon, Doppelpunkt. Beispiel " +
      "Rg32029/2024. (Eine ältere Kopie des Ausdrucks lautet [\\w$%\\-\\/]{0,36}, ohne & " +
      "* +.)",
  },
  {
    pos: 12,
    name: "Belegfeld 2",
    type: "text",
    quoted: true,
    maxLength: 12,
    pattern: String.raw`^(["][\w$%\-\/]{0,12}["])$`,
    note: "Belegnummer oder OPOS-Verarbeitungsinformation (z. B. Fälligkeit TTMMJJ). " +
      "UNSICHER: eine Kopie der Formatbeschreibung nennt max. 12 Zeichen, eine neuere " +
      "(Stand 2026) max. 36 mit demselben Zeichensatz wie #11. 12 ist die sichere " +
      "Wahl.",
  },
  {
    pos: 13,
    name: "Skonto",
    type: "amount",
    quoted: false,
    integerDigits: 8,
    decimals: 2,
    pattern: String.raw`^([1-9]\d{0,7}[,]\d{2})$`,
    note: "Skontobetrag, nur bei Zahlungen; 0 unzulässig. Beispiel 12123123,12.",
  },
  {
    pos: 14,
    name: "Buchungstext",
    type: "text",
    quoted: true,
    maxLength: 60,
    pattern: String.raw`^(["].{0,60}["])$`,
    note: '0 bis 60 Zeichen. Keine Steuerzeichen (Zeilenumbruch); " verdoppeln.',
  },
  {
    pos: 15,
    name: "Postensperre",
    type: "flag",
    quoted: false,
    maxLength: 1,
    pattern: String.raw`^(0|1)$`,
    note: "Mahn-/Zahlsperre: 0 = keine (default), 1 = Sperre.",
  },
  {
    pos: 16,
    name: "Diverse Adressnummer",
    type: "text",
    quoted: true,
    maxLength: 9,
    pattern: String.raw`^(["]\w{0,9}["])$`,
    note: "Nur mit OPOS relevant.",
  },
  {
    pos: 17,
    name: "Geschäftspartnerbank",
    type: "number",
    quoted: false,
    maxLength: 3,
    pattern: String.raw`^(\d{3})$`,
    note: "Nur mit OPOS; dann muss auch #105 SEPA-Mandatsreferenz gefüllt sein.",
  },
  {
    pos: 18,
    name: "Sachverhalt",
    type: "number",
    quoted: false,
    maxLength: 2,
    pattern: String.raw`^(\d{2})$`,
    note: "Nur mit OPOS: 31 = Mahnzins, 40 = Mahngebühr.",
  },
  {
    pos: 19,
    name: "Zinssperre",
    type: "flag",
    quoted: false,
    maxLength: 1,
    pattern: String.raw`^(0|1)$`,
    note: "Nur mit OPOS: 0 = keine Sperre (default), 1 = Sperre.",
  },
  {
    pos: 20,
    name: "Beleglink",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
    note: "Link auf den digitalen Beleg, max. 210 Zeichen. Für einen Link in eine " +
      "DATEV-App: Programmkürzel + Leerzeichen + GUID in Anführungszeichen, z. B. " +
      'BEDI "E0A08953-FBAA-4054-AF36-993D5D68F040"; im Feld sind die inneren ' +
      'Anführungszeichen zu verdoppeln: "BEDI ""E0A08953-..."""; Kürzel laut Ausdruck ' +
      "BEDI (Unternehmen online), DDMS, DORG. Der allgemeine Ausdruck erlaubt " +
      "beliebigen Text bis 210 Zeichen; dass DATEV eine http(s)-URL als anklickbaren " +
      "Link behandelt, ist NICHT verifiziert.",
  },
  {
    pos: 21,
    name: "Beleginfo - Art 1",
    specName: "Beleginfo-Art 1",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
    note: "Immer zusammen mit dem Inhalt-Feld füllen.",
  },
  {
    pos: 22,
    name: "Beleginfo - Inhalt 1",
    specName: "Beleginfo-Inhalt 1",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
    note: "Bei Überlänge wird im nächsten Beleginfo-Feld weitergeführt.",
  },
  {
    pos: 23,
    name: "Beleginfo - Art 2",
    specName: "Beleginfo-Art 2",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 24,
    name: "Beleginfo - Inhalt 2",
    specName: "Beleginfo-Inhalt 2",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 25,
    name: "Beleginfo - Art 3",
    specName: "Beleginfo-Art 3",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 26,
    name: "Beleginfo - Inhalt 3",
    specName: "Beleginfo-Inhalt 3",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 27,
    name: "Beleginfo - Art 4",
    specName: "Beleginfo-Art 4",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 28,
    name: "Beleginfo - Inhalt 4",
    specName: "Beleginfo-Inhalt 4",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 29,
    name: "Beleginfo - Art 5",
    specName: "Beleginfo-Art 5",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 30,
    name: "Beleginfo - Inhalt 5",
    specName: "Beleginfo-Inhalt 5",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 31,
    name: "Beleginfo - Art 6",
    specName: "Beleginfo-Art 6",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 32,
    name: "Beleginfo - Inhalt 6",
    specName: "Beleginfo-Inhalt 6",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 33,
    name: "Beleginfo - Art 7",
    specName: "Beleginfo-Art 7",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 34,
    name: "Beleginfo - Inhalt 7",
    specName: "Beleginfo-Inhalt 7",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 35,
    name: "Beleginfo - Art 8",
    specName: "Beleginfo-Art 8",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 36,
    name: "Beleginfo - Inhalt 8",
    specName: "Beleginfo-Inhalt 8",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 37,
    name: "KOST1 - Kostenstelle",
    specName: "KOST1-Kostenstelle",
    type: "text",
    quoted: true,
    maxLength: 36,
    pattern: String.raw`^(["][\w ]{0,36}["])$`,
    note: "Kostenstelle für die Kostenrechnung; max. 36 Zeichen, nur " +
      "Buchstaben/Ziffern/_/Leerzeichen. Die benutzte Länge muss in den " +
      "KOST-Stammdaten eingestellt sein. (FV 9 laut ledermann/datev: max. 8.)",
  },
  {
    pos: 38,
    name: "KOST2 - Kostenstelle",
    specName: "KOST2-Kostenstelle",
    type: "text",
    quoted: true,
    maxLength: 36,
    pattern: String.raw`^(["][\w ]{0,36}["])$`,
    note: "Kostenstelle für die Kostenrechnung; max. 36 Zeichen, nur " +
      "Buchstaben/Ziffern/_/Leerzeichen. Die benutzte Länge muss in den " +
      "KOST-Stammdaten eingestellt sein. (FV 9 laut ledermann/datev: max. 8.)",
  },
  {
    pos: 39,
    name: "Kost-Menge",
    specName: "KOST-Menge",
    type: "decimal",
    quoted: false,
    integerDigits: 12,
    decimals: 4,
    pattern: String.raw`^\d{12}[,]\d{4}$`,
    note: "Menge zur Bezugsgröße der Kostenstelle; Beispiel der Quelle 123123123,1234 " +
      "(der Ausdruck verlangt formal genau 12 Vorkommastellen).",
  },
  {
    pos: 40,
    name: "EU-Land u. UStID (Bestimmung)",
    specName: "EU-Mitgliedstaat u. UStID (Bestimmung)",
    type: "text",
    quoted: true,
    maxLength: 15,
    pattern: String.raw`^(["].{0,15}["])$`,
    note: "USt-IdNr.: 2-stelliges Länderkürzel (Griechenland EL, Nordirland XI) + max. 13 " +
      "Stellen, max. 15 Zeichen. Beispiel DE133546770.",
  },
  {
    pos: 41,
    name: "EU-Steuersatz (Bestimmung)",
    type: "decimal",
    quoted: false,
    integerDigits: 2,
    decimals: 2,
    pattern: String.raw`^\d{2}[,]\d{2}$`,
    note: "Steuersatz im EU-Bestimmungsland, Beispiel 12,12.",
  },
  {
    pos: 42,
    name: "Abw. Versteuerungsart",
    type: "text",
    quoted: true,
    maxLength: 1,
    pattern: String.raw`^(["](I|K|P|S)["])$`,
    note: "I = Ist, K = keine USt-Rechnung, P = Pauschalierung, S = Soll-Versteuerung.",
  },
  {
    pos: 43,
    name: "Sachverhalt L+L",
    type: "number",
    quoted: false,
    maxLength: 3,
    pattern: String.raw`^(\d{1,3})$`,
    note: "Sachverhalte gem. § 13b UStG; 0 unzulässig.",
  },
  {
    pos: 44,
    name: "Funktionsergänzung L+L",
    type: "number",
    quoted: false,
    maxLength: 3,
    pattern: String.raw`^\d{0,3}$`,
    note: "Nur SKR07 (Österreich); 0 unzulässig.",
  },
  {
    pos: 45,
    name: "BU 49 Hauptfunktionstyp",
    specName: "BU 49 Hauptfunktiontyp",
    type: "number",
    quoted: false,
    maxLength: 1,
    pattern: String.raw`^\d$`,
    note: "Nur bei BU-Schlüssel 49.",
  },
  {
    pos: 46,
    name: "BU 49 Hauptfunktionsnummer",
    type: "number",
    quoted: false,
    maxLength: 2,
    pattern: String.raw`^\d{0,2}$`,
  },
  {
    pos: 47,
    name: "BU 49 Funktionsergänzung",
    type: "number",
    quoted: false,
    maxLength: 3,
    pattern: String.raw`^\d{0,3}$`,
  },
  {
    pos: 48,
    name: "Zusatzinformation - Art 1",
    specName: "Zusatzinformation – Art 1",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
    note: "Immer zusammen mit dem Inhalt-Feld füllen.",
  },
  {
    pos: 49,
    name: "Zusatzinformation- Inhalt 1",
    specName: "Zusatzinformation – Inhalt 1",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
    note: 'Die Musterdatei schreibt "Zusatzinformation- Inhalt" ohne Leerzeichen vor dem ' +
      "Bindestrich.",
  },
  {
    pos: 50,
    name: "Zusatzinformation - Art 2",
    specName: "Zusatzinformation – Art 2",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 51,
    name: "Zusatzinformation- Inhalt 2",
    specName: "Zusatzinformation – Inhalt 2",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 52,
    name: "Zusatzinformation - Art 3",
    specName: "Zusatzinformation – Art 3",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 53,
    name: "Zusatzinformation- Inhalt 3",
    specName: "Zusatzinformation – Inhalt 3",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 54,
    name: "Zusatzinformation - Art 4",
    specName: "Zusatzinformation – Art 4",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 55,
    name: "Zusatzinformation- Inhalt 4",
    specName: "Zusatzinformation – Inhalt 4",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 56,
    name: "Zusatzinformation - Art 5",
    specName: "Zusatzinformation – Art 5",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 57,
    name: "Zusatzinformation- Inhalt 5",
    specName: "Zusatzinformation – Inhalt 5",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 58,
    name: "Zusatzinformation - Art 6",
    specName: "Zusatzinformation – Art 6",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 59,
    name: "Zusatzinformation- Inhalt 6",
    specName: "Zusatzinformation – Inhalt 6",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 60,
    name: "Zusatzinformation - Art 7",
    specName: "Zusatzinformation – Art 7",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 61,
    name: "Zusatzinformation- Inhalt 7",
    specName: "Zusatzinformation – Inhalt 7",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 62,
    name: "Zusatzinformation - Art 8",
    specName: "Zusatzinformation – Art 8",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 63,
    name: "Zusatzinformation- Inhalt 8",
    specName: "Zusatzinformation – Inhalt 8",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 64,
    name: "Zusatzinformation - Art 9",
    specName: "Zusatzinformation – Art 9",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 65,
    name: "Zusatzinformation- Inhalt 9",
    specName: "Zusatzinformation – Inhalt 9",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 66,
    name: "Zusatzinformation - Art 10",
    specName: "Zusatzinformation – Art 10",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 67,
    name: "Zusatzinformation- Inhalt 10",
    specName: "Zusatzinformation – Inhalt 10",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 68,
    name: "Zusatzinformation - Art 11",
    specName: "Zusatzinformation – Art 11",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 69,
    name: "Zusatzinformation- Inhalt 11",
    specName: "Zusatzinformation – Inhalt 11",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 70,
    name: "Zusatzinformation - Art 12",
    specName: "Zusatzinformation – Art 12",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 71,
    name: "Zusatzinformation- Inhalt 12",
    specName: "Zusatzinformation – Inhalt 12",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 72,
    name: "Zusatzinformation - Art 13",
    specName: "Zusatzinformation – Art 13",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 73,
    name: "Zusatzinformation- Inhalt 13",
    specName: "Zusatzinformation – Inhalt 13",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 74,
    name: "Zusatzinformation - Art 14",
    specName: "Zusatzinformation – Art 14",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 75,
    name: "Zusatzinformation- Inhalt 14",
    specName: "Zusatzinformation – Inhalt 14",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 76,
    name: "Zusatzinformation - Art 15",
    specName: "Zusatzinformation – Art 15",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 77,
    name: "Zusatzinformation- Inhalt 15",
    specName: "Zusatzinformation – Inhalt 15",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 78,
    name: "Zusatzinformation - Art 16",
    specName: "Zusatzinformation – Art 16",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 79,
    name: "Zusatzinformation- Inhalt 16",
    specName: "Zusatzinformation – Inhalt 16",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 80,
    name: "Zusatzinformation - Art 17",
    specName: "Zusatzinformation – Art 17",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 81,
    name: "Zusatzinformation- Inhalt 17",
    specName: "Zusatzinformation – Inhalt 17",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 82,
    name: "Zusatzinformation - Art 18",
    specName: "Zusatzinformation – Art 18",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 83,
    name: "Zusatzinformation- Inhalt 18",
    specName: "Zusatzinformation – Inhalt 18",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 84,
    name: "Zusatzinformation - Art 19",
    specName: "Zusatzinformation – Art 19",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 85,
    name: "Zusatzinformation- Inhalt 19",
    specName: "Zusatzinformation – Inhalt 19",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 86,
    name: "Zusatzinformation - Art 20",
    specName: "Zusatzinformation – Art 20",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 87,
    name: "Zusatzinformation- Inhalt 20",
    specName: "Zusatzinformation – Inhalt 20",
    type: "text",
    quoted: true,
    maxLength: 210,
    pattern: String.raw`^(["].{0,210}["])$`,
  },
  {
    pos: 88,
    name: "Stück",
    type: "number",
    quoted: false,
    maxLength: 8,
    pattern: String.raw`^\d{0,8}$`,
    note: "Nur SKR14 Land- und Forstwirtschaft.",
  },
  {
    pos: 89,
    name: "Gewicht",
    type: "decimal",
    quoted: false,
    integerDigits: 8,
    decimals: 2,
    pattern: String.raw`^(\d{1,8}[,]\d{2})$`,
    note: "Nur SKR14 Land- und Forstwirtschaft.",
  },
  {
    pos: 90,
    name: "Zahlweise",
    type: "number",
    quoted: false,
    maxLength: 2,
    pattern: String.raw`^\d{0,2}$`,
    note: "OPOS kommunal: 1 = Lastschrift, 2 = Mahnung, 3 = Zahlung.",
  },
  {
    pos: 91,
    name: "Forderungsart",
    type: "text",
    quoted: true,
    maxLength: 10,
    pattern: String.raw`^(["]\w{0,10}["])$`,
    note: "OPOS kommunal.",
  },
  {
    pos: 92,
    name: "Veranlagungsjahr",
    type: "date",
    quoted: false,
    maxLength: 4,
    format: "JJJJ",
    pattern: String.raw`^(([2])([0])([0-9]{2}))$`,
    note: "OPOS kommunal.",
  },
  {
    pos: 93,
    name: "Zugeordnete Fälligkeit",
    type: "date",
    quoted: false,
    maxLength: 8,
    format: "TTMMJJJJ",
    pattern: String.raw`^((0[1-9]|[1-2][0-9]|3[0-1])(0[1-9]|1[0-2])([2])([0])([0-9]{2}))$`,
    note: "OPOS kommunal.",
  },
  {
    pos: 94,
    name: "Skontotyp",
    type: "number",
    quoted: false,
    maxLength: 1,
    pattern: String.raw`^\d$`,
    note: "1 = Einkauf von Waren, 2 = Erwerb von Roh-, Hilfs- und Betriebsstoffen.",
  },
  {
    pos: 95,
    name: "Auftragsnummer",
    type: "text",
    quoted: true,
    maxLength: 30,
    pattern: String.raw`^(["].{0,30}["])$`,
    note: "Auftrag/Projekt; bei Anzahlungen zusammen mit #96.",
  },
  {
    pos: 96,
    name: "Buchungstyp",
    type: "text",
    quoted: true,
    maxLength: 2,
    pattern: String.raw`^(["][A-Z]{2}["])$`,
    note: "Anzahlungen: AA, AG, AV, SR, SU, SG, SO. (Nicht zu verwechseln mit Header " +
      "#19.)",
  },
  {
    pos: 97,
    name: "USt-Schlüssel (Anzahlungen)",
    type: "number",
    quoted: false,
    maxLength: 4,
    pattern: String.raw`^\d{0,4}$`,
  },
  {
    pos: 98,
    name: "EU-Land (Anzahlungen)",
    specName: "EU-Mitgliedstaat (Anzahlungen)",
    type: "text",
    quoted: true,
    maxLength: 2,
    pattern: String.raw`^(["][A-Z]{2}["])$`,
  },
  {
    pos: 99,
    name: "Sachverhalt L+L (Anzahlungen)",
    type: "number",
    quoted: false,
    maxLength: 3,
    pattern: String.raw`^\d{0,3}$`,
  },
  {
    pos: 100,
    name: "EU-Steuersatz (Anzahlungen)",
    type: "decimal",
    quoted: false,
    integerDigits: 2,
    decimals: 2,
    pattern: String.raw`^(\d{1,2}[,]\d{2})$`,
  },
  {
    pos: 101,
    name: "Erlöskonto (Anzahlungen)",
    type: "number",
    quoted: false,
    maxLength: 8,
    pattern: String.raw`^(\d{4,8})$`,
  },
  {
    pos: 102,
    name: "Herkunft-Kz",
    type: "text",
    quoted: true,
    maxLength: 2,
    pattern: String.raw`^(["][A-Z]{2}["])$`,
    note: 'Wird beim Import durch "SV" (Stapelverarbeitung) ersetzt.',
  },
  {
    pos: 103,
    name: "Buchungs GUID",
    specName: "Leerfeld",
    type: "text",
    quoted: true,
    maxLength: 36,
    pattern: String.raw`^(["].{0,36}["])$`,
    note: 'In älteren Feldtabellen "Leerfeld" ("wird von DATEV verwendet"); die ' +
      'Musterdatei zu FV 13 nennt die Spalte "Buchungs GUID".',
  },
  {
    pos: 104,
    name: "KOST-Datum",
    type: "date",
    quoted: false,
    maxLength: 8,
    format: "TTMMJJJJ",
    pattern: String.raw`^((0[1-9]|[1-2]\d|3[0-1])(0[1-9]|1[0-2])([2])([0])(\d{2}))$`,
  },
  {
    pos: 105,
    name: "SEPA-Mandatsreferenz",
    type: "text",
    quoted: true,
    maxLength: 35,
    pattern: String.raw`^(["].{0,35}["])$`,
    note: "Dann muss auch #17 Geschäftspartnerbank gefüllt sein.",
  },
  {
    pos: 106,
    name: "Skontosperre",
    type: "flag",
    quoted: false,
    maxLength: 1,
    pattern: String.raw`^[0|1]$`,
    note: "0 = keine Skontosperre, 1 = Skontosperre.",
  },
  {
    pos: 107,
    name: "Gesellschaftername",
    type: "text",
    quoted: true,
    maxLength: 76,
    pattern: String.raw`^(["].{0,76}["])$`,
  },
  {
    pos: 108,
    name: "Beteiligtennummer",
    type: "number",
    quoted: false,
    maxLength: 4,
    pattern: String.raw`^(\d{4})$`,
  },
  {
    pos: 109,
    name: "Identifikationsnummer",
    type: "text",
    quoted: true,
    maxLength: 11,
    pattern: String.raw`^(["].{0,11}["])$`,
  },
  {
    pos: 110,
    name: "Zeichnernummer",
    type: "text",
    quoted: true,
    maxLength: 20,
    pattern: String.raw`^(["].{0,20}["])$`,
  },
  {
    pos: 111,
    name: "Postensperre bis",
    type: "date",
    quoted: false,
    maxLength: 8,
    format: "TTMMJJJJ",
    pattern: String.raw`^((0[1-9]|[1-2]\d|3[0-1])(0[1-9]|1[0-2])([2])([0])(\d{2}))$`,
  },
  {
    pos: 112,
    name: "Bezeichnung SoBil-Sachverhalt",
    type: "text",
    quoted: true,
    maxLength: 30,
    pattern: String.raw`^(["].{0,30}["])$`,
  },
  {
    pos: 113,
    name: "Kennzeichen SoBil-Buchung",
    type: "number",
    quoted: false,
    maxLength: 2,
    pattern: String.raw`^(\d{1,2})$`,
    note: "1 = SoBil-Buchung erzeugt, 0 = nicht erzeugt (default).",
  },
  {
    pos: 114,
    name: "Festschreibung",
    type: "flag",
    quoted: false,
    maxLength: 1,
    pattern: String.raw`^(0|1)$`,
    note: "leer = nicht definiert, wird automatisch festgeschrieben; 0 = keine, 1 = " +
      "Festschreibung. Eine 1 in irgendeiner Zeile schreibt den ganzen Stapel nach " +
      "dem Import fest.",
  },
  {
    pos: 115,
    name: "Leistungsdatum",
    type: "date",
    quoted: false,
    maxLength: 8,
    format: "TTMMJJJJ",
    pattern: String.raw`^((0[1-9]|[1-2]\d|3[0-1])(0[1-9]|1[0-2])([2])([0])(\d{2}))$`,
    note: "Format TTMMJJJJ. Wenn gefüllt, muss auch #116 Datum Zuord. Steuerperiode " +
      "gefüllt sein. Einsatz laut Quelle in Absprache mit dem Steuerberater.",
  },
  {
    pos: 116,
    name: "Datum Zuord. Steuerperiode",
    type: "date",
    quoted: false,
    maxLength: 8,
    format: "TTMMJJJJ",
    pattern: String.raw`^((0[1-9]|[1-2]\d|3[0-1])(0[1-9]|1[0-2])([2])([0])(\d{2}))$`,
  },
  {
    pos: 117,
    name: "Fälligkeit",
    type: "date",
    quoted: false,
    maxLength: 8,
    format: "TTMMJJJJ",
    pattern: String.raw`^((0[1-9]|[1-2]\d|3[0-1])(0[1-9]|1[0-2])([2])([0])(\d{2}))$`,
    note: "Nur mit OPOS; OPOS-Informationen in #12 Belegfeld 2 sind dann nicht nutzbar.",
  },
  {
    pos: 118,
    name: "Generalumkehr (GU)",
    specName: "Generalumkehr",
    type: "flag",
    quoted: true,
    maxLength: 1,
    pattern: String.raw`^(["](0|1)["])$`,
    note: 'Laut Beschreibung "G oder 1" = Generalumkehr, 0 = keine; der Ausdruck erlaubt ' +
      'nur "0"/"1" in Anführungszeichen. Andere Implementierungen schreiben es ' +
      "unquotiert; nicht abschließend geklärt.",
  },
  {
    pos: 119,
    name: "Steuersatz",
    type: "decimal",
    quoted: false,
    integerDigits: 2,
    decimals: 2,
    pattern: String.raw`^(\d{1,2}[,]\d{2})$`,
    note: "Nur bei Steuerschlüsseln mit Steuersatzwahl (z. B. 100, 400); ggf. mit #120.",
  },
  {
    pos: 120,
    name: "Land",
    type: "text",
    quoted: true,
    maxLength: 2,
    pattern: String.raw`^(["][A-Z]{2}["])$`,
    note: "ISO-3166-Ländercode, z. B. DE; ggf. zusammen mit #119.",
  },
  {
    pos: 121,
    name: "Abrechnungsreferenz",
    type: "text",
    quoted: true,
    maxLength: 50,
    pattern: String.raw`^(["].{0,50}["])$`,
    note: "Klammer über Transaktionen eines Zahlungsdienstleisters und deren Auszahlung.",
  },
  {
    pos: 122,
    name: "BVV-Position",
    specName: "BVV-Position (Betriebsvermögensvergleich)",
    type: "number",
    quoted: false,
    maxLength: 1,
    pattern: String.raw`^([1|2|3|4|5])$`,
    note: "1 Kapitalanpassung, 2 Entnahme/Ausschüttung, 3 Einlage/Kapitalzuführung, 4 " +
      "Übertragung § 6b Rücklage, 5 Umbuchung.",
  },
  {
    pos: 123,
    name: "EU-Land u. UStID (Ursprung)",
    specName: "EU-Mitgliedstaat u. UStID (Ursprung)",
    type: "text",
    quoted: true,
    maxLength: 15,
    pattern: String.raw`^(["].{0,15}["])$`,
    note: "USt-IdNr.: 2-stelliges Länderkürzel (Griechenland EL, Nordirland XI) + max. 13 " +
      "Stellen, max. 15 Zeichen. Beispiel DE133546770.",
  },
  {
    pos: 124,
    name: "EU-Steuersatz (Ursprung)",
    type: "decimal",
    quoted: false,
    integerDigits: 2,
    decimals: 2,
    pattern: String.raw`^\d{2}[,]\d{2}$`,
    note: "Steuersatz im EU-Ursprungsland.",
  },
  {
    pos: 125,
    name: "Abw. Skontokonto",
    type: "number",
    quoted: false,
    maxLength: 9,
    pattern: String.raw`^(\d{1,9})$`,
    note: "Aufwandskonto für den Skontobetrag bei Zahlungen mit Skontoabzug.",
  },
];

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
