/**
 * Minor units of currencies (ISO 4217 exponents): the issuer counts money in integers of a
 * currency's minor unit (cents for EUR, yen for JPY, fils for KWD), the app shows and sends
 * decimal amounts. Conversions between the two are exact for amounts the currency can hold.
 */

/** ISO 4217 exponents other than 2 (the default). */
const EXPONENTS: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
};

/** Digits after the decimal mark in `currency` (EUR 2, JPY 0, KWD 3). */
export function minorDigits(currency: string): number {
  return EXPONENTS[(currency || "").toUpperCase()] ?? 2;
}

/** An amount in minor units of `currency` (12.34 EUR → 1234; rounds what it cannot hold). */
export function toMinor(amount: number, currency: string): number {
  return Math.round(amount * 10 ** minorDigits(currency));
}

/** Minor units of `currency` as an amount (1234 EUR → 12.34, 1234 JPY → 1234). */
export function fromMinor(minor: number, currency: string): number {
  const d = minorDigits(currency);
  return d === 0 ? minor : Number((minor / 10 ** d).toFixed(d));
}
