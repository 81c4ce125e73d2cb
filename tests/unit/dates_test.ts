import assert from "node:assert/strict";
import { isIsoDay, isoDay } from "../../client/shared/dates.ts";

const utc = (y: number, m: number, d: number, h = 0, mi = 0, s = 0) =>
  Date.UTC(y, m - 1, d, h, mi, s);

Deno.test("[dates] isoDay writes the UTC calendar day of a timestamp", () => {
  assert.equal(isoDay(utc(2025, 3, 7)), "2025-03-07");
  assert.equal(isoDay(utc(2025, 12, 31, 12)), "2025-12-31");
  assert.equal(isoDay(utc(2028, 2, 29)), "2028-02-29");
  assert.equal(isoDay(0), "1970-01-01");
});

Deno.test("[dates] isoDay uses UTC at the edges of the day", () => {
  assert.equal(isoDay(utc(2025, 12, 31, 23, 59, 59)), "2025-12-31");
  assert.equal(isoDay(utc(2026, 1, 1, 0, 0, 0)), "2026-01-01");
  assert.equal(isoDay(utc(2026, 1, 1) - 1), "2025-12-31");
});

Deno.test("[dates] isoDay round-trips through isIsoDay", () => {
  for (let ms = utc(2027, 1, 1); ms < utc(2029, 1, 1); ms += 86_400_000) {
    const day = isoDay(ms);
    assert.ok(isIsoDay(day), day);
    assert.equal(Date.parse(`${day}T00:00:00Z`), ms);
  }
});

Deno.test("[dates] isIsoDay accepts real calendar days", () => {
  for (
    const s of ["2025-01-01", "2025-12-31", "2025-02-28", "2028-02-29", "2000-02-29", "2025-04-30"]
  ) {
    assert.equal(isIsoDay(s), true, s);
  }
});

Deno.test("[dates] isIsoDay refuses days that do not exist", () => {
  for (
    const s of [
      "2025-02-29", // 2025 is not a leap year
      "2025-02-30",
      "2100-02-29", // century not divisible by 400
      "2025-04-31",
      "2025-13-01",
      "2025-00-10",
      "2025-01-00",
      "2025-01-32",
    ]
  ) {
    assert.equal(isIsoDay(s), false, s);
  }
});

Deno.test("[dates] isIsoDay knows 2028-02-29 exists and 2025-02-29 does not", () => {
  assert.equal(isIsoDay("2028-02-29"), true);
  assert.equal(isIsoDay("2025-02-29"), false);
});

Deno.test("[dates] isIsoDay refuses anything not written YYYY-MM-DD", () => {
  for (
    const s of [
      "",
      "x",
      "2025-3-7",
      "2025/03/07",
      "07-03-2025",
      "2025-03-07T00:00:00Z",
      " 2025-03-07",
      "2025-03-07 ",
      "20250307",
      "25-03-07",
    ]
  ) {
    assert.equal(isIsoDay(s), false, JSON.stringify(s));
  }
});
