/**
 * Card numbers for the simulator: 16 digits in the card networks' public test ranges (the BINs
 * Stripe's and Adyen's test cards use), random middle digits, Luhn check digit. Nothing here
 * logs or keeps a number.
 */
import type { Brand } from "./issuer.ts";

/**
 * Test BINs (first six digits). Visa: 424242 (Stripe 4242 4242 4242 4242), 400000 (Stripe's
 * 4000 00… family). Mastercard: 555555 (Stripe/Adyen 5555 5555 5555 4444), 222300 (2-series,
 * Stripe 2223 0031 2200 3222), 520082 (debit, Stripe 5200 8282 8282 8210).
 */
export const TEST_BINS: Readonly<Record<Brand, readonly string[]>> = {
  visa: ["424242", "400000"],
  mastercard: ["555555", "222300", "520082"],
};

export const PAN_LENGTH = 16;

/** The digit that makes `body + digit` pass the Luhn check (ISO/IEC 7812-1). */
export function luhnCheckDigit(body: string): number {
  let sum = 0;
  // Walk from the right; the digit next to the check digit is doubled.
  for (let i = body.length - 1, double = true; i >= 0; i--, double = !double) {
    let d = body.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

/** True for a string of digits whose last digit is its Luhn check digit. */
export function luhnValid(num: string): boolean {
  if (!/^\d{2,}$/.test(num)) return false;
  return luhnCheckDigit(num.slice(0, -1)) === num.charCodeAt(num.length - 1) - 48;
}

/** `n` uniformly random decimal digits from crypto.getRandomValues (no modulo bias). */
export function randomDigits(n: number): string {
  let out = "";
  const buf = new Uint8Array(Math.min(4096, Math.max(8, n * 2)));
  while (out.length < n) {
    crypto.getRandomValues(buf);
    for (const b of buf) {
      // 250 = 25 × 10: bytes above it would favour the low digits.
      if (b < 250 && out.length < n) out += String(b % 10);
    }
  }
  buf.fill(0);
  return out;
}

/** A uniform random pick among at most 256 (the BIN of a brand). */
function pick<T>(xs: readonly T[]): T {
  const limit = 256 - (256 % xs.length);
  const b = new Uint8Array(1);
  do crypto.getRandomValues(b); while (b[0] >= limit);
  return xs[b[0] % xs.length];
}

/** A new Luhn-valid 16-digit number in one of the brand's test BINs. */
export function generatePan(brand: Brand): string {
  const bin = pick(TEST_BINS[brand]);
  const body = bin + randomDigits(PAN_LENGTH - bin.length - 1);
  return body + luhnCheckDigit(body);
}

/** A 3-digit card verification code (Visa CVV2, Mastercard CVC2). */
export function generateCvc(): string {
  return randomDigits(3);
}

/** The brand whose test BIN starts `pan`, or null. */
export function brandOfPan(pan: string): Brand | null {
  for (const brand of Object.keys(TEST_BINS) as Brand[]) {
    if (TEST_BINS[brand].some((bin) => pan.startsWith(bin))) return brand;
  }
  return null;
}

/** Only the last four digits, for display and logs ("•••• 4242"). */
export const maskPan = (pan: string) => `•••• ${pan.slice(-4)}`;
