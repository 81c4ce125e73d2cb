import { signal } from "@preact/signals-react";
import type { DocumentInfo, Receipt } from "../shared/contract/documents.ts";
import type { TriState } from "../shared/vat.ts";

// Receipts, documents and VAT of the transaction on screen (spec §2 Transaction
// detail, VAT side panel, Receipts document panel, receipt notes panel; §3 Lists payload
// settings). Signals only: actions/receipts.ts, actions/documents.ts and actions/vat.ts write them.

/** spec §3 Lists payload: the organisation's settings that shape receipts and VAT. */
export interface AccountingSettings {
  vatMode: "simple" | "advanced";
  accountingCodeEnabled: TriState;
  typeEnabled: TriState;
  /** spec §5: restrict the file chooser to the accepted extensions. */
  limitReceiptAttachementFormat: boolean;
}
export const accounting = signal<AccountingSettings>({
  vatMode: "simple",
  accountingCodeEnabled: "false",
  typeEnabled: "false",
  limitReceiptAttachementFormat: false,
});

/** The receipts of the transaction on screen (spec §3 Receipt with its document). */
export const txReceipts = signal<{ txOid: string; receipts: Receipt[] } | null>(null);

/** An upload under way: what, and its percent (spec §4 'progress percent shows'). */
export interface UploadState {
  name: string;
  percent: number;
}
/** The receipt being attached from the transaction detail. */
export const receiptUpload = signal<UploadState | null>(null);

/** A file opened from the receipts or the document panel, shown in its own closable tab. */
export interface OpenedFile {
  oid: string;
  name: string;
  mimeType: string;
  /** Bytes of the original. */
  size: number;
  /** spec §7 pwapreview has a bounded preview of it: the tab shows it first. */
  hasPreview: boolean;
}

/** spec §2 document panel with its closable dynamic tabs (one per opened document). */
export interface DocPanelState {
  /** The transaction whose documents these are. */
  record: string;
  documents: DocumentInfo[];
  loading: boolean;
  /** Files chosen and not yet sent (Upload is disabled while empty). */
  files: File[];
  /** spec §7 pwacheckadddocumentcontent: may documents be added here now (null: not known yet). */
  canAdd: boolean | null;
  /** spec §2 document panel: advanced security (lock) for the next upload. */
  secure: boolean;
  upload: UploadState | null;
  tabs: OpenedFile[];
  /** 'list' or an opened document's oid. */
  active: string;
}
export const docPanel = signal<DocPanelState | null>(null);

/** The receipt whose note is being edited (spec §2 receipt notes panel, §9 200 characters). */
export const noteDraft = signal<{ receiptOid: string; note: string; error: string | null } | null>(
  null,
);

/** One of the VAT panel's three lines: a code and its amount (text, as typed or computed). */
export interface VatDraftLine {
  oid: string | null;
  amount: string;
}

/** spec §2 VAT side panel (simple: the flag; advanced: 0 to 3 lines), §5 rules. */
export interface VatDraft {
  txOid: string;
  flag: boolean | null;
  countryId: string | null;
  lines: [VatDraftLine, VatDraftLine, VatDraftLine];
  typeOid: string | null;
  accountingCodeOid: string | null;
  readOnly: boolean;
  error: string | null;
  /**
   * Lines filled from a suggestion (the merchant country's standard rate, or the receipt as
   * read: shared/vat_prefill.ts), shown as suggested until the person confirms or changes them;
   * lines the source was unsure of, marked for the person.
   */
  suggested?: {
    source: "country" | "receipt";
    lines: number[];
    unsure: number[];
    /** The receipt type is the one last confirmed on this phone. */
    type?: boolean;
  };
}
export const vatDraft = signal<VatDraft | null>(null);

/** Lookups of the VAT panel (spec §7 pwavatcodes, pwareceipttypes, pwaaccountingcodes, pwacountrylist). */
// The organisation's VAT codes, receipt types and accounting codes: client/state/lookups.ts.
export const vatCountries = signal<{ value: string; label: string }[]>([]);
