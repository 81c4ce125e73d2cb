/**
 * Dates as the app shows them (spec §9: short date and 'MM/dd HH:mm', in UTC). Dates of
 * budget lines are calendar days, carried as 'YYYY-MM-DD' strings so no time zone can
 * move them.
 */

const pad = (n: number) => String(n).padStart(2, "0");

/** 'YYYY-MM-DD' of a timestamp, in UTC. */
export function isoDay(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** True for a real calendar day written 'YYYY-MM-DD' (2025-02-30 is not one). */
export function isIsoDay(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return d.getUTCFullYear() === +m[1] && d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3];
}

/** spec §9 short date, in UTC: 'MM/dd/yyyy' in English, 'dd/MM/yyyy' in French. */
export function shortDate(ms: number | string, locale = "en"): string {
  const d = new Date(typeof ms === "string" ? `${ms.slice(0, 10)}T00:00:00Z` : ms);
  const [y, mo, da] = [d.getUTCFullYear(), pad(d.getUTCMonth() + 1), pad(d.getUTCDate())];
  return locale.startsWith("fr") ? `${da}/${mo}/${y}` : `${mo}/${da}/${y}`;
}

/** spec §9 'MM/dd HH:mm', in UTC. */
export function shortDateTime(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${
    pad(d.getUTCMinutes())
  }`;
}
