/** The merchant's name (client/shared/receipt_text.ts). */
import { amountsOf, plain } from "./amounts.ts";

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

export function readMerchant(lines: string[]): string | null {
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
