/**
 * "No receipt" declarations (spec §5 missing receipts; server/domain/declarations.ts): the
 * holder declares on their own transaction, which lifts the missing-receipt block and the
 * attention marker; withdrawn until reviewed; the organisation can switch them off or require
 * an approver of the card's request to accept them first.
 */
import assert from "node:assert/strict";
import { DEMO, type TestApi, withApp } from "../helpers.ts";
import { assertError, assertOk, type Headers, login } from "./api.ts";
import type { Transaction } from "../../client/shared/contract/transactions.ts";
import type { DeclarationReview, ReceiptCheck } from "../../client/shared/contract/declarations.ts";
import type { TransactionRecord } from "../../server/store/transactions.ts";
import type { OrgMeta } from "../../server/store/org.ts";
import { get, post, rows, submitted, TRAVEL } from "./purchase_helpers.ts";
import { transactionRecord } from "./transaction_records.ts";

const MISSING = "You have transactions that still have no receipts, please provide those first";
const WHAT = { what: "Taxi from the station", reason: "The driver's printer was broken" };

async function setMode(api: TestApi, mode: "off" | "on" | "approval") {
  const meta = (await api.kv.get<OrgMeta>(["org", "meta"])).value!;
  const next = { ...meta, settings: { ...meta.settings, receiptDeclarations: mode } };
  assert.ok((await api.kv.atomic().set(["org", "meta"], next).commit()).ok);
}

/** The employee, signed in, with an overdue receipt on a card request approver@ can see. */
async function overdue(api: TestApi, over: Partial<TransactionRecord> = {}) {
  const emp = await login(api, DEMO.employee);
  const { oid: requestOid } = await submitted(api, emp.h);
  const t = transactionRecord(emp.oid, { cardOid: requestOid, expenseOid: requestOid, ...over });
  assert.ok((await api.deps.store.transactions.put(api.kv.atomic(), t).commit()).ok);
  return { emp, t };
}

const declare = (api: TestApi, h: Headers, body: Record<string, unknown>) =>
  post(api, h, "pwadeclarenoreceipt", body);
const canCreate = (api: TestApi, h: Headers) =>
  post(api, h, "pwaexpenserequestcreate", { expenseRequest: TRAVEL });

Deno.test(
  "[declarations] declaring lifts the block and the marker; shown with name and time; withdrawn until reviewed",
  withApp(async (api) => {
    const { emp, t } = await overdue(api);
    assertError(await canCreate(api, emp.h), 422, "missing_receipts", MISSING);
    assert.equal((await rows(api, emp.h)).find((r) => r.oid === t.oid)?.needsAttention, true);
    const before = await get(api, emp.h, `pwatransaction?oid=${t.oid}&archive=0`);
    assert.equal((before.json.transaction as Transaction).canDeclare, true);
    const at = Date.now();
    const r = await declare(api, emp.h, { oid: t.oid, ...WHAT, confirm: true });
    assertOk(r);
    const tx = r.json.transaction as Transaction;
    assert.equal(tx.needsAttention, false);
    assert.equal(tx.canDeclare, false);
    assert.equal(tx.declaration?.what, WHAT.what);
    assert.equal(tx.declaration?.reason, WHAT.reason);
    assert.equal(tx.declaration?.byName, `${emp.user.fname} ${emp.user.lname}`);
    assert.equal(tx.declaration?.state, "valid");
    assert.equal(tx.declaration?.canWithdraw, true);
    assert.ok(Date.parse(tx.declaration!.at) >= at - 1000);
    assert.equal((await rows(api, emp.h)).find((x) => x.oid === t.oid)?.needsAttention, false);
    assertOk(await canCreate(api, emp.h));
    // A second declaration is refused; a withdrawal brings the block back.
    assertError(await declare(api, emp.h, { oid: t.oid, ...WHAT, confirm: true }), 409);
    const w = await post(api, emp.h, "pwawithdrawnoreceipt", { oid: t.oid });
    assertOk(w);
    assert.equal((w.json.transaction as Transaction).declaration, null);
    assert.equal((w.json.transaction as Transaction).needsAttention, true);
    assertError(await canCreate(api, emp.h), 422, "missing_receipts");
    // Declared again, then reviewed (a declaration stands in for the receipt): read-only.
    assertOk(await declare(api, emp.h, { oid: t.oid, ...WHAT, confirm: true }));
    const e = await api.deps.store.transactions.get(emp.oid, t.oid);
    const reviewed = { ...e.value!, reviewed: true };
    assert.ok((await api.deps.store.transactions.put(api.kv.atomic(), reviewed).commit()).ok);
    const d = await get(api, emp.h, `pwatransaction?oid=${t.oid}&archive=0`);
    assert.equal((d.json.transaction as Transaction).declaration?.canWithdraw, false);
    assertError(await post(api, emp.h, "pwawithdrawnoreceipt", { oid: t.oid }), 409);
  }),
);

Deno.test(
  "[declarations] bad input, another person's transaction, a receipt already there, refused ones",
  withApp(async (api) => {
    const { emp, t } = await overdue(api);
    const mgr = await login(api, DEMO.manager);
    assertError(await declare(api, {}, { oid: t.oid, ...WHAT, confirm: true }), 401);
    assertError(await declare(api, emp.h, { oid: t.oid, ...WHAT }), 400, "invalid_body");
    assertError(
      await declare(api, emp.h, { oid: t.oid, ...WHAT, confirm: false }),
      400,
      "invalid_body",
    );
    assertError(
      await declare(api, emp.h, { oid: t.oid, what: "  ", reason: "x", confirm: true }),
      400,
      "invalid_body",
    );
    assertError(
      await declare(api, emp.h, { oid: t.oid, what: "x".repeat(201), reason: "y", confirm: true }),
      400,
      "invalid_body",
    );
    assertError(await declare(api, mgr.h, { oid: t.oid, ...WHAT, confirm: true }), 404);
    assertError(await post(api, mgr.h, "pwawithdrawnoreceipt", { oid: t.oid }), 404);
    const put = async (over: Partial<TransactionRecord>) => {
      const x = transactionRecord(emp.oid, over);
      assert.ok((await api.deps.store.transactions.put(api.kv.atomic(), x).commit()).ok);
      return x.oid;
    };
    const withReceipt = await put({ nbReceipts: 1 });
    assertError(await declare(api, emp.h, { oid: withReceipt, ...WHAT, confirm: true }), 409);
    const refused = await put({ transactionStatus: "Refused", refusedReason: "CVC" });
    assertError(await declare(api, emp.h, { oid: refused, ...WHAT, confirm: true }), 409);
    const reviewed = await put({ reviewed: true });
    assertError(await declare(api, emp.h, { oid: reviewed, ...WHAT, confirm: true }), 409);
    assertError(await post(api, emp.h, "pwawithdrawnoreceipt", { oid: t.oid }), 409);
    // Trimmed text is what is kept.
    const r = await declare(api, emp.h, {
      oid: t.oid,
      what: "  Taxi  ",
      reason: " x ",
      confirm: true,
    });
    assertOk(r);
    assert.equal((r.json.transaction as Transaction).declaration?.what, "Taxi");
  }),
);

Deno.test(
  "[declarations] the organisation switches them off",
  withApp(async (api) => {
    await setMode(api, "off");
    const { emp, t } = await overdue(api);
    const d = await get(api, emp.h, `pwatransaction?oid=${t.oid}&archive=0`);
    assert.equal((d.json.transaction as Transaction).canDeclare, false);
    assertError(
      await declare(api, emp.h, { oid: t.oid, ...WHAT, confirm: true }),
      403,
      "declarations_off",
    );
    assertError(await canCreate(api, emp.h), 422, "missing_receipts");
  }),
);

Deno.test(
  "[declarations] with approval required, the block lifts only once an approver of the card's request accepts",
  withApp(async (api) => {
    await setMode(api, "approval");
    const { emp, t } = await overdue(api);
    const apr = await login(api, DEMO.approver);
    const mgr = await login(api, DEMO.manager);
    const r = await declare(api, emp.h, { oid: t.oid, ...WHAT, confirm: true });
    assertOk(r);
    const tx = r.json.transaction as Transaction;
    assert.equal(tx.declaration?.state, "pending");
    assert.equal(tx.needsAttention, true, "pending: the marker stays");
    assertError(await canCreate(api, emp.h), 422, "missing_receipts");
    // The holder cannot accept their own; someone outside the request's teams finds nothing.
    assertError(await post(api, emp.h, "pwadecidenoreceipt", { oid: t.oid, approve: true }), 404);
    const [approval] = await api.deps.store.approvals.byRequest(t.cardOid);
    assertError(await get(api, emp.h, `pwanoreceipts?approval=${approval.oid}`), 404);
    const seen = await get(api, apr.h, `pwanoreceipts?approval=${approval.oid}`);
    assertOk(seen);
    const [review] = seen.json.reviews as DeclarationReview[];
    assert.equal(review.declaration.what, WHAT.what);
    assert.equal(review.holderName, `${emp.user.fname} ${emp.user.lname}`);
    assert.equal(review.canDecide, true);
    const teamsOf = (await api.deps.store.approvals.byRequest(t.cardOid))[0].levels
      .flatMap((l) => l.teamOids);
    if (!mgr.user.teams.some((x) => teamsOf.includes(x))) {
      assertError(await get(api, mgr.h, `pwanoreceipts?approval=${approval.oid}`), 404);
      assertError(await post(api, mgr.h, "pwadecidenoreceipt", { oid: t.oid, approve: true }), 404);
    }
    const ok = await post(api, apr.h, "pwadecidenoreceipt", { oid: t.oid, approve: true });
    assertOk(ok);
    const decided = ok.json.review as DeclarationReview;
    assert.equal(decided.declaration.state, "valid");
    assert.equal(decided.declaration.decidedByName, `${apr.user.fname} ${apr.user.lname}`);
    assertOk(await canCreate(api, emp.h));
    // Decided once: a second decision is refused.
    assertError(await post(api, apr.h, "pwadecidenoreceipt", { oid: t.oid, approve: false }), 409);
    // A refusal removes a pending declaration: the receipt is missing again.
    const other = transactionRecord(emp.oid, { cardOid: t.cardOid, expenseOid: t.cardOid });
    assert.ok((await api.deps.store.transactions.put(api.kv.atomic(), other).commit()).ok);
    assertOk(await declare(api, emp.h, { oid: other.oid, ...WHAT, confirm: true }));
    const no = await post(api, apr.h, "pwadecidenoreceipt", { oid: other.oid, approve: false });
    assertOk(no);
    assert.equal(no.json.review, null);
    assertError(await canCreate(api, emp.h), 422, "missing_receipts");
  }),
);

Deno.test(
  "[declarations] a valid declaration lets the transaction be reviewed without receipt",
  withApp(async (api) => {
    const { emp, t } = await overdue(api);
    const review = () =>
      post(api, emp.h, "pwaupdatereviewedtransactions", {
        transactions: [{ oid: t.oid, typeOid: "rt-invoice", countryId: null }],
      });
    assertError(await review(), 409);
    assertOk(await declare(api, emp.h, { oid: t.oid, ...WHAT, confirm: true }));
    const r = await review();
    assert.notEqual(r.status, 409, r.text);
  }),
);

Deno.test(
  "[receipt checks] an approver of the card's request sees what the holder's phone read from its receipts; nobody else",
  withApp(async (api) => {
    const { emp, t } = await overdue(api, { nbReceipts: 2 });
    const apr = await login(api, DEMO.approver);
    const read = {
      total: 45.9,
      currency: t.originalCurrency,
      date: "2026-11-28",
      merchant: "Bistro Lyon",
      vat: [{ rate: 20, amount: 7.65 }],
      match: "differs" as const,
    };
    const now = Date.now();
    for (const [oid, r] of [["doc-read", read], ["doc-plain", null]] as const) {
      const op = api.deps.store.documents.put(api.kv.atomic(), {
        v: 1,
        oid,
        userOid: emp.oid,
        authorizationId: t.authorizationId,
        transactionOid: t.oid,
        documentType: "receipt",
        name: `${oid}.jpg`,
        mimeType: "image/jpeg",
        size: 10,
        blob: { id: `b-${oid}`, size: 10, chunks: 1 },
        preview: null,
        advancedSecurity: false,
        note: "",
        createdAt: now,
        updatedAt: now,
        archive: false,
        read: r,
      });
      assert.ok((await op.commit()).ok);
    }
    const [approval] = await api.deps.store.approvals.byRequest(t.cardOid);
    const path = `pwareceiptchecks?approval=${approval.oid}`;
    const seen = await get(api, apr.h, path);
    assertOk(seen);
    const checks = seen.json.checks as ReceiptCheck[];
    assert.equal(checks.length, 1);
    assert.equal(checks[0].transactionOid, t.oid);
    assert.equal(checks[0].holderName, `${emp.user.fname} ${emp.user.lname}`);
    assert.deepEqual(checks[0].reads, [read], "the receipt without a reading is left out");
    // Its author (the holder) and an unknown approval: 404, as for declarations.
    assertError(await get(api, emp.h, path), 404);
    assertError(await get(api, apr.h, "pwareceiptchecks?approval=nope"), 404);
  }),
);
