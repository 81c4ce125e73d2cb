import assert from "node:assert/strict";
import type { TransactionRow } from "../../client/shared/contract/transactions.ts";
import {
  amountDisplay,
  daysBetween,
  groupTransactions,
  matchesSearch,
  showsReceipts,
  txGroup,
} from "../../client/lib/transaction_view.ts";

const NOW = Date.parse("2026-03-10T09:30:00Z");
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

function row(over: Partial<TransactionRow> = {}): TransactionRow {
  return {
    oid: crypto.randomUUID(),
    archive: false,
    expenseOid: "e1",
    cardOid: "e1",
    cardId: "R000001",
    transactionStatus: "Captured",
    status: "closed",
    transactionType: "Purchase",
    transactionCreateDate: iso(NOW - HOUR),
    merchantname: "Café de la Gare",
    merchantcity: "Lyon",
    merchantcountry: "FR",
    originalPurpose: "Train to Lyon",
    monetaryAmount: 12.5,
    displayMonetaryAmount: 12.5,
    originalCurrency: "EUR",
    pricingCurrency: "EUR",
    nbReceipts: 0,
    flipExtOid: null,
    movedToExpenseOid: null,
    movedToOid: null,
    refusedReason: null,
    needsAttention: false,
    receiptDueDate: null,
    canFlip: true,
    ...over,
  };
}

Deno.test("[transaction view] groups by UTC calendar day: today, yesterday, 2–7 days last week, older", () => {
  // Midnight UTC is the edge, whatever the time of day now is.
  assert.equal(txGroup("2026-03-10T00:00:00Z", NOW), "today");
  assert.equal(txGroup("2026-03-09T23:59:59Z", NOW), "yesterday");
  assert.equal(txGroup("2026-03-09T00:00:00Z", NOW), "yesterday");
  assert.equal(txGroup("2026-03-08T23:59:59Z", NOW), "lastWeek");
  // spec §9 'last week (older than 7 days)': 7 days back is still last week, 8 is older.
  assert.equal(txGroup("2026-03-03T00:00:00Z", NOW), "lastWeek");
  assert.equal(txGroup("2026-03-02T23:59:59Z", NOW), "older");
  assert.equal(txGroup("2025-01-01T12:00:00Z", NOW), "older");
  // A date a little ahead of the device's clock is today; an unreadable one older.
  assert.equal(txGroup(iso(NOW + 5 * 60_000), NOW), "today");
  assert.equal(txGroup("not a date", NOW), "older");
  assert.equal(daysBetween(Date.parse("2026-03-09T23:00:00Z"), NOW), 1);
});

Deno.test("[transaction view] a late evening in UTC−10 is grouped by Honolulu's day there, by UTC's in UTC", () => {
  const now = Date.parse("2026-03-10T00:30:00Z"); // 14:30 on the 9th in Honolulu
  assert.equal(txGroup("2026-03-09T23:00:00Z", now), "yesterday");
  assert.equal(txGroup("2026-03-10T00:10:00Z", now), "today");
  assert.equal(txGroup("2026-03-09T23:00:00Z", now, "Pacific/Honolulu"), "today");
  assert.equal(txGroup("2026-03-09T09:00:00Z", now, "Pacific/Honolulu"), "yesterday");
});

Deno.test("[transaction view] sections: Moved hidden, newest first, empty groups left out", () => {
  const a = row({ merchantname: "A", transactionCreateDate: iso(NOW - 2 * HOUR) });
  const b = row({ merchantname: "B", transactionCreateDate: iso(NOW - HOUR) });
  const moved = row({ merchantname: "M", transactionStatus: "Moved" });
  const old = row({ merchantname: "O", transactionCreateDate: iso(NOW - 30 * DAY) });
  const week = row({ merchantname: "W", transactionCreateDate: iso(NOW - 3 * DAY) });
  const s = groupTransactions([a, moved, old, b, week], "", NOW);
  assert.deepEqual(
    s.map((x) => [x.group, x.rows.map((r) => r.merchantname)]),
    [["today", ["B", "A"]], ["lastWeek", ["W"]], ["older", ["O"]]],
  );
  assert.deepEqual(groupTransactions([moved], "", NOW), []);
});

Deno.test("[transaction view] search: merchant and purpose (case and accents ignored), amounts", () => {
  const r = row({
    merchantname: "Café de la Gare",
    originalPurpose: "Client visit",
    monetaryAmount: 1234.5,
    displayMonetaryAmount: 1345.99,
    originalCurrency: "USD",
  });
  for (
    const q of [
      "",
      "  ",
      "cafe",
      "GARE",
      "client VIS",
      "1234.5",
      "1234.50",
      "1234,5",
      "1 234,50",
      "1345.99",
      "345,9",
      "€1234",
    ]
  ) {
    assert.ok(matchesSearch(r, q), `'${q}' should match`);
  }
  for (const q of ["lyon", "1234.6", "99.1", "train", "12x"]) {
    assert.ok(!matchesSearch(r, q), `'${q}' should not match`);
  }
  const s = groupTransactions([r, row({ merchantname: "Taxi Bleu" })], "taxi", NOW);
  assert.deepEqual(s.flatMap((x) => x.rows.map((y) => y.merchantname)), ["Taxi Bleu"]);
});

Deno.test("[transaction view] amounts: the merchant's amount beside the card's when they differ", () => {
  assert.deepEqual(amountDisplay(row()), { amount: "€12.50", original: null });
  assert.deepEqual(
    amountDisplay(
      row({ monetaryAmount: 92.1, displayMonetaryAmount: 100, originalCurrency: "USD" }),
    ),
    { amount: "€92.10", original: "$100.00" },
  );
  assert.deepEqual(
    amountDisplay(
      row({ monetaryAmount: 61.4, displayMonetaryAmount: 10000, originalCurrency: "JPY" }),
    ),
    { amount: "€61.40", original: "¥10,000" },
  );
  assert.deepEqual(
    amountDisplay(
      row({ monetaryAmount: 30.25, displayMonetaryAmount: 10.125, originalCurrency: "KWD" }),
      "fr",
    ),
    { amount: "30,25\u00a0€", original: "10,125\u00a0KWD" },
  );
});

Deno.test("[transaction view] receipt-count indicator only when receipts exist (never on refused)", () => {
  assert.equal(showsReceipts(row({ nbReceipts: 0 })), false);
  assert.equal(showsReceipts(row({ nbReceipts: 2 })), true);
  assert.equal(showsReceipts(row({ nbReceipts: 1, transactionStatus: "Refused" })), false);
});

Deno.test("[transaction view] search: the transaction's own fields first, its card's purpose only when nothing else matches", () => {
  const hotel = row({ merchantname: "Hotel Lyon", originalPurpose: "Hotel and meals in Lyon" });
  const meal = row({
    merchantname: "Bouchon Lyonnais",
    originalPurpose: "Hotel and meals in Lyon",
  });
  const taxi = row({ merchantname: "Taxi Bleu", originalPurpose: "Client visit" });
  const names = (q: string) =>
    groupTransactions([hotel, meal, taxi], q, NOW).flatMap((s) =>
      s.rows.map((r) => r.merchantname)
    );
  assert.deepEqual(names("hotel"), ["Hotel Lyon"]);
  // Nothing's own field says "meals": the purpose finds the card's purchases.
  assert.deepEqual(names("meals").sort(), ["Bouchon Lyonnais", "Hotel Lyon"]);
  assert.deepEqual(names("").length, 3);
});
