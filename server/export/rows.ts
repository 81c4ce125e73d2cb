/**
 * What the accounting export says of one transaction (docs/export.md): its lines, one per VAT
 * line of the VAT panel (net, rate or code, VAT amount), the rest of the amount on a line
 * without VAT, and everything a bookkeeper files with it. Pure: the CSV and DATEV writers
 * (csv.ts, datev.ts) format these, the export (run.ts) reads the store into them.
 *
 * Money stays in minor units here, signed: a purchase is spent (positive), a merchant's credit
 * comes back (negative). A purchase refunded in part counts what is left of it.
 */
import { toMinor } from "../../client/shared/currency_units.ts";
import { isoDay } from "../../client/shared/dates.ts";
import { convert, type RateTable, termsFor } from "../issuer/fx.ts";
import type { DocumentRecord } from "../store/documents.ts";
import type { RequestRecord } from "../store/requests.ts";
import { bookedAt, type TransactionRecord } from "../store/transactions.ts";
import type { LastExport } from "../store/exports.ts";
import { fnv1a } from "../store/fnv.ts";

export interface VatCodeRef {
  oid: string;
  percentage: number;
  countryid: string;
  datevKey?: string;
  description: string;
}

export interface AccountRef {
  oid: string;
  value: string;
  label: string;
  currency: string;
}

/** A receipt as the export names it: where it is in the ZIP. */
export interface ReceiptFile {
  doc: DocumentRecord;
  path: string;
}

/** Whether the transaction left in an earlier export, and whether it changed since. */
export type ExportState = "new" | "exported" | "changed";

export interface ExportLine {
  txOid: string;
  /** 1, 2, 3 for the VAT lines; 0 for the part without VAT. */
  line: number;
  booked: string;
  purchased: string;
  captured: string;
  holder: string;
  holderEmail: string;
  requestId: string;
  purpose: string;
  merchant: string;
  merchantCity: string;
  merchantCountry: string;
  mcc: string;
  type: "Purchase" | "Refund";
  /** The whole transaction in the card's currency, and in the merchant's. */
  amount: number;
  currency: string;
  originalAmount: number;
  originalCurrency: string;
  /** 1 merchant's unit = fxRate card units (null in the card's own currency). */
  fxRate: string | null;
  /** What the issuer authorised, captured and refunded (card currency); a purchase counts the rest. */
  amountAuthorized: number;
  amountCaptured: number;
  amountRefunded: number;
  account: AccountRef | null;
  /** The whole transaction in the account's currency and the rate used (1 when the same). */
  accountAmount: number;
  accountRate: string;
  /** This line, in the card's currency: gross = net + vat. */
  gross: number;
  net: number;
  vat: number;
  /** The line's VAT code; null on the part without VAT. */
  vatCode: VatCodeRef | null;
  /** The line in the account's currency. */
  accountGross: number;
  costCenter: string;
  gl: string;
  project: string;
  accountingCode: string;
  receiptCount: number;
  receipts: string[];
  /** The holder's "no receipt" declaration ("what — why"), when there is one. */
  noReceipt: string;
  /** "declared", "pending", "accepted", … the declaration's state, when there is one. */
  noReceiptState: string;
  /** spec §5: VAT "no VAT" declared (lines none), has VAT, or unknown. */
  vatFlag: "no" | "yes" | "unknown";
  /** An approver reviewed (accepted) the VAT lines. */
  vatAccepted: boolean;
  state: ExportState;
  exportedAt: string;
}

/** Everything the export knows of one transaction. */
export interface ExportEntry {
  tx: TransactionRecord;
  request: RequestRecord | null;
  holder: { name: string; email: string };
  account: AccountRef | null;
  receipts: ReceiptFile[];
  last: Omit<LastExport, "prev"> | null;
}

export interface RowContext {
  codes: ReadonlyMap<string, VatCodeRef>;
  rates: RateTable;
  /** The values (the codes accounting knows) of cost centres, GL accounts and projects by oid. */
  values: ReadonlyMap<string, string>;
}

/**
 * The VAT lines' split of `amount` (minor units, positive): each declared line's gross is its
 * VAT grossed up at its rate; the rest is a line without VAT. A rest within the rounding of the
 * VAT amounts goes to the last VAT line's net, so the lines always sum to the amount.
 */
export function splitVat(
  amount: number,
  lines: { code: VatCodeRef | null; vat: number }[],
): { code: VatCodeRef | null; gross: number; net: number; vat: number }[] {
  const out: { code: VatCodeRef | null; gross: number; net: number; vat: number }[] = [];
  for (const l of lines) {
    const p = l.code?.percentage ?? 0;
    if (p <= 0 || l.vat === 0) continue;
    const gross = Math.round(l.vat * (100 + p) / p);
    out.push({ code: l.code, gross, net: gross - l.vat, vat: l.vat });
  }
  const rest = amount - out.reduce((s, l) => s + l.gross, 0);
  // A VAT amount is rounded to the cent, so grossing it up at p % is off by up to
  // (100 + p) / 2p cents (3 at 20 %, 24 at 2.1 %): a rest within that is rounding.
  const slack = out.reduce(
    (s, l) => s + Math.ceil((100 + l.code!.percentage) / (2 * l.code!.percentage)),
    0,
  );
  if (out.length && Math.abs(rest) <= slack) {
    const last = out[out.length - 1];
    last.gross += rest;
    last.net += rest;
  } else if (rest !== 0 || !out.length) {
    // A zero-rate code the panel named takes the rest; else it is a line without VAT.
    const zero = lines.find((l) => l.code && l.code.percentage === 0)?.code ?? null;
    out.push({ code: zero, gross: rest, net: rest, vat: 0 });
  }
  return out;
}

/** A short tag (FNV-1a, 32 bits) of a text's UTF-8: the stamp of what an export said. */
export const stampOf = (text: string): string => fnv1a(new TextEncoder().encode(text));

/** The export's lines of one transaction and the stamp of what they say. */
export function linesOf(e: ExportEntry, ctx: RowContext): { lines: ExportLine[]; stamp: string } {
  const t = e.tx;
  const sign = t.transactionType === "Refund" ? -1 : 1;
  const amount = t.amount;
  const declared = [1, 2, 3].map((i) => {
    const oid = t.vat[`vat${i}Oid` as "vat1Oid"];
    const major = t.vat[`vat${i}Amount` as "vat1Amount"];
    return oid === null || major === null
      ? null
      : { code: ctx.codes.get(oid) ?? null, vat: toMinor(major, t.pricingCurrency) };
  }).filter((l): l is { code: VatCodeRef | null; vat: number } => l !== null);
  const split = t.collectVatFlag === false ? splitVat(amount, []) : splitVat(amount, declared);
  const acc = e.account;
  const terms = acc && acc.currency !== t.pricingCurrency
    ? termsFor(ctx.rates, t.pricingCurrency, acc.currency)
    : null;
  const inAccount = (minor: number) => Math.sign(minor) * convert(terms, Math.abs(minor));
  const r = e.request;
  const d = t.declaration;
  // The request keeps the words shown; accounting wants the organisation's code of each.
  const codeOf = (oid: string | null | undefined, shown: string | undefined) =>
    (oid ? ctx.values.get(oid) : undefined) ?? shown ?? "";
  const base = {
    txOid: t.oid,
    booked: isoDay(bookedAt(t) ?? t.createdAt),
    purchased: isoDay(t.createdAt),
    captured: t.capturedAt ? isoDay(t.capturedAt) : "",
    holder: e.holder.name,
    holderEmail: e.holder.email,
    requestId: t.cardId,
    purpose: r?.purpose ?? t.originalPurpose,
    merchant: t.merchantname,
    merchantCity: t.merchantcity,
    merchantCountry: t.merchantcountry,
    mcc: t.mcc,
    type: t.transactionType,
    amount: sign * amount,
    currency: t.pricingCurrency,
    originalAmount: sign * t.originalAmount,
    originalCurrency: t.originalCurrency,
    fxRate: t.rate,
    amountAuthorized: t.amountAuthorized,
    amountCaptured: t.amountCaptured,
    amountRefunded: t.amountRefunded,
    account: acc,
    accountAmount: inAccount(sign * amount),
    accountRate: terms?.rate ?? "1",
    costCenter: codeOf(r?.costCenterOid, r?.costCenter),
    gl: codeOf(r?.GLOid, r?.GLCode),
    project: codeOf(r?.projectOid, r?.projectCode),
    accountingCode: t.accountingCodeOid ?? "",
    receiptCount: e.receipts.length,
    receipts: e.receipts.map((f) => f.path),
    noReceipt: d ? `${d.what} — ${d.reason}` : "",
    noReceiptState: d ? d.state : "",
    vatFlag: t.collectVatFlag === null ? "unknown" : t.collectVatFlag ? "yes" : "no",
    vatAccepted: t.reviewed,
  } as const;
  const lines: ExportLine[] = split.map((l, i) => ({
    ...base,
    line: l.code && l.vat !== 0 ? i + 1 : 0,
    gross: sign * l.gross,
    net: sign * l.net,
    vat: sign * l.vat,
    vatCode: l.code,
    accountGross: inAccount(sign * l.gross),
    state: "new",
    exportedAt: "",
  }));
  // The account's lines sum to the account's amount: the conversion's rounding goes to the last.
  const gap = base.accountAmount - lines.reduce((s, l) => s + l.accountGross, 0);
  lines[lines.length - 1].accountGross += gap;
  // What the lines say, without the words of the reader's language or the ZIP's layout: the
  // same transaction exported in French or in folders is not "changed".
  const stamp = stampOf(JSON.stringify(lines.map((l) => [
    l.booked,
    l.amount,
    l.currency,
    l.originalAmount,
    l.amountCaptured,
    l.amountRefunded,
    l.account?.oid ?? null,
    l.accountAmount,
    l.line,
    l.gross,
    l.net,
    l.vat,
    l.vatCode?.oid ?? null,
    l.costCenter,
    l.gl,
    l.project,
    l.accountingCode,
    e.receipts.map((f) => f.doc.oid),
    l.noReceipt,
    l.noReceiptState,
    l.vatFlag,
    l.vatAccepted,
  ])));
  const state: ExportState = !e.last ? "new" : e.last.stamp === stamp ? "exported" : "changed";
  const exportedAt = e.last ? new Date(e.last.at).toISOString() : "";
  for (const l of lines) Object.assign(l, { state, exportedAt });
  return { lines, stamp };
}
