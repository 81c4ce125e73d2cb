import assert from "node:assert/strict";
import {
  CURRENCY_SYMBOLS,
  currencySymbol,
  DEFAULT_CURRENCY,
  fromCents,
  isLargeAmount,
  isMoney,
  LARGE_AMOUNT,
  parseAmount,
  splitAmount,
  sumAmounts,
  toCents,
} from "../../client/shared/money.ts";

const NNBSP = "\u202f"; // French grouping mark (narrow no-break space)

Deno.test("[money] isLargeAmount is strictly over 10000", () => {
  assert.equal(LARGE_AMOUNT, 10000);
  assert.equal(isLargeAmount(10000), false);
  assert.equal(isLargeAmount(10000.01), true);
  assert.equal(isLargeAmount(9999.99), false);
  assert.equal(isLargeAmount(10001), true);
  assert.equal(isLargeAmount(1_000_000), true);
  assert.equal(isLargeAmount(0), false);
  assert.equal(isLargeAmount(-20000), false);
});

Deno.test("[money] currencySymbol knows the spec's currencies", () => {
  const want: Record<string, string> = {
    EUR: "€",
    GBP: "£",
    USD: "$",
    JPY: "¥",
    RSD: "дин.",
    PLN: "zł",
    QAR: "QR",
    AED: "د.إ",
    RON: "lei",
  };
  for (const [code, symbol] of Object.entries(want)) {
    assert.equal(currencySymbol(code), symbol, code);
  }
  assert.deepEqual(Object.keys(CURRENCY_SYMBOLS).sort(), Object.keys(want).sort());
});

Deno.test("[money] currencySymbol ignores the code's case", () => {
  assert.equal(currencySymbol("usd"), "$");
  assert.equal(currencySymbol("Gbp"), "£");
});

Deno.test("[money] currencySymbol shows an unknown code as the code itself", () => {
  assert.equal(currencySymbol("CHF"), "CHF");
  assert.equal(currencySymbol("SEK"), "SEK");
  assert.equal(currencySymbol("XYZ"), "XYZ");
});

Deno.test("[money] currencySymbol defaults to EUR when no code is given", () => {
  assert.equal(DEFAULT_CURRENCY, "EUR");
  assert.equal(currencySymbol(""), "€");
  assert.equal(currencySymbol(null), "€");
  assert.equal(currencySymbol(undefined), "€");
});

Deno.test("[money] toCents and fromCents round-trip two-decimal amounts", () => {
  assert.equal(toCents(12.34), 1234);
  assert.equal(toCents(0.1), 10);
  assert.equal(toCents(1.15), 115); // 1.15 * 100 = 114.99999999999999
  assert.equal(toCents(0), 0);
  assert.equal(fromCents(1234), 12.34);
  assert.equal(fromCents(toCents(19.99)), 19.99);
});

Deno.test("[money] sumAmounts is exact in cents", () => {
  assert.equal(sumAmounts([0.1, 0.2]), 0.3);
  assert.equal(sumAmounts(Array(10).fill(0.1)), 1);
  assert.equal(sumAmounts([33.33, 33.33, 33.33]), 99.99);
  assert.equal(sumAmounts([1.15, 2.3, 4.45]), 7.9);
  assert.equal(sumAmounts([19.99, 0.01]), 20);
});

Deno.test("[money] sumAmounts of nothing is 0 and of one amount is that amount", () => {
  assert.equal(sumAmounts([]), 0);
  assert.equal(sumAmounts([42.5]), 42.5);
});

Deno.test("[money] isMoney accepts finite non-negative amounts with at most two decimals", () => {
  for (const a of [0, 1, 12.5, 12.34, 0.01, 0.1, 0.3, 99.99, 10000.01, 1_000_000]) {
    assert.equal(isMoney(a), true, String(a));
  }
});

Deno.test("[money] isMoney refuses negatives, three decimals and non-finite numbers", () => {
  for (const a of [-1, -0.01, 1.234, 0.001, 12.345, NaN, Infinity, -Infinity]) {
    assert.equal(isMoney(a), false, String(a));
  }
});

Deno.test("[money] splitAmount gives the whole and two-digit fraction parts", () => {
  assert.deepEqual(splitAmount(1234.5), { fullamount: "1234", fractionamount: "50" });
  assert.deepEqual(splitAmount(12.34), { fullamount: "12", fractionamount: "34" });
  assert.deepEqual(splitAmount(7), { fullamount: "7", fractionamount: "00" });
  assert.deepEqual(splitAmount(0), { fullamount: "0", fractionamount: "00" });
  assert.deepEqual(splitAmount(0.05), { fullamount: "0", fractionamount: "05" });
  assert.deepEqual(splitAmount(0.1 + 0.2), { fullamount: "0", fractionamount: "30" });
});

Deno.test("[money] splitAmount does not group and keeps a minus sign on the whole part", () => {
  assert.deepEqual(splitAmount(1234567.89), { fullamount: "1234567", fractionamount: "89" });
  assert.deepEqual(splitAmount(-3.25), { fullamount: "-3", fractionamount: "25" });
});

Deno.test("[money] parseAmount reads what a person types", () => {
  assert.equal(parseAmount("12"), 12);
  assert.equal(parseAmount("12.5"), 12.5);
  assert.equal(parseAmount("12.50"), 12.5);
  assert.equal(parseAmount("12,50"), 12.5);
  assert.equal(parseAmount("12,5"), 12.5);
  assert.equal(parseAmount("1 234,5"), 1234.5);
  assert.equal(parseAmount(`1${NNBSP}234,5`), 1234.5);
  assert.equal(parseAmount("1\u00a0234,56"), 1234.56);
  assert.equal(parseAmount("  42  "), 42);
  assert.equal(parseAmount("0"), 0);
  assert.equal(parseAmount("0,01"), 0.01);
});

Deno.test("[money] parseAmount refuses what is not money", () => {
  for (
    const t of ["12.345", "12,345", "abc", "-3", "", "   ", "1.2.3", "12.", ".5", "1e3", "$12"]
  ) {
    assert.ok(Number.isNaN(parseAmount(t)), JSON.stringify(t));
  }
});

Deno.test("[money] parseAmount's results are money", () => {
  for (const t of ["12", "12.5", "12,50", "1 234,5", "0,01", "99.99"]) {
    assert.equal(isMoney(parseAmount(t)), true, t);
  }
});
