/**
 * The one formatting module (spec §9 amounts, dates and times, shown the way each language
 * and region writes them): every number, amount, date and time on screen, in mails and push
 * texts goes through `Intl` here. Pure and isomorphic — no DOM: the server imports it too;
 * the app's screens reach it through client/i18n/display.ts, which adds the person's
 * language, region and time-zone choice. Not part of the PIN pad's first load.
 */
import { minorDigits } from "./currency_units.ts";
import { currencySymbol, DEFAULT_CURRENCY } from "./money.ts";

/** A locale as `Intl` takes it: 'de', 'de-AT', 'en-GB'. */
export type LocaleTag = string;

/** How a time is shown: in the device's time zone (default) or in UTC as spec §9 has it. */
export type TimeZoneMode = "device" | "utc";

const cache = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();

/** Formatters are costly to build (a 5,000-row list shows 10,000 values): one per options. */
function cached<T extends Intl.NumberFormat | Intl.DateTimeFormat>(key: string, make: () => T): T {
  let f = cache.get(key) as T | undefined;
  if (!f) {
    if (cache.size > 200) cache.clear();
    f = make();
    cache.set(key, f);
  }
  return f;
}

/**
 * The locale to format with: the language shown, with the browser's region when one of the
 * browser's languages is that language ('de' and ['de-AT', 'en'] → 'de-AT'); else the bare
 * language. A tag `Intl` does not accept falls back to the language.
 */
export function regionalLocale(language: string, browser: readonly string[] = []): LocaleTag {
  const lang = language.slice(0, 2).toLowerCase();
  for (const tag of browser) {
    if (typeof tag !== "string" || tag.slice(0, 2).toLowerCase() !== lang) continue;
    try {
      return Intl.getCanonicalLocales(tag)[0] ?? lang;
    } catch { /* a malformed tag: keep looking */ }
  }
  return lang;
}

/** spec §9 digit info 'minInt.minFrac-maxFrac' ('1.2-2' amounts, '2.0-0' whole numbers). */
function digitInfo(digits: string): [number, number, number] {
  const m = /^(\d+)\.(\d+)-(\d+)$/.exec(digits);
  if (!m) throw new Error(`bad digit info ${digits}`);
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** A number with the locale's marks and the spec's digit info ('1.2-2', '2.0-0'). */
export function formatNumber(value: number, digits = "1.2-2", locale: LocaleTag = "en"): string {
  const [minInt, minFrac, maxFrac] = digitInfo(digits);
  return cached(
    `n|${locale}|${digits}`,
    () =>
      new Intl.NumberFormat(locale, {
        minimumIntegerDigits: minInt,
        minimumFractionDigits: minFrac,
        maximumFractionDigits: maxFrac,
      }),
  ).format(value);
}

/**
 * A number as it goes into an input field: the locale's decimal mark, no grouping
 * ('12,5' in German), so parseAmount reads it back.
 */
export function inputNumber(
  value: number,
  fractionDigits: number,
  locale: LocaleTag = "en",
): string {
  return cached(
    `i|${locale}|${fractionDigits}`,
    () =>
      new Intl.NumberFormat(locale, {
        useGrouping: false,
        minimumFractionDigits: fractionDigits,
        maximumFractionDigits: fractionDigits,
      }),
  ).format(value);
}

/**
 * An amount with its currency, as the locale writes it ('€1,234.50', '1.234,50 €',
 * '1234,50 €', '1 234,50 €'). spec §9's '1.2-2' is the digit rule of two-decimal currencies;
 * a currency with other minor units keeps its own (¥1,235, 1.234,500 KWD). When `Intl` knows
 * no symbol for a currency it shows the code: the spec's symbol list is the fallback there
 * (RSD дин., QAR QR, AED د.إ), and a code `Intl` refuses is shown after the number.
 */
export function formatMoney(
  amount: number,
  currency?: string | null,
  locale: LocaleTag = "en",
  digits = "1.2-2",
): string {
  const code = (currency || DEFAULT_CURRENCY).toUpperCase();
  const minor = minorDigits(code);
  const [, minFrac, maxFrac] = minor === 2 ? digitInfo(digits) : [1, minor, minor];
  let f: Intl.NumberFormat;
  try {
    f = cached(
      `m|${locale}|${code}|${minFrac}|${maxFrac}`,
      () =>
        new Intl.NumberFormat(locale, {
          style: "currency",
          currency: code,
          currencyDisplay: "narrowSymbol",
          minimumFractionDigits: minFrac,
          maximumFractionDigits: maxFrac,
        }),
    ) as Intl.NumberFormat;
  } catch {
    return `${formatNumber(amount, `1.${minFrac}-${maxFrac}`, locale)} ${currencySymbol(code)}`;
  }
  const symbol = currencySymbol(code);
  return f.formatToParts(amount).map((p) =>
    p.type === "currency" && p.value === code ? symbol : p.value
  ).join("");
}

/** A calendar day ('YYYY-MM-DD') or an instant as a number of ms, as the instant's date. */
function toInstant(day: number | string): number {
  return typeof day === "string" ? Date.parse(`${day.slice(0, 10)}T00:00:00Z`) : day;
}

/**
 * spec §9 short date in the locale's order ('11/17/2026', '17/11/2026', '17.11.2026'). Days
 * the app carries ('YYYY-MM-DD': issue dates, budget lines, validity) are calendar days and
 * are shown as written (UTC, no zone can move them); an instant is shown in `timeZone`.
 */
/** The month of a calendar day in words ("April 2027"): how people say when a budget ends. */
export function formatMonth(day: number | string, locale: LocaleTag = "en"): string {
  const at = toInstant(day);
  if (Number.isNaN(at)) return "";
  return cached(
    `m|${locale}`,
    () => new Intl.DateTimeFormat(locale, { month: "long", year: "numeric", timeZone: "UTC" }),
  ).format(at);
}

export function formatDay(
  day: number | string,
  locale: LocaleTag = "en",
  timeZone = "UTC",
): string {
  const at = toInstant(day);
  if (Number.isNaN(at)) return "";
  return (cached(
    `d|${locale}|${timeZone}`,
    () =>
      new Intl.DateTimeFormat(locale, {
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        timeZone,
      }),
  ) as Intl.DateTimeFormat).format(at);
}

/** The time zone this device (or server) runs in, by its IANA name ('Europe/Berlin'). */
export function deviceTimeZone(): string {
  return new Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

/** The zone a mode shows times in. */
export function zoneOf(mode: TimeZoneMode, device = deviceTimeZone()): string {
  return mode === "utc" ? "UTC" : device;
}

/**
 * spec §9 'MM/dd HH:mm': month, day, hours and minutes (24-hour clock) in the locale's order
 * ('11/10, 14:05', '10/11 14:05', '10.11., 14:05'), in `timeZone`; the zone is named
 * ('… UTC', '… MEZ') when it is not the device's own.
 */
export function formatDateTime(
  ms: number,
  locale: LocaleTag = "en",
  timeZone = "UTC",
  device = deviceTimeZone(),
): string {
  if (!Number.isFinite(ms)) return "";
  const named = timeZone !== device;
  return (cached(
    `t|${locale}|${timeZone}|${named}`,
    () =>
      new Intl.DateTimeFormat(locale, {
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        hourCycle: "h23",
        timeZone,
        timeZoneName: named ? "short" : undefined,
      }),
  ) as Intl.DateTimeFormat).format(ms);
}

const DAY = 86_400_000;
const QUARTER = 900_000;
const offsets = new Map<string, number>();

/**
 * The calendar day an instant falls on in `timeZone`, as whole days since 1970-01-01 (so two
 * days subtract). Zones move their offset only at quarter hours: one lookup a quarter hour.
 */
export function dayNumber(ms: number, timeZone = "UTC"): number {
  if (timeZone === "UTC") return Math.floor(ms / DAY);
  const q = Math.floor(ms / QUARTER);
  const key = `${timeZone}|${q}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    const parts = (cached(
      `z|${timeZone}`,
      () =>
        new Intl.DateTimeFormat("en-US", {
          year: "numeric",
          month: "numeric",
          day: "numeric",
          hour: "numeric",
          minute: "numeric",
          hourCycle: "h23",
          timeZone,
        }),
    ) as Intl.DateTimeFormat).formatToParts(q * QUARTER);
    const n = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
    offset = Date.UTC(n("year"), n("month") - 1, n("day"), n("hour"), n("minute")) - q * QUARTER;
    if (offsets.size > 5000) offsets.clear();
    offsets.set(key, offset);
  }
  return Math.floor((ms + offset) / DAY);
}

/** A calendar's words (spec §2 date picker): 'November 2026', 'Tuesday, 17 November 2026', 'T'. */
export function calendarWords(locale: LocaleTag = "en"): {
  month: (ms: number) => string;
  day: (ms: number) => string;
  weekday: (ms: number) => string;
} {
  const f = (o: Intl.DateTimeFormatOptions, k: string) =>
    cached(`c|${locale}|${k}`, () => new Intl.DateTimeFormat(locale, { ...o, timeZone: "UTC" }));
  return {
    month: (ms) => (f({ month: "long", year: "numeric" }, "m") as Intl.DateTimeFormat).format(ms),
    day: (ms) => (f({ dateStyle: "full" }, "d") as Intl.DateTimeFormat).format(ms),
    weekday: (ms) => (f({ weekday: "narrow" }, "w") as Intl.DateTimeFormat).format(ms),
  };
}
