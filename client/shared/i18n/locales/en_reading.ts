/**
 * English, spread by en.ts (which says which part holds what): what the phone read from a
 * receipt and how it compares with the payment (`reading.`).
 */
export const enReading = {
  "reading.busy": "Reading the receipt…",
  "reading.title": "Read from the receipt",
  "reading.total": "Total",
  "reading.date": "Date",
  "reading.merchant": "Merchant",
  "reading.vat": "VAT",
  "reading.vatLine": "VAT {rate} %: {amount}",
  "reading.unsure": "not sure: check it",
  "reading.nothing": "Nothing could be read from this receipt: enter what it says yourself.",
  "reading.unavailable": "This phone cannot read receipts: enter what it says yourself.",
  "reading.matches": "Receipt matches the payment",
  "reading.totalDiffers": "Receipt total {receipt} — payment {payment}",
  "reading.dateDiffers": "Receipt dated {receipt} — payment {payment}",
  "reading.tip": "The payment is {diff} more: a tip?",
  "reading.partial": "The payment is {diff} less: only part charged?",
  "reading.useVat": "Use for VAT",
  "reading.dismiss": "Hide",
  "reading.checksTitle": "Receipts read on the phone",
  "reading.sent": "Read on the phone: {what}",
  "reading.sentMatch": "matches the payment",
  "reading.sentDiffers": "differs from the payment",
  "reading.sendWith": "Send with the receipt",
  "reading.sentWith": "Sent with the receipt",
};
