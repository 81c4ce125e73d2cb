import assert from "node:assert/strict";
import {
  BUDGET_PERIODS,
  type BudgetLine,
  type BudgetPeriod,
  type BudgetPlan,
  budgetTotal,
  checkPlan,
  generateBudget,
  MAX_OCCURRENCES,
  occurrenceDate,
  planOfLines,
} from "../../client/shared/budget.ts";
import { isIsoDay } from "../../client/shared/dates.ts";
import { checkAmount } from "../../client/shared/request_rules.ts";

const plan = (p: Partial<BudgetPlan> = {}): BudgetPlan => ({
  period: "monthly",
  startDate: "2025-01-15",
  amount: 100,
  occurrences: 3,
  ...p,
});

const dates = (startDate: string, period: BudgetPeriod, occurrences: number) =>
  generateBudget({ startDate, period, occurrences, amount: 1 }).map((l) => l.budgetdate);

const lines = (amount: number, n: number): BudgetLine[] =>
  Array.from({ length: n }, (_, i) => ({
    budgetdate: occurrenceDate("2025-01-01", "monthly", i),
    budgetamount: amount,
    budgetfunded: false,
  }));

Deno.test("[budget] the periods are weekly and monthly", () => {
  assert.deepEqual([...BUDGET_PERIODS], ["weekly", "monthly"]);
});

Deno.test("[budget] the first occurrence is the start date", () => {
  assert.equal(occurrenceDate("2025-03-07", "weekly", 0), "2025-03-07");
  assert.equal(occurrenceDate("2025-03-07", "monthly", 0), "2025-03-07");
  assert.equal(occurrenceDate("2027-01-31", "monthly", 0), "2027-01-31");
});

Deno.test("[budget] weekly steps 7 days", () => {
  assert.deepEqual(dates("2025-03-03", "weekly", 4), [
    "2025-03-03",
    "2025-03-10",
    "2025-03-17",
    "2025-03-24",
  ]);
});

Deno.test("[budget] weekly crosses a month end", () => {
  assert.deepEqual(dates("2025-01-22", "weekly", 3), [
    "2025-01-22",
    "2025-01-29",
    "2025-02-05",
  ]);
  assert.deepEqual(dates("2025-04-28", "weekly", 2), ["2025-04-28", "2025-05-05"]);
});

Deno.test("[budget] weekly crosses a year end", () => {
  assert.deepEqual(dates("2025-12-17", "weekly", 4), [
    "2025-12-17",
    "2025-12-24",
    "2025-12-31",
    "2026-01-07",
  ]);
});

Deno.test("[budget] weekly goes through Feb 29 in a leap year and past Feb 28 otherwise", () => {
  assert.deepEqual(dates("2028-02-22", "weekly", 3), ["2028-02-22", "2028-02-29", "2028-03-07"]);
  assert.deepEqual(dates("2027-02-22", "weekly", 2), ["2027-02-22", "2027-03-01"]);
});

Deno.test("[budget] weekly lines are all exactly 7 days apart over two years", () => {
  const ds = dates("2025-11-30", "weekly", 104);
  assert.equal(ds.length, 104);
  for (let i = 1; i < ds.length; i++) {
    const gap = Date.parse(`${ds[i]}T00:00:00Z`) - Date.parse(`${ds[i - 1]}T00:00:00Z`);
    assert.equal(gap, 7 * 86_400_000, `${ds[i - 1]} -> ${ds[i]}`);
  }
  assert.equal(ds[103], "2027-11-21");
});

Deno.test("[budget] monthly steps one calendar month keeping the day", () => {
  assert.deepEqual(dates("2025-01-15", "monthly", 4), [
    "2025-01-15",
    "2025-02-15",
    "2025-03-15",
    "2025-04-15",
  ]);
});

Deno.test("[budget] monthly from Jan 31 clamps to Feb 28 in a non-leap year without drifting", () => {
  assert.deepEqual(dates("2027-01-31", "monthly", 6), [
    "2027-01-31",
    "2027-02-28",
    "2027-03-31",
    "2027-04-30",
    "2027-05-31",
    "2027-06-30",
  ]);
});

Deno.test("[budget] monthly from Jan 31 clamps to Feb 29 in a leap year without drifting", () => {
  assert.deepEqual(dates("2028-01-31", "monthly", 4), [
    "2028-01-31",
    "2028-02-29",
    "2028-03-31",
    "2028-04-30",
  ]);
});

Deno.test("[budget] monthly from the 30th clamps only in February", () => {
  assert.deepEqual(dates("2027-01-30", "monthly", 3), [
    "2027-01-30",
    "2027-02-28",
    "2027-03-30",
  ]);
});

Deno.test("[budget] monthly from Feb 29 keeps the 29th across years", () => {
  const ds = dates("2028-02-29", "monthly", 49);
  assert.deepEqual(ds.slice(0, 3), ["2028-02-29", "2028-03-29", "2028-04-29"]);
  assert.equal(ds[10], "2028-12-29");
  assert.equal(ds[11], "2029-01-29");
  assert.equal(ds[12], "2029-02-28"); // 2029 is not a leap year
  assert.equal(ds[13], "2029-03-29"); // back to the 29th: computed from the start
  assert.equal(ds[24], "2030-02-28");
  assert.equal(ds[36], "2031-02-28");
  assert.equal(ds[48], "2032-02-29"); // next leap year
});

Deno.test("[budget] 12 monthly lines from Dec 15 run to Nov 15 of the next year", () => {
  assert.deepEqual(dates("2025-12-15", "monthly", 12), [
    "2025-12-15",
    "2026-01-15",
    "2026-02-15",
    "2026-03-15",
    "2026-04-15",
    "2026-05-15",
    "2026-06-15",
    "2026-07-15",
    "2026-08-15",
    "2026-09-15",
    "2026-10-15",
    "2026-11-15",
  ]);
});

Deno.test("[budget] monthly over ten years gives valid days in successive months", () => {
  const ds = dates("2027-01-31", "monthly", MAX_OCCURRENCES);
  assert.equal(ds.length, MAX_OCCURRENCES);
  for (let i = 0; i < ds.length; i++) {
    assert.ok(isIsoDay(ds[i]), ds[i]);
    const [y, m] = ds[i].split("-").map(Number);
    assert.equal((y - 2027) * 12 + (m - 1), i, ds[i]);
  }
  assert.equal(ds[MAX_OCCURRENCES - 1], "2036-12-31");
});

Deno.test("[budget] occurrenceDate does not depend on the previous line", () => {
  // Line n straight from the start equals line n of the generated list.
  const ds = dates("2027-01-31", "monthly", 24);
  for (let n = 0; n < 24; n++) {
    assert.equal(occurrenceDate("2027-01-31", "monthly", n), ds[n]);
  }
});

Deno.test("[budget] budgetTotal is the exact sum in cents", () => {
  assert.equal(budgetTotal(lines(33.33, 3)), 99.99);
  assert.equal(budgetTotal(lines(0.1, 10)), 1);
  assert.equal(budgetTotal(lines(0.1, 3)), 0.3);
  assert.equal(budgetTotal(lines(19.99, 12)), 239.88);
  assert.equal(budgetTotal(lines(1.15, 7)), 8.05);
  assert.equal(budgetTotal(lines(250, 4)), 1000);
});

Deno.test("[budget] budgetTotal sums lines of different amounts and of none", () => {
  assert.equal(budgetTotal([]), 0);
  const ls = [...lines(0.1, 1), ...lines(0.2, 1), ...lines(12.34, 1)];
  assert.equal(budgetTotal(ls), 12.64);
});

Deno.test("[budget] the total of a generated budget becomes a valid request amount", () => {
  const total = budgetTotal(generateBudget(plan({ amount: 33.33, occurrences: 3 })));
  assert.equal(total, 99.99);
  assert.equal(checkAmount(total, { minAmount: 20, maxAmount: 5000, isRecurring: true }), null);
});

Deno.test("[budget] checkPlan accepts valid plans", () => {
  assert.equal(checkPlan(plan()), null);
  assert.equal(checkPlan(plan({ period: "weekly" })), null);
  assert.equal(checkPlan(plan({ startDate: "2028-02-29" })), null);
  assert.equal(checkPlan(plan({ amount: 0.01 })), null);
  assert.equal(checkPlan(plan({ amount: 33.33 })), null);
  assert.equal(checkPlan(plan({ amount: 12.5 })), null);
  assert.equal(checkPlan(plan({ occurrences: 1 })), null);
  assert.equal(checkPlan(plan({ occurrences: MAX_OCCURRENCES })), null);
});

Deno.test("[budget] checkPlan refuses a start date that is not a real day", () => {
  for (const startDate of ["2025-02-30", "x", "", "2025-02-29", "2025-13-01", "2025/01/15"]) {
    assert.equal(checkPlan(plan({ startDate })), "budget.badStart", startDate);
  }
});

Deno.test("[budget] checkPlan refuses an amount that is not positive money", () => {
  for (const amount of [0, -1, -0.01, 1.234, 0.001, NaN, Infinity, -Infinity]) {
    assert.equal(checkPlan(plan({ amount })), "budget.badAmount", String(amount));
  }
});

Deno.test("[budget] checkPlan refuses an occurrence count outside 1..MAX_OCCURRENCES", () => {
  for (const occurrences of [0, -1, 1.5, MAX_OCCURRENCES + 1, NaN, Infinity]) {
    assert.equal(checkPlan(plan({ occurrences })), "budget.badOccurrences", String(occurrences));
  }
});

Deno.test("[budget] checkPlan reports the start date first, then the amount", () => {
  assert.equal(checkPlan(plan({ startDate: "x", amount: 0, occurrences: 0 })), "budget.badStart");
  assert.equal(checkPlan(plan({ amount: 0, occurrences: 0 })), "budget.badAmount");
});

Deno.test("[budget] checkPlan refuses a plan whose last line falls in the year 10000", () => {
  for (
    const p of [
      plan({ startDate: "9999-12-31", occurrences: 2 }),
      plan({ startDate: "9999-12-31", period: "weekly", occurrences: 2 }),
      plan({ startDate: "9999-02-28", occurrences: 12 }),
      plan({ startDate: "9998-01-01", occurrences: MAX_OCCURRENCES }),
      plan({ startDate: "9997-12-31", period: "weekly", occurrences: MAX_OCCURRENCES }),
    ]
  ) {
    assert.equal(checkPlan(p), "budget.badEnd", JSON.stringify(p));
  }
});

Deno.test("[budget] checkPlan accepts a plan whose last line is in 9999, every line a day", () => {
  for (
    const p of [
      plan({ startDate: "9999-12-31", occurrences: 1 }),
      plan({ startDate: "9999-12-24", period: "weekly", occurrences: 2 }),
      plan({ startDate: "9999-01-31", occurrences: 12 }),
      plan({ startDate: "9990-01-01", occurrences: MAX_OCCURRENCES }),
    ]
  ) {
    assert.equal(checkPlan(p), null, JSON.stringify(p));
    const ls = generateBudget(p);
    assert.ok(ls.every((l) => isIsoDay(l.budgetdate)), JSON.stringify(ls.at(-1)));
    assert.match(ls.at(-1)!.budgetdate, /^9999-\d\d-\d\d$/);
  }
});

Deno.test("[budget] checkPlan checks the end only once start, amount and count are valid", () => {
  const far = { startDate: "9999-12-31", occurrences: 2 };
  assert.equal(checkPlan(plan({ ...far, amount: 0 })), "budget.badAmount");
  assert.equal(checkPlan(plan({ startDate: "+10000-01-01" })), "budget.badStart");
  assert.equal(checkPlan(plan({ startDate: "10000-01-01" })), "budget.badStart");
});

Deno.test("[budget] generateBudget makes one unfunded line per occurrence", () => {
  for (const occurrences of [1, 3, 12, MAX_OCCURRENCES]) {
    for (const period of BUDGET_PERIODS) {
      const ls = generateBudget(plan({ period, occurrences, amount: 42.5 }));
      assert.equal(ls.length, occurrences, `${period} ${occurrences}`);
      for (const l of ls) {
        assert.equal(l.budgetfunded, false);
        assert.equal(l.budgetamount, 42.5);
        assert.ok(isIsoDay(l.budgetdate), l.budgetdate);
      }
    }
  }
});

Deno.test("[budget] generateBudget lines carry exactly date, amount and funded flag", () => {
  assert.deepEqual(generateBudget(plan({ period: "weekly", occurrences: 2, amount: 10 })), [
    { budgetdate: "2025-01-15", budgetamount: 10, budgetfunded: false },
    { budgetdate: "2025-01-22", budgetamount: 10, budgetfunded: false },
  ]);
});

Deno.test("[budget] generateBudget total equals amount times occurrences", () => {
  const ls = generateBudget(plan({ period: "weekly", amount: 0.1, occurrences: 10 }));
  assert.equal(budgetTotal(ls), 1);
});

Deno.test("[budget] a draft's lines give back the plan they came from, or null when they are not one plan's", () => {
  for (
    const plan of [
      { period: "monthly", startDate: "2030-01-31", amount: 49.9, occurrences: 3 },
      { period: "weekly", startDate: "2030-12-27", amount: 10, occurrences: 4 },
      { period: "monthly", startDate: "2030-05-01", amount: 5, occurrences: 1 },
    ] as const
  ) {
    assert.deepEqual(planOfLines(generateBudget(plan)), plan);
  }
  assert.equal(planOfLines([]), null);
  const lines = generateBudget({
    period: "monthly",
    startDate: "2030-01-31",
    amount: 20,
    occurrences: 3,
  });
  lines[2] = { ...lines[2], budgetamount: 25 };
  assert.equal(planOfLines(lines), null);
});
