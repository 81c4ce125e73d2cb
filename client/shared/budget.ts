import { isIsoDay } from "./dates.ts";
import { fromCents, toCents } from "./money.ts";

/**
 * Budget generation (spec §5, §9): lines from a start date, a period, an amount per
 * occurrence and a number of occurrences. The client shows the table; the server rebuilds
 * it with this same function and never trusts lines it is sent.
 */
export type BudgetPeriod = "weekly" | "monthly";
export const BUDGET_PERIODS: readonly BudgetPeriod[] = ["weekly", "monthly"];
/** Enough for two years of weekly lines or ten years of monthly ones. */
export const MAX_OCCURRENCES = 120;

export interface BudgetLine {
  /** Calendar day, 'YYYY-MM-DD'. */
  budgetdate: string;
  budgetamount: number;
  budgetfunded: boolean;
}

export interface BudgetPlan {
  period: BudgetPeriod;
  startDate: string;
  amount: number;
  occurrences: number;
}

function daysInMonth(year: number, month0: number): number {
  return new Date(Date.UTC(year, month0 + 1, 0)).getUTCDate();
}

/**
 * The n-th date after `start`: weekly adds 7·n days; monthly adds n calendar months from
 * the start (not from the previous line), keeping the start's day and clamping it to the
 * month's last day, so Jan 31 gives Feb 28 (Feb 29 in leap years), Mar 31, Apr 30.
 */
export function occurrenceDate(start: string, period: BudgetPeriod, n: number): string {
  const [y, m, d] = start.split("-").map(Number);
  let date: Date;
  if (period === "weekly") {
    date = new Date(Date.UTC(y, m - 1, d + 7 * n));
  } else {
    const month0 = m - 1 + n;
    const year = y + Math.floor(month0 / 12);
    const mo = ((month0 % 12) + 12) % 12;
    date = new Date(Date.UTC(year, mo, Math.min(d, daysInMonth(year, mo))));
  }
  return date.toISOString().slice(0, 10);
}

/**
 * Why a plan cannot make a budget, as a translation key; null when it can. Every line must
 * be a 'YYYY-MM-DD' day (spec §3 budgetdate): a line in the year 10000 would be stored as
 * '+010000-01-31', so a plan reaching it is refused ('budget.badEnd').
 */
export function checkPlan(
  p: BudgetPlan,
): "budget.badStart" | "budget.badAmount" | "budget.badOccurrences" | "budget.badEnd" | null {
  if (!isIsoDay(p.startDate)) return "budget.badStart";
  if (!(p.amount > 0) || !Number.isFinite(p.amount) || toCents(p.amount) / 100 !== p.amount) {
    return "budget.badAmount";
  }
  if (!Number.isInteger(p.occurrences) || p.occurrences < 1 || p.occurrences > MAX_OCCURRENCES) {
    return "budget.badOccurrences";
  }
  // Lines only move forward from the start, so the last one is the latest.
  if (!isIsoDay(occurrenceDate(p.startDate, p.period, p.occurrences - 1))) return "budget.badEnd";
  return null;
}

/** The lines of a valid plan (see {@link checkPlan}); none are funded yet. */
export function generateBudget(p: BudgetPlan): BudgetLine[] {
  const lines: BudgetLine[] = [];
  for (let i = 0; i < p.occurrences; i++) {
    lines.push({
      budgetdate: occurrenceDate(p.startDate, p.period, i),
      budgetamount: p.amount,
      budgetfunded: false,
    });
  }
  return lines;
}

/** spec §5: the total is the sum of the lines and becomes the request amount. */
export function budgetTotal(lines: readonly BudgetLine[]): number {
  return fromCents(lines.reduce((s, l) => s + toCents(l.budgetamount), 0));
}

/**
 * The plan a request's budget lines were generated from (a draft's edit starts from it):
 * start, amount and count from the lines; weekly when the first two are 7 days apart.
 * Null when the lines are not one plan's (none, or amounts or dates that differ).
 */
export function planOfLines(
  lines: readonly Pick<BudgetLine, "budgetdate" | "budgetamount">[],
): BudgetPlan | null {
  if (!lines.length) return null;
  const sorted = [...lines].sort((a, b) => a.budgetdate.localeCompare(b.budgetdate));
  const [y, m, d] = sorted[0].budgetdate.split("-").map(Number);
  const second = sorted[1]?.budgetdate;
  const weekly = !!second &&
    Date.parse(`${second}T00:00:00Z`) - Date.UTC(y, m - 1, d) === 7 * 86_400_000;
  const plan: BudgetPlan = {
    period: weekly ? "weekly" : "monthly",
    startDate: sorted[0].budgetdate,
    amount: sorted[0].budgetamount,
    occurrences: sorted.length,
  };
  const same = generateBudget(plan).every((l, i) =>
    l.budgetdate === sorted[i].budgetdate && l.budgetamount === sorted[i].budgetamount
  );
  return same ? plan : null;
}
