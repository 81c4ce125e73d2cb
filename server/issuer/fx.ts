/**
 * Currencies at the issuer (spec §3 Transaction originalCurrency, pricingCurrency): ISO 4217 minor
 * units and the simulator's rate table. A purchase in any currency of the table is converted to the
 * card's currency exactly: the rates are decimal strings read into integers (never floats), the
 * product is formed in BigInt and rounded once, half up (commercial rounding), to the card
 * currency's minor unit. Rates are quoted per 1 unit of the base currency (EUR), so a cross rate X
 * → Y is the exact ratio of two table entries, not a rounded intermediate.
 */
import { minorDigits } from "../../client/shared/currency_units.ts";
import { IssuerError } from "./errors.ts";

/** Digits after the decimal mark of a currency's minor unit (EUR 2, JPY 0, KWD 3): ISO 4217. */
export const exponentOf = (currency: string): number => minorDigits(currency);

export interface RateTable {
  /** The currency every rate is quoted against. */
  base: string;
  /** The day the rates were taken (informational). */
  asOf: string;
  /** Units of the currency for 1 unit of the base, as a decimal string ("1.0840"). */
  rates: Readonly<Record<string, string>>;
}

/** The simulator's default table: fixed, so tests and demos see the same figures every day. */
export const DEFAULT_RATES: RateTable = {
  base: "EUR",
  asOf: "2026-01-02",
  rates: {
    EUR: "1",
    USD: "1.0840",
    GBP: "0.8560",
    CHF: "0.9480",
    JPY: "162.50",
    PLN: "4.3150",
    RON: "4.9750",
    RSD: "117.10",
    SEK: "11.2300",
    NOK: "11.5800",
    DKK: "7.4600",
    CZK: "25.120",
    HUF: "395.40",
    CAD: "1.4700",
    AUD: "1.6400",
    QAR: "3.9460",
    AED: "3.9810",
    KWD: "0.3330",
    CNY: "7.8400",
    INR: "90.250",
  },
};

const SCALE = 6;
const DECIMAL = /^\d{1,9}(\.\d{1,6})?$/;

/** A rate string as an integer of millionths. */
function micros(rate: string): bigint {
  if (!DECIMAL.test(rate)) throw new RangeError(`bad rate ${rate}`);
  const [int, frac = ""] = rate.split(".");
  return BigInt(int + frac.padEnd(SCALE, "0"));
}

/** Checks a table once (every rate positive, the base at 1). */
export function checkRates(t: RateTable): RateTable {
  for (const [code, rate] of Object.entries(t.rates)) {
    if (!/^[A-Z]{3}$/.test(code) || micros(rate) <= 0n) throw new RangeError(`bad rate ${code}`);
  }
  if (micros(t.rates[t.base] ?? "0") !== 1_000_000n) throw new RangeError("base must be 1");
  return t;
}

/** The locked terms of one conversion, kept on the authorization (captures reuse them). */
export interface FxTerms {
  from: string;
  to: string;
  /** Table entries of both currencies at the decision. */
  fromPerBase: string;
  toPerBase: string;
  /** For display only: 1 `from` = `rate` `to`, 6 decimals (the computation is exact). */
  rate: string;
}

/** The terms to convert `from` → `to` with `table`; null when a currency is not in it. */
export function termsFor(table: RateTable, from: string, to: string): FxTerms | null {
  const f = table.rates[from];
  const t = table.rates[to];
  if (!f || !t) return null;
  const r = divRound(micros(t) * 10n ** BigInt(SCALE), micros(f));
  const s = r.toString().padStart(SCALE + 1, "0");
  return {
    from,
    to,
    fromPerBase: f,
    toPerBase: t,
    rate: `${s.slice(0, -SCALE)}.${s.slice(-SCALE)}`,
  };
}

/** a / b rounded half up, for non-negative integers. */
function divRound(a: bigint, b: bigint): bigint {
  const q = a / b;
  return 2n * (a % b) >= b ? q + 1n : q;
}

/**
 * `amount` minor units of `terms.from` in minor units of `terms.to`:
 * amount × (to/base ÷ from/base) × 10^(e_to − e_from), rounded half up once.
 */
export function convert(terms: FxTerms | null, amount: number): number {
  if (!Number.isSafeInteger(amount) || amount < 0) {
    throw new IssuerError("invalid_request", "amount must be a non-negative integer");
  }
  if (!terms || terms.from === terms.to) return amount;
  const ef = exponentOf(terms.from);
  const et = exponentOf(terms.to);
  const num = BigInt(amount) * micros(terms.toPerBase) * 10n ** BigInt(et);
  const den = micros(terms.fromPerBase) * 10n ** BigInt(ef);
  const out = divRound(num, den);
  if (out > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new IssuerError("invalid_request", "amount too large to convert");
  }
  return Number(out);
}

/** Minor units as a decimal text in the currency ("1234" EUR → "12.34", JPY → "1234"). */
export function formatMinor(amount: number, currency: string): string {
  const e = exponentOf(currency);
  if (e === 0) return String(amount);
  const s = String(Math.abs(amount)).padStart(e + 1, "0");
  return `${amount < 0 ? "-" : ""}${s.slice(0, -e)}.${s.slice(-e)}`;
}

/**
 * A decimal amount as minor units of `currency`, exactly ("12.3" EUR → 1230); null when it
 * has more decimals than the currency or is not a positive decimal.
 */
export function parseMinor(text: string | number, currency: string): number | null {
  const s = typeof text === "number" ? numberText(text) : text.trim();
  const m = /^(\d{1,15})(?:\.(\d+))?$/.exec(s);
  if (!m) return null;
  const e = exponentOf(currency);
  const frac = (m[2] ?? "").replace(/0+$/, "");
  if (frac.length > e) return null;
  const n = Number(m[1] + frac.padEnd(e, "0"));
  return Number.isSafeInteger(n) ? n : null;
}

/** A JS number as plain decimal text (no exponent), for parseMinor. */
function numberText(n: number): string {
  if (!Number.isFinite(n) || n < 0) return "";
  return n.toLocaleString("en-US", { useGrouping: false, maximumFractionDigits: 20 });
}
