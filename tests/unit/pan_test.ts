import assert from "node:assert/strict";
import {
  brandOfPan,
  generateCvc,
  generatePan,
  luhnCheckDigit,
  luhnValid,
  maskPan,
  randomDigits,
  TEST_BINS,
} from "../../server/issuer/pan.ts";
import type { Brand } from "../../server/issuer/issuer.ts";

Deno.test("[pan] Luhn accepts the networks' published test numbers and nothing one digit off", () => {
  const published = [
    "4242424242424242", // Stripe Visa
    "4000056655665556", // Stripe Visa debit
    "5555555555554444", // Stripe / Adyen Mastercard
    "2223003122003222", // Stripe Mastercard 2-series
    "5200828282828210", // Stripe Mastercard debit
    "4111111111111111", // Adyen Visa
    "79927398713", // the ISO/IEC 7812 worked example
  ];
  for (const n of published) {
    assert.ok(luhnValid(n), n);
    // Any single-digit change breaks the check.
    for (let i = 0; i < n.length; i++) {
      const d = (Number(n[i]) + 1) % 10;
      assert.equal(luhnValid(n.slice(0, i) + d + n.slice(i + 1)), false, `${n} at ${i}`);
    }
  }
  assert.equal(luhnCheckDigit("7992739871"), 3);
  assert.equal(luhnValid(""), false);
  assert.equal(luhnValid("4242 4242 4242 4242"), false);
  assert.equal(luhnValid("abc"), false);
});

Deno.test("[pan] 1,000 generated numbers per brand: 16 digits, Luhn-valid, in test BINs, unique", () => {
  for (const brand of ["visa", "mastercard"] as Brand[]) {
    const seen = new Set<string>();
    const bins = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const pan = generatePan(brand);
      assert.match(pan, /^\d{16}$/);
      assert.ok(luhnValid(pan), "Luhn");
      const bin = pan.slice(0, 6);
      assert.ok(TEST_BINS[brand].includes(bin), `BIN ${bin} for ${brand}`);
      assert.equal(brandOfPan(pan), brand);
      seen.add(pan);
      bins.add(bin);
    }
    assert.equal(seen.size, 1000, `${brand} numbers unique`);
    assert.deepEqual([...bins].sort(), [...TEST_BINS[brand]].sort(), "every BIN drawn");
  }
});

Deno.test("[pan] the test BINs belong to their networks (Visa 4, Mastercard 51–55 / 2221–2720)", () => {
  for (const bin of TEST_BINS.visa) assert.ok(bin.startsWith("4"), bin);
  for (const bin of TEST_BINS.mastercard) {
    const n2 = Number(bin.slice(0, 2));
    const n4 = Number(bin.slice(0, 4));
    assert.ok((n2 >= 51 && n2 <= 55) || (n4 >= 2221 && n4 <= 2720), bin);
  }
  assert.equal(brandOfPan("6011111111111117"), null); // Discover: not ours
});

Deno.test("[pan] CVCs are 3 digits and random digits are uniform", () => {
  for (let i = 0; i < 200; i++) assert.match(generateCvc(), /^\d{3}$/);
  const counts = new Array(10).fill(0);
  const digits = randomDigits(100_000);
  assert.equal(digits.length, 100_000);
  for (const c of digits) counts[Number(c)]++;
  // Each digit expects 10,000; 5 standard deviations (≈ 475) of slack.
  for (const n of counts) assert.ok(Math.abs(n - 10_000) < 500, `digit count ${n}`);
});

Deno.test("[pan] masking keeps only the last four", () => {
  assert.equal(maskPan("4242424242424242"), "•••• 4242");
});
