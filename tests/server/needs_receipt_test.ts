/**
 * What the Transactions tab's "Needs a receipt" group and its badge read from pwalists (spec §2
 * Transactions, §5 missing receipts; client/lib/receipts_due.ts): every transaction whose holder
 * still owes a receipt has receiptDueDate — its capture plus the organisation's receipt delay —
 * overdue or not yet; needsAttention says which are overdue; none other has one.
 */
import assert from "node:assert/strict";
import { DEMO, type TestApi, withApp } from "../helpers.ts";
import { login } from "./api.ts";
import type { TransactionRecord } from "../../server/store/transactions.ts";
import type { OrgMeta } from "../../server/store/org.ts";
import { rows } from "./purchase_helpers.ts";
import { transactionRecord } from "./transaction_records.ts";
import { byReceiptDue, needsReceiptNow } from "../../client/lib/receipts_due.ts";

const DAY = 86_400_000;

async function setDelay(api: TestApi, days: number) {
  const meta = (await api.kv.get<OrgMeta>(["org", "meta"])).value!;
  const next = { ...meta, settings: { ...meta.settings, receiptOverdueDays: days } };
  assert.ok((await api.kv.atomic().set(["org", "meta"], next).commit()).ok);
}

const declared = (state: "valid" | "pending") => ({
  what: "Taxi",
  reason: "No printer",
  byOid: "u",
  byName: "Emma",
  at: Date.now(),
  state,
});

Deno.test(
  "[needs receipt] pwalists: every transaction owing a receipt has its due date by the organisation's delay, overdue or not; none other",
  withApp(async (api) => {
    await setDelay(api, 3);
    const emp = await login(api, DEMO.employee);
    const now = Date.now();
    const ago = (days: number) => ({ createdAt: now - days * DAY, capturedAt: now - days * DAY });
    const cases: [string, Partial<TransactionRecord>, "overdue" | "due" | null][] = [
      ["today", ago(0), "due"],
      ["twoDays", ago(2), "due"],
      ["fourDays", ago(4), "overdue"],
      // Still owed while an approver has not accepted the declaration.
      ["pendingDeclaration", { ...ago(5), declaration: declared("pending") }, "overdue"],
      ["validDeclaration", { ...ago(4), declaration: declared("valid") }, null],
      ["receiptIn", { ...ago(4), nbReceipts: 1 }, null],
      ["reviewed", { ...ago(4), reviewed: true }, null],
      ["authorised", { ...ago(4), transactionStatus: "Authorised", capturedAt: null }, null],
      ["refused", { ...ago(0), transactionStatus: "Refused", capturedAt: null }, null],
      ["refund", { ...ago(0), transactionType: "Refund" }, null],
    ];
    for (const [name, over] of cases) {
      const t = transactionRecord(emp.oid, { ...over, oid: name, merchantname: name });
      assert.ok((await api.deps.store.transactions.put(api.kv.atomic(), t).commit()).ok);
    }
    const list = await rows(api, emp.h);
    for (const [name, over, want] of cases) {
      const r = list.find((x) => x.oid === name)!;
      const got = r.receiptDueDate === null ? null : r.needsAttention ? "overdue" : "due";
      assert.equal(got, want, name);
      assert.equal(needsReceiptNow(r), want !== null, `${name}: the app's group and badge`);
      if (want) assert.equal(Date.parse(r.receiptDueDate!), over.capturedAt! + 3 * DAY, name);
    }
    // The group's order: overdue first, then by due date.
    assert.deepEqual(byReceiptDue(list, Date.now()).map((r) => r.oid), [
      "pendingDeclaration",
      "fourDays",
      "twoDays",
      "today",
    ]);
  }),
);
