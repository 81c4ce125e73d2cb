/** Receipt against payment (client/shared/receipt_match.ts). */
import assert from "node:assert/strict";
import { matchPayment, type PaymentSide } from "../../client/shared/receipt_match.ts";
import type { ReadReceipt } from "../../client/shared/receipt_text.ts";

const tx: PaymentSide = {
  monetaryAmount: 54.9,
  pricingCurrency: "EUR",
  displayMonetaryAmount: 54.9,
  originalCurrency: "EUR",
  transactionCreateDate: "2026-11-28T11:41:00Z",
};
const read = (r: Partial<ReadReceipt>): ReadReceipt => ({
  total: 54.9,
  currency: "EUR",
  date: "2026-11-28",
  merchant: "Bistro",
  vat: [],
  unsure: [],
  ...r,
});

Deno.test("[receipt match] same total and date: a match", () => {
  assert.deepEqual(matchPayment(read({}), tx), { kind: "match", differences: [] });
  // A receipt dated up to three days before (a hotel stay) or a day after (zones) still matches.
  assert.equal(matchPayment(read({ date: "2026-11-25" }), tx).kind, "match");
  assert.equal(matchPayment(read({ date: "2026-11-29" }), tx).kind, "match");
});

Deno.test("[receipt match] what differs, with the likely reason", () => {
  assert.deepEqual(matchPayment(read({ total: 45.9 }), tx).differences, [
    { field: "total", receipt: 45.9, payment: 54.9, currency: "EUR", reason: "tip" },
  ]);
  assert.deepEqual(matchPayment(read({ total: 60 }), tx).differences[0], {
    field: "total",
    receipt: 60,
    payment: 54.9,
    currency: "EUR",
    reason: "partial",
  });
  // Far more than a tip: no reason given.
  assert.equal(
    (matchPayment(read({ total: 20 }), tx).differences[0] as { reason: unknown }).reason,
    null,
  );
  assert.deepEqual(matchPayment(read({ date: "2026-11-20" }), tx), {
    kind: "differs",
    differences: [{ field: "date", receipt: "2026-11-20", payment: "2026-11-28" }],
  });
});

Deno.test("[receipt match] never a match on an unsure or missing total", () => {
  assert.equal(matchPayment(read({ unsure: ["total"] }), tx).kind, "unknown");
  assert.equal(matchPayment(read({ total: null }), tx).kind, "unknown");
  // A receipt in a third currency cannot be compared.
  assert.equal(matchPayment(read({ currency: "GBP" }), tx).kind, "unknown");
});

Deno.test("[receipt match] a receipt in the merchant's currency against the amount in it", () => {
  const abroad = { ...tx, originalCurrency: "GBP", displayMonetaryAmount: 47.2 };
  assert.equal(matchPayment(read({ total: 47.2, currency: "GBP" }), abroad).kind, "match");
  // In the card's currency: against what the card was charged.
  assert.equal(matchPayment(read({ total: 54.9, currency: "EUR" }), abroad).kind, "match");
  // No currency read: the merchant's.
  assert.equal(matchPayment(read({ total: 47.2, currency: null }), abroad).kind, "match");
});
