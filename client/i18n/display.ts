/**
 * What screens call to show numbers, amounts, dates and times (spec §9, through
 * client/shared/intl.ts): in the language shown with the browser's region when it is that
 * language's (de-AT, fr-CH, es-MX…), times in the device's time zone or in UTC as chosen in
 * Options. Each function reads the signals it depends on, so a component that shows a value
 * re-renders when the language or the zone changes. Reached from the main screen's chunk
 * only: the PIN pad's first load carries none of it.
 */
import { signal } from "@preact/signals-react";
import { locale, t, type TranslationKey } from "./index.ts";
import * as intl from "../shared/intl.ts";
import type { TransactionRow } from "../shared/contract/transactions.ts";
import * as view from "../lib/transaction_view.ts";
import { sizeText as fileSize } from "../lib/file_display.ts";
import { refusedAbbreviation, refusedKind } from "../shared/transaction_rules.ts";

const ZONE_KEY = "qc_time_zone";

function storedMode(): intl.TimeZoneMode {
  try {
    return localStorage.getItem(ZONE_KEY) === "utc" ? "utc" : "device";
  } catch {
    return "device";
  }
}

/** Options' time-zone choice (spec §9 'MM/dd HH:mm' in UTC, or the device's zone: default). */
export const timeZoneMode = signal<intl.TimeZoneMode>(storedMode());

/** Options: times in UTC (spec §9) or in the device's zone; kept on the device. */
export function setTimeZoneMode(mode: intl.TimeZoneMode): void {
  try {
    if (mode === "utc") localStorage.setItem(ZONE_KEY, "utc");
    else localStorage.removeItem(ZONE_KEY);
  } catch { /* private mode: the choice lasts this session */ }
  timeZoneMode.value = mode;
}

function browserTags(): readonly string[] {
  if (typeof navigator === "undefined") return [];
  return navigator.languages?.length ? navigator.languages : [navigator.language];
}

/** The locale values are formatted in: the language shown, with the browser's region. */
export function formatLocale(lang: string = locale.value): intl.LocaleTag {
  return intl.regionalLocale(lang, browserTags());
}

/** The zone times are shown and transactions grouped in. */
export function displayZone(): string {
  return intl.zoneOf(timeZoneMode.value);
}

/** An amount with its currency ('1.234,50 €'). */
export function formatMoney(amount: number, currency?: string | null, lang?: string): string {
  return intl.formatMoney(amount, currency, formatLocale(lang));
}

/** A number with the spec's digit info ('1.2-2', '2.0-0'). */
export function formatNumber(value: number, digits = "1.2-2", lang?: string): string {
  return intl.formatNumber(value, digits, formatLocale(lang));
}

/** spec §9 short date of a calendar day ('YYYY-MM-DD') or an instant. */
export function shortDate(day: number | string, lang?: string): string {
  // A day written 'YYYY-MM-DD' is a calendar day (no zone moves it); an instant is shown
  // on its day in the chosen zone.
  return intl.formatDay(day, formatLocale(lang), typeof day === "string" ? "UTC" : displayZone());
}

/** The month of a calendar day in words ("April 2027"). */
export function monthName(day: string, lang?: string): string {
  return intl.formatMonth(day.slice(0, 10), formatLocale(lang));
}

/** spec §9 'MM/dd HH:mm' in the language's order and the chosen zone (named if not the device's). */
export function shortDateTime(ms: number, lang?: string): string {
  return intl.formatDateTime(ms, formatLocale(lang), displayZone());
}

/** The amounts of a transaction row (spec §2), formatted for the person. */
export function amountDisplay(
  r: Parameters<typeof view.amountDisplay>[0],
  lang?: string,
): { amount: string; original: string | null } {
  return view.amountDisplay(r, formatLocale(lang));
}

/** The Transactions tab's sections, days counted in the zone the times are shown in. */
export function groupTransactions<R extends TransactionRow>(
  rows: readonly R[],
  query: string,
  now: number,
): view.TxSection<R>[] {
  return view.groupTransactions(rows, query, now, displayZone());
}

/** A file's size ('2,4 MB'). */
export function sizeText(bytes: number, lang?: string): string {
  return fileSize(bytes, formatLocale(lang));
}

/**
 * An amount as an input field shows it: the locale's decimal mark, no grouping ('12,50'),
 * which parseAmount reads back. A text is a machine amount ('12.50') and keeps its digits.
 */
export function inputAmount(value: number | string | null | undefined, digits = 2): string {
  if (value === null || value === undefined || value === "") return "";
  const n = Number(value);
  if (!Number.isFinite(n)) return String(value);
  const d = typeof value === "string" ? (value.split(".")[1] ?? "").length : digits;
  return intl.inputNumber(n, d, formatLocale());
}

/**
 * spec §8 refused reason as a short translated label (a reason the spec does not name: its
 * abbreviation, untranslated).
 */
export function refusedLabel(reason: string | null | undefined): string {
  const kind = refusedKind(reason);
  return kind ? t(`refused.${kind}` as TranslationKey) : refusedAbbreviation(reason);
}

/** The translated sentence that explains a refused reason in the detail ('' when unknown). */
export function refusedText(reason: string | null | undefined): string {
  const kind = refusedKind(reason);
  return kind ? t(`refused.${kind}.text` as TranslationKey) : "";
}
