/** What a receipt's text is read into (client/shared/receipt_text.ts). Types only. */

export type ReceiptLanguage = "en" | "fr" | "de" | "es";

export interface ReadVatLine {
  /** Percent, e.g. 19 or 5.5. */
  rate: number;
  /** The tax amount, in the receipt's currency. */
  amount: number;
}

export interface ReadReceipt {
  total: number | null;
  currency: string | null;
  /** ISO date (YYYY-MM-DD). */
  date: string | null;
  merchant: string | null;
  vat: ReadVatLine[];
  /** Fields read without certainty: shown marked, not filled. */
  unsure: ("total" | "date" | "merchant" | "vat")[];
}

export interface ReadHints {
  /** The person's language: the default day/month order and currency. */
  lang?: ReceiptLanguage;
  /** The payment's currency, when known: the default currency of the receipt. */
  currency?: string;
  /**
   * The text is the file's own (a PDF's text layer), not OCR's: a whole number on the total's
   * line is a whole amount ("Grand Total Rs 1939"), not a thermal print's lost decimal point.
   */
  exact?: boolean;
}
