import assert from "node:assert/strict";
import type { TransactionRow } from "../../client/shared/contract/transactions.ts";
import {
  byReceiptDue,
  dueState,
  needsReceiptNow,
  splitNeedsReceipt,
} from "../../client/lib/receipts_due.ts";
import { groupTransactions } from "../../client/lib/transaction_view.ts";
import { headOf } from "../../client/actions/transaction_lists.ts";

const NOW = Date.parse("2026-03-10T09:30:00Z");
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

/** A captured purchase bought `ago` ms before NOW, its receipt due 7 days after. */
function row(name: string, ago: number, over: Partial<TransactionRow> = {}): TransactionRow {
  const at = NOW - ago;
  const due = at + 7 * DAY;
  return {
    oid: name,
    archive: false,
    expenseOid: "e1",
    cardOid: "e1",
    cardId: "R000001",
    transactionStatus: "Captured",
    status: "closed",
    transactionType: "Purchase",
    transactionCreateDate: iso(at),
    merchantname: name,
    merchantcity: "Lyon",
    merchantcountry: "FR",
    originalPurpose: "Client visit",
    monetaryAmount: 10,
    displayMonetaryAmount: 10,
    originalCurrency: "EUR",
    pricingCurrency: "EUR",
    nbReceipts: 0,
    flipExtOid: null,
    movedToExpenseOid: null,
    movedToOid: null,
    refusedReason: null,
    needsAttention: due <= NOW,
    receiptDueDate: iso(due),
    canFlip: true,
    ...over,
  };
}

Deno.test("[receipts due] a purchase needs a receipt while it has a due date and no receipt, overdue or not", () => {
  assert.equal(needsReceiptNow(row("fresh", HOUR)), true);
  assert.equal(needsReceiptNow(row("late", 10 * DAY)), true);
  // The server gave no due date: refused, refunds, declared, reviewed, receipts in.
  assert.equal(needsReceiptNow(row("refused", HOUR, { receiptDueDate: null })), false);
  // A receipt attached on this phone (its count) takes it off before the list is read again.
  assert.equal(needsReceiptNow(row("attached", HOUR, { nbReceipts: 1 })), false);
  assert.equal(needsReceiptNow(row("moved", HOUR, { transactionStatus: "Moved" })), false);
});

Deno.test("[receipts due] overdue first (longest overdue on top), then by due date", () => {
  const rows = [
    row("today", HOUR),
    row("late3", 10 * DAY),
    row("done", 2 * DAY, { nbReceipts: 1 }),
    row("soon", 6 * DAY),
    row("late9", 16 * DAY),
    // Its time is up since the list was read: overdue although the server did not say so yet.
    row("justNow", 7 * DAY + 60_000, { needsAttention: false }),
  ];
  assert.deepEqual(byReceiptDue(rows, NOW).map((r) => r.oid), [
    "late9",
    "late3",
    "justNow",
    "soon",
    "today",
  ]);
});

Deno.test("[receipts due] the due words: overdue for whole days in the zone shown, else the day it is due", () => {
  assert.deepEqual(dueState(row("late3", 10 * DAY), NOW), { overdue: true, days: 3 });
  assert.deepEqual(dueState(row("fell due an hour ago", 7 * DAY + HOUR), NOW), {
    overdue: true,
    days: 0,
  });
  assert.deepEqual(dueState(row("fresh", HOUR), NOW), {
    overdue: false,
    at: NOW - HOUR + 7 * DAY,
  });
  // The server says overdue: so it is, whatever this phone's clock says.
  assert.deepEqual(dueState(row("skew", HOUR, { needsAttention: true }), NOW), {
    overdue: true,
    days: 0,
  });
  assert.equal(dueState(row("refused", HOUR, { receiptDueDate: null }), NOW), null);
  // Calendar days in the zone shown: due at 23:00 UTC on the 6th is the 7th in Tokyo.
  const due = Date.parse("2026-03-06T23:00:00Z");
  const r = row("tz", 0, { receiptDueDate: iso(due), needsAttention: true });
  assert.deepEqual(dueState(r, NOW, "UTC"), { overdue: true, days: 4 });
  assert.deepEqual(dueState(r, NOW, "Asia/Tokyo"), { overdue: true, days: 3 });
});

Deno.test("[receipts due] the tab: needing rows apart, each transaction once, the others in their day groups", () => {
  const rows = [
    row("Cafe", HOUR),
    row("Hotel", 10 * DAY),
    row("Taxi", 2 * DAY, { nbReceipts: 2, receiptDueDate: null }),
    row("Casino", HOUR, { transactionStatus: "Refused", receiptDueDate: null }),
  ];
  const { needing, sections } = splitNeedsReceipt(groupTransactions(rows, "", NOW), NOW);
  assert.deepEqual(needing.map((r) => r.oid), ["Hotel", "Cafe"]);
  assert.deepEqual(sections.map((s) => [s.group, s.rows.map((r) => r.oid)]), [
    ["today", ["Casino"]],
    ["lastWeek", ["Taxi"]],
  ]);
  // The search narrows the group too.
  const found = splitNeedsReceipt(groupTransactions(rows, "hotel", NOW), NOW);
  assert.deepEqual(found.needing.map((r) => r.oid), ["Hotel"]);
  assert.deepEqual(found.sections, []);
});

Deno.test("[receipts due] the cached head keeps every older row that needs a receipt (group and badge whole at first paint)", () => {
  const many = Array.from(
    { length: 30 },
    (_, i) => row(`r${i}`, (i + 1) * HOUR, { nbReceipts: 1, receiptDueDate: null }),
  );
  const old = row("old", 20 * DAY);
  const head = headOf([...many, old], 10);
  assert.equal(head.rows.length, 11);
  assert.deepEqual(head.rows.map((r) => r.oid).slice(0, 3), ["r0", "r1", "r2"]);
  assert.equal(head.rows.at(-1)!.oid, "old");
  assert.equal(head.attention, 1);
});
