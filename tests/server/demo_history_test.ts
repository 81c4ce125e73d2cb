/**
 * The lived-in demo (server/app/demo_history.ts): with DEMO_HISTORY (the default;
 * tests/helpers.ts turns it off for every other test) a newcomer who activates employee@ finds
 * every screen filled; approver@ and manager@ each find an approval waiting.
 */
import assert from "node:assert/strict";
import type { ExpenseRow } from "../../client/shared/contract/requests.ts";
import type { ApprovalRow } from "../../client/shared/contract/approvals.ts";
import type { TransactionRow } from "../../client/shared/contract/transactions.ts";
import { refusedAbbreviation } from "../../client/shared/transaction_rules.ts";
import { seedIfEmpty } from "../../server/app/boot.ts";
import { DEMO_3DS_PASSWORD } from "../../server/app/demo_history.ts";
import { DEMO, orgFileWithUsers, type TestApi, testApp } from "../helpers.ts";
import { assertOk, getE, type Headers, login } from "./api.ts";
import { issuer } from "./purchase_helpers.ts";

const DAY = 86_400_000;
const MISSING = "You have transactions that still have no receipts, please provide those first";

async function lists(api: TestApi, h: Headers) {
  const r = await getE(api, h, "pwalists");
  assertOk(r);
  return {
    requests: (r.json.expenses as { expenseslist: ExpenseRow[] }).expenseslist,
    transactions: (r.json.transactions as { receiptslist: TransactionRow[] }).receiptslist,
  };
}

async function approvals(api: TestApi, h: Headers): Promise<ApprovalRow[]> {
  const r = await api.call("GET", "/scmapi/approval/pwalistrequests", { headers: h });
  assertOk(r);
  return r.json.approvallist as ApprovalRow[];
}

/** spec §9 groups, UTC: Today, Yesterday, Last week (2–7 days), Older. */
function groupOf(iso: string, now: number): string {
  const days = Math.floor(now / DAY) - Math.floor(Date.parse(iso) / DAY);
  return days <= 0 ? "today" : days === 1 ? "yesterday" : days <= 7 ? "last week" : "older";
}

Deno.test("[demo history] employee@ starts with requests in every status, cards and transactions", async () => {
  // The day groups are counted from the time the history was seeded (a run across midnight
  // would otherwise move "today" to "yesterday").
  const seededAt = Date.now();
  const api = await testApp({ DEMO_HISTORY: "true" });
  try {
    // The clock the domain reads is the real one again after seeding.
    assert.equal(api.deps.now, Date.now);
    const emp = await login(api, DEMO.employee);
    const { requests, transactions } = await lists(api, emp.h);

    // Requests: every status; a rejected one carries the approver's note.
    const statuses = new Set(requests.map((r) => r.statusCode));
    for (const s of ["new", "requested", "accepted", "rejected", "cancelled"]) {
      assert.ok(statuses.has(s as ExpenseRow["statusCode"]), `no ${s} request`);
    }
    const rejected = requests.find((r) => r.statusCode === "rejected")!;
    const rec = (await api.deps.store.requests.get(emp.oid, rejected.oid)).value!;
    assert.match(rec.approverNote ?? "", /stock room/);

    // Cards: an active Visa and a closed Mastercard.
    const cardOf = async (row: ExpenseRow) =>
      (await api.deps.store.requests.get(emp.oid, row.oid)).value!.card!;
    const active = requests.find((r) => r.hasCard && r.cardStatusCode === "Active");
    const closed = requests.find((r) => r.hasCard && r.cardStatusCode === "Closed");
    assert.ok(active && closed, "an active and a closed card");
    assert.equal((await cardOf(active)).brand, "visa");
    assert.equal((await cardOf(closed)).brand, "mastercard");
    const card = await getE(api, emp.h, `pwaexpensecard?oid=${active.oid}`);
    assertOk(card);
    // An accepted request without a card: the newcomer can generate one (3-D Secure defined).
    assert.ok(requests.some((r) => r.statusCode === "accepted" && !r.hasCard));
    const secure = await getE(api, emp.h, "pwaexpensecardsecure");
    assertOk(secure);
    assert.equal((secure.json.secure as { defined: boolean }).defined, true, secure.text);
    assert.equal(await api.deps.issuer.revealThreeDSPassword(emp.oid), DEMO_3DS_PASSWORD);

    // Transactions: each status, each day group, a refused one per reason, foreign currency.
    const groups = new Set(transactions.map((t) => groupOf(t.transactionCreateDate, seededAt)));
    assert.deepEqual([...groups].sort(), ["last week", "older", "today", "yesterday"]);
    const st = new Set(transactions.map((t) => t.transactionStatus));
    for (const s of ["Captured", "Authorised", "Refused", "Reversed"]) {
      assert.ok(st.has(s), `no ${s} transaction`);
    }
    const reasons = transactions.filter((t) => t.transactionStatus === "Refused")
      .map((t) => refusedAbbreviation(t.refusedReason)).sort();
    assert.deepEqual(reasons, ["Authentication", "CVC", "Exceeds maximum", "MCC", "Verification"]);
    const foreign = transactions.filter((t) =>
      t.originalCurrency !== t.pricingCurrency && t.transactionStatus !== "Refused"
    );
    assert.deepEqual(foreign.map((t) => t.originalCurrency).sort(), ["GBP", "USD"]);
    assert.ok(transactions.some((t) => t.cardOid === closed.oid), "the closed card was used");

    // Receipts (spec §3 Receipt, Document): the dinner's PDF with its note, VAT to be told; the
    // train reviewed with French VAT at 10 %; the Heathrow ticket reviewed without VAT.
    const byMerchant = (m: string) => transactions.find((t) => t.merchantname === m)!;
    const dinner = byMerchant("Brasserie Georges");
    assert.equal(dinner.nbReceipts, 1);
    const receipts = await getE(api, emp.h, `pwaexpensereceipts?oid=${dinner.oid}`);
    assertOk(receipts);
    const [dinnerReceipt] = receipts.json.receipts as { note: string; type: string }[];
    assert.equal(dinnerReceipt.note, "Dinner with the client, 2 people");
    assert.equal(dinnerReceipt.type, "application/pdf");
    const detail = async (oid: string) => {
      const d = await getE(api, emp.h, `pwatransaction?oid=${oid}`);
      assertOk(d);
      return d.json.transaction as Record<string, unknown>;
    };
    assert.deepEqual(
      (({ collectVatFlag, reviewed }) => ({ collectVatFlag, reviewed }))(await detail(dinner.oid)),
      { collectVatFlag: true, reviewed: false },
    );
    const train = await detail(byMerchant("SNCF").oid);
    assert.deepEqual(
      [train.reviewed, train.readOnlyVAT, train.countryId, train.vat1Oid, train.vat1Amount],
      [true, true, "FR", "vat-fr-10", 8.09],
    );
    const heathrow = await detail(byMerchant("Heathrow Express").oid);
    assert.deepEqual([heathrow.reviewed, heathrow.collectVatFlag], [true, false]);

    // One receipt overdue (older than receiptOverdueDays): it blocks new requests (spec §5)
    // until it is dealt with, e.g. refunded on /_issuer as the README says.
    const overdue = transactions.filter((t) => t.needsAttention);
    assert.equal(overdue.length, 1);
    assert.equal(groupOf(overdue[0].transactionCreateDate, seededAt), "older");
    const check = await getE(api, emp.h, "pwacheckcancreaterequest");
    assert.deepEqual(check.json, { result: 0, message: MISSING });
    const r = await issuer(api, "refund", { transactionOid: overdue[0].oid });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.status, "Refunded");
    assert.equal(
      (await getE(api, emp.h, "pwacheckcancreaterequest")).json.result,
      1,
    );
  } finally {
    await api.close();
  }
});

Deno.test("[demo history] approvals wait for approver@ (level 1) and manager@ (level 2)", async () => {
  const api = await testApp({ DEMO_HISTORY: "true" });
  try {
    const approver = await login(api, DEMO.approver);
    const waiting = (await approvals(api, approver.h)).filter((a) => a.canApprove);
    assert.equal(waiting.length, 1);
    assert.equal(waiting[0].author, "Emma Laurent");
    const manager = await login(api, DEMO.manager);
    const hers = (await approvals(api, manager.h)).filter((a) => a.canApprove);
    assert.equal(hers.length, 1);
    assert.notEqual(hers[0].oid, waiting[0].oid);
    const a = (await api.deps.store.approvals.get(hers[0].oid)).value!;
    assert.equal(a.levels.find((l) => l.statusCode === "open")?.level, 2);
    // Decided approvals are listed too (the approver's history).
    assert.ok((await approvals(api, approver.h)).length > waiting.length);
  } finally {
    await api.close();
  }
});

Deno.test("[demo history] seeding is idempotent: a second start adds nothing", async () => {
  const api = await testApp({ DEMO_HISTORY: "true" });
  try {
    const emp = await api.deps.store.users.byEmail(DEMO.employee);
    const before = [
      (await api.deps.store.requests.byUser(emp!.oid)).length,
      (await api.deps.store.transactions.byUser(emp!.oid)).length,
    ];
    assert.equal(await seedIfEmpty(api.deps), false);
    assert.deepEqual([
      (await api.deps.store.requests.byUser(emp!.oid)).length,
      (await api.deps.store.transactions.byUser(emp!.oid)).length,
    ], before);
  } finally {
    await api.close();
  }
});

Deno.test("[demo history] DEMO_HISTORY=false and ORG_FILE start with the organisation only", async () => {
  const { file } = await orgFileWithUsers(1);
  try {
    const envs: Record<string, string>[] = [
      { DEMO_HISTORY: "false" },
      { DEMO_HISTORY: "true", ORG_FILE: file },
    ];
    for (const env of envs) {
      const api = await testApp(env);
      try {
        assert.ok((await api.deps.store.users.all()).length >= 5);
        for (const u of await api.deps.store.users.all()) {
          assert.equal((await api.deps.store.requests.byUser(u.oid)).length, 0);
          assert.equal((await api.deps.store.transactions.byUser(u.oid)).length, 0);
        }
        assert.equal((await api.deps.issuer.listCards()).length, 0);
        // Activation mails are queued either way.
        assert.ok(await api.latestCode(DEMO.employee));
      } finally {
        await api.close();
      }
    }
  } finally {
    await Deno.remove(file);
  }
});
