/**
 * Calendar days as the app carries them: dates of budget lines, issue and validity dates are
 * 'YYYY-MM-DD' strings so no time zone can move them. How dates and times are shown (spec §9,
 * Intl, the person's locale and time zone) is client/shared/intl.ts.
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
