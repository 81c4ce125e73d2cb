import { useState } from "react";
import { useSignals } from "@preact/signals-react/runtime";
import { t } from "../i18n/index.ts";
import { formatLocale } from "../i18n/display.ts";
import { calendarWords } from "../shared/intl.ts";
import { isIsoDay, isoDay } from "../shared/dates.ts";

/** spec §2 reusable date-picker panel: one month at a time, days as buttons, in UTC. */
export function DatePicker(props: { value: string; onPick: (isoDay: string) => void }) {
  useSignals();
  const start = isIsoDay(props.value) ? props.value : isoDay(Date.now());
  const [month, setMonth] = useState(() => {
    const [y, m] = start.split("-").map(Number);
    return { y, m: m - 1 };
  });
  const first = new Date(Date.UTC(month.y, month.m, 1));
  const days = new Date(Date.UTC(month.y, month.m + 1, 0)).getUTCDate();
  // Weeks start on Monday.
  const lead = (first.getUTCDay() + 6) % 7;
  const words = calendarWords(formatLocale());
  const title = words.month(first.getTime());
  const dayName = { format: (d: Date) => words.day(d.getTime()) };
  const weekdays = [...Array(7)].map((_, i) => words.weekday(Date.UTC(2024, 0, 1 + i)));
  const shift = (n: number) => {
    const d = new Date(Date.UTC(month.y, month.m + n, 1));
    setMonth({ y: d.getUTCFullYear(), m: d.getUTCMonth() });
  };
  return (
    <div className="date-picker">
      <div className="date-head">
        <button
          type="button"
          className="icon-button"
          aria-label={t("date.prev")}
          onClick={() => shift(-1)}
        >
          ‹
        </button>
        <strong aria-live="polite">{title}</strong>
        <button
          type="button"
          className="icon-button"
          aria-label={t("date.next")}
          onClick={() => shift(1)}
        >
          ›
        </button>
      </div>
      <div className="date-grid" role="group" aria-label={title}>
        {weekdays.map((w, i) => (
          <span key={`w${i}`} className="weekday" aria-hidden="true">{w}</span>
        ))}
        {[...Array(lead)].map((_, i) => <span key={`l${i}`} />)}
        {[...Array(days)].map((_, i) => {
          const ms = Date.UTC(month.y, month.m, i + 1);
          const iso = isoDay(ms);
          return (
            <button
              type="button"
              key={iso}
              data-date={iso}
              className={`day${iso === props.value ? " selected" : ""}`}
              aria-pressed={iso === props.value}
              aria-label={dayName.format(new Date(ms))}
              onClick={() => props.onPick(iso)}
            >
              {i + 1}
            </button>
          );
        })}
      </div>
    </div>
  );
}
