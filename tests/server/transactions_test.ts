/**
 * Card transactions in the app (spec §2 Transactions and detail, §3 Transaction,
 * §5 missing receipts, §7 pwalists receiptslist, §8 refused reasons): purchases made through
 * the issuer's test mode become the card author's transactions, with every §3 field, for
 * nobody else; captures, reversals and refunds follow; overdue receipts block new requests.
 */
import assert from "node:assert/strict";
import { DEMO, withApp } from "../helpers.ts";
import { assertError, assertOk, login } from "./api.ts";
import type { Card } from "../../client/shared/contract/cards.ts";
import { Transaction } from "../../client/shared/contract/transactions.ts";
import { reconcileAuthorizations } from "../../server/domain/issuer_reconcile.ts";
import {
  buy,
  defineSecure,
  detail,
  get,
  issuer,
  newCard,
  PASSWORD,
  post,
  rows,
  TRAVEL,
} from "./purchase_helpers.ts";

const DAY = 86_400_000;
const MISSING = "You have transactions that still have no receipts, please provide those first";

Deno.test(
  "[transactions] a purchase through /_issuer becomes the card author's transaction, every §3 field",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    await defineSecure(api, emp.h);
    const card = await newCard(api, emp.h);
    const p = await buy(api, card, { amount: "12.50", capture: true });
    assert.equal(p.approved, true);
    assert.equal(p.status, "Captured");
    assert.equal(p.available, 108);
    const [row] = await rows(api, emp.h);
    assert.equal(row.oid, p.transactionOid);
    assert.equal(row.cardOid, card.oid);
    assert.equal(row.cardId, card.id);
    assert.equal(row.expenseOid, card.oid);
    assert.equal(row.transactionStatus, "Captured");
    assert.equal(row.transactionType, "Purchase");
    assert.equal(row.merchantname, "Café de la Gare");
    assert.equal(row.merchantcity, "Lyon");
    assert.equal(row.merchantcountry, "FR");
    assert.equal(row.originalPurpose, TRAVEL.purpose);
    assert.equal(row.monetaryAmount, 12.5);
    assert.equal(row.displayMonetaryAmount, 12.5);
    assert.equal(row.pricingCurrency, "EUR");
    assert.equal(row.originalCurrency, "EUR");
    assert.equal(row.nbReceipts, 0);
    assert.equal(row.needsAttention, false, "a fresh purchase is not overdue");
    assert.ok(row.receiptDueDate, "its receipt is due within the organisation's delay");
    assert.equal(row.canFlip, true);
    assert.match(row.transactionCreateDate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const t = await detail(api, emp.h, row.oid);
    assert.ok(Transaction.safeParse(t).success);
    for (const k of ["vat1Oid", "vat2Oid", "vat3Oid", "vat1Amount", "collectVatFlag", "typeOid"]) {
      assert.equal(t[k as keyof typeof t], null, k);
    }
    assert.equal(t.nbDocuments, 0);
    assert.deepEqual(t.documents, []);
    assert.equal(t.amountCaptured, 12.5);
    assert.equal(t.mcc, "5812");
    assert.equal(t.refusedReasonDecoded, "");
    // The wallet's available amount follows the purchase.
    const c = await get(api, emp.h, `pwaexpensecard?oid=${card.oid}`);
    assert.equal((c.json.card as Card).amountAvailable, 108);
    // No card data in the answers.
    assert.doesNotMatch(JSON.stringify({ row, t }), /\d{13,19}|ic_[a-z2-7]{26}/);
  }),
);

Deno.test(
  "[transactions] another user's transaction is 404 and never in their list",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    const mgr = await login(api, DEMO.manager);
    await defineSecure(api, emp.h);
    const card = await newCard(api, emp.h);
    const p = await buy(api, card);
    assertError(await get(api, mgr.h, `pwatransaction?oid=${p.transactionOid}`), 404, "not_found");
    assertError(
      await post(api, mgr.h, "pwaflip", { transactionoids: [p.transactionOid], purpose: "Mine" }),
      404,
      "not_found",
    );
    assert.deepEqual(await rows(api, mgr.h), []);
    assertError(await get(api, emp.h, "pwatransaction?oid=nope"), 404, "not_found");
    assert.equal((await rows(api, emp.h)).length, 1);
  }),
);

Deno.test(
  "[transactions] foreign currency: original and pricing amounts, rate; refused reasons abbreviated",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    await defineSecure(api, emp.h);
    const card = await newCard(api, emp.h);
    const usd = await buy(api, card, { amount: "100", currency: "USD" });
    assert.deepEqual([usd.amount, usd.currency, usd.originalAmount], [92.25, "EUR", 100]);
    const t = await detail(api, emp.h, usd.transactionOid);
    assert.deepEqual(
      [t.monetaryAmount, t.pricingCurrency, t.displayMonetaryAmount, t.originalCurrency],
      [92.25, "EUR", 100, "USD"],
    );
    assert.equal(t.exchangeRate, "0.922509");
    const cases = [
      [{ mcc: "7995" }, "MCC"],
      [{ amount: "500" }, "Exceeds maximum"],
      [{ threeDSPassword: "wrong" }, "Authentication"],
      [{ threeDS: true }, "Authentication"],
    ] as const;
    for (const [over, abbr] of cases) {
      const r = await buy(api, card, over);
      assert.equal(r.status, "Refused");
      assert.equal(r.refusedReasonDecoded, abbr);
      const d = await detail(api, emp.h, r.transactionOid);
      assert.equal(d.refusedReasonDecoded, abbr);
      assert.equal(d.refusedReason, r.refusedReason);
      assert.ok(d.refusedReasonText.length <= 130);
      assert.equal(d.canFlip, false);
      assert.equal(d.needsAttention, false);
      assert.equal(d.readOnlyVAT, true);
    }
    const ok = await buy(api, card, { threeDSPassword: PASSWORD, amount: "1" });
    assert.equal(ok.status, "Captured");
    // 2 approved, 4 refused, newest first.
    const list = await rows(api, emp.h);
    assert.equal(list.length, 6);
    const dates = list.map((r) => r.transactionCreateDate);
    assert.deepEqual(dates, [...dates].sort().reverse());
  }),
);

Deno.test(
  "[transactions] authorise, then capture partially, reverse the rest, refund: the row follows",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    await defineSecure(api, emp.h);
    const card = await newCard(api, emp.h);
    const a = await buy(api, card, { amount: "50", capture: false });
    assert.equal(a.status, "Authorised");
    assert.equal(a.available, 70.5);
    let t = await detail(api, emp.h, a.transactionOid);
    assert.deepEqual([t.transactionStatus, t.status, t.monetaryAmount], [
      "Authorised",
      "pending",
      50,
    ]);
    assert.equal(t.receiptDueDate, null, "no receipt is due before the capture");
    const c = await issuer(api, "capture", { transactionOid: a.transactionOid, amount: "30" });
    assert.equal(c.status, 200, c.text);
    t = await detail(api, emp.h, a.transactionOid);
    assert.deepEqual([t.transactionStatus, t.monetaryAmount, t.amountCaptured], [
      "Captured",
      30,
      30,
    ]);
    assert.ok(t.capturedDate);
    const r = await issuer(api, "reverse", { authorizationId: a.authorizationId });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.available, 90.5);
    t = await detail(api, emp.h, a.transactionOid);
    assert.deepEqual([t.transactionStatus, t.status], ["Captured", "closed"]);
    const f = await issuer(api, "refund", { transactionOid: a.transactionOid, amount: "10" });
    assert.equal(f.status, 200, f.text);
    t = await detail(api, emp.h, a.transactionOid);
    assert.deepEqual([t.monetaryAmount, t.amountRefunded], [20, 10]);
    await issuer(api, "refund", { transactionOid: a.transactionOid });
    t = await detail(api, emp.h, a.transactionOid);
    assert.equal(t.transactionStatus, "Refunded");
    // A merchant's credit without a purchase is its own transaction.
    const credit = await issuer(api, "refund", {
      card: card.last4,
      amount: "5",
      merchantName: "Rail refund",
    });
    assert.equal(credit.status, 200, credit.text);
    const cr = await detail(api, emp.h, String(credit.json.transactionOid));
    assert.deepEqual([cr.transactionType, cr.transactionStatus, cr.monetaryAmount], [
      "Refund",
      "Refunded",
      5,
    ]);
    // Everything spent was given back already: the credit is recorded, the card stays at its
    // allocation (120.50), never above it.
    assert.equal(credit.json.available, 120.5);
    // Events the issuer refuses are answered, not crashed on.
    assertHttp(await issuer(api, "capture", { transactionOid: a.transactionOid }), 409);
    assertHttp(await issuer(api, "capture", { transactionOid: "nope" }), 400);
    assertHttp(await issuer(api, "capture", { authorizationId: "iauth_nope" }), 404);
  }),
);

function assertHttp(r: { status: number; json: Record<string, unknown> }, status: number) {
  assert.equal(r.status, status, JSON.stringify(r.json));
  assert.equal(typeof r.json.error, "string");
  assert.equal(typeof r.json.message, "string");
}

Deno.test(
  "[transactions] missing receipts: a captured purchase past the organisation's delay blocks create",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    await defineSecure(api, emp.h);
    const card = await newCard(api, emp.h);
    await buy(api, card, { amount: "5" });
    await buy(api, card, { amount: "5", capture: false });
    await buy(api, card, { mcc: "7995" });
    const create = () => post(api, emp.h, "pwaexpenserequestcreate", { expenseRequest: TRAVEL });
    // Within the delay (7 days in the demo organisation): allowed, nothing needs attention.
    assertOk(await create());
    assert.deepEqual((await rows(api, emp.h)).map((r) => r.needsAttention), [false, false, false]);
    const real = api.deps.now;
    api.deps.now = () => real() + 7 * DAY + 60_000;
    const list = await rows(api, emp.h);
    // Only the captured one is overdue: authorised and refused ones need no receipt yet.
    assert.deepEqual(
      list.map((r) => `${r.transactionStatus} ${r.needsAttention}`).sort(),
      ["Authorised false", "Captured true", "Refused false"],
    );
    const check = await get(api, emp.h, "pwacheckcancreaterequest");
    assert.deepEqual(check.json, { result: 0, message: MISSING });
    assertError(await create(), 422, "missing_receipts", MISSING);
    // A receipt (the next issue attaches them) lifts the block.
    const { transactions, kv } = api.deps.store;
    const captured = list.find((r) => r.needsAttention)!;
    const e = await transactions.get(emp.oid, captured.oid);
    assert.ok(
      (await transactions.put(kv.atomic().check(e), { ...e.value!, nbReceipts: 1 }).commit()).ok,
    );
    assertOk(await create());
  }),
);

Deno.test(
  "[transactions] comments on a transaction: the author adds, lists and deletes; others get 404",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    const mgr = await login(api, DEMO.manager);
    await defineSecure(api, emp.h);
    const card = await newCard(api, emp.h);
    const p = await buy(api, card, { amount: "9.90", capture: true });
    const oid = p.transactionOid as string;
    const add = await post(api, emp.h, "pwaaddtransactioncomment", {
      oid,
      comment: " Team lunch ",
    });
    assertOk(add);
    const list = await get(api, emp.h, `pwatransactioncomments?oid=${oid}`);
    assertOk(list);
    const comments = list.json.comments as {
      oid: string;
      sourceEntityOid: string;
      comment: { text: string };
      canBeDeleted: boolean;
    }[];
    assert.equal(comments.length, 1);
    assert.equal(comments[0].comment.text, "Team lunch");
    assert.equal(comments[0].sourceEntityOid, oid);
    assert.equal(comments[0].canBeDeleted, true);
    // Anyone else: 404, as for an unknown oid; nothing is added or deleted.
    assertError(await get(api, mgr.h, `pwatransactioncomments?oid=${oid}`), 404);
    assertError(await post(api, mgr.h, "pwaaddtransactioncomment", { oid, comment: "x" }), 404);
    assertError(await get(api, mgr.h, `pwadeletecomment?record=${comments[0].oid}`), 404);
    assertError(
      await post(api, emp.h, "pwaaddtransactioncomment", { oid: "nope", comment: "x" }),
      404,
    );
    assertOk(await get(api, emp.h, `pwadeletecomment?record=${comments[0].oid}`));
    const after = await get(api, emp.h, `pwatransactioncomments?oid=${oid}`);
    assert.deepEqual(after.json.comments, []);
  }),
);

Deno.test(
  "[transactions] reconciliation: purchases whose transaction write died get exactly one each",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    await defineSecure(api, emp.h);
    const card = await newCard(api, emp.h);
    const token = (await api.deps.store.requests.get(emp.oid, card.oid)).value!.card!.token;
    // The crash, deterministically: the issuer's decision is written, the app's transaction
    // write fails (as a process killed between the two would leave it).
    let dying = true;
    api.deps.faults = {
      beforeCommit: (what) => {
        if (dying && what === "transaction.ingest") throw new Error("killed");
      },
    };
    for (const amount of ["10.00", "20.00", "500.00"]) {
      const r = await issuer(api, "purchase", {
        card: card.oid,
        amount,
        merchantName: "Café de la Gare",
        capture: amount === "10.00",
      });
      assert.equal(r.status, 500, r.text);
    }
    dying = false;
    api.deps.faults = undefined;
    const ok = await buy(api, card, { amount: "5.00" });
    const auths = await api.deps.issuer.listAuthorizations(token);
    assert.equal(auths.length, 4);
    assert.deepEqual(auths.map((a) => a.approved).sort(), [false, true, true, true]);
    const linked = async () => {
      const out = new Map<string, number>();
      for (const t of await api.deps.store.transactions.byUser(emp.oid)) {
        out.set(t.authorizationId, (out.get(t.authorizationId) ?? 0) + 1);
      }
      return out;
    };
    assert.equal((await linked()).size, 1, "only the purchase whose write went through");
    assert.ok((await api.deps.issuer.getCard(token))!.amountSpent >= 3_000, "money was taken");

    // Two runs at once (two processes, or a start-up run beside the periodic one): each
    // authorization gets one transaction, created by one of them.
    const [r1, r2] = await Promise.all([
      reconcileAuthorizations(api.deps),
      reconcileAuthorizations(api.deps),
    ]);
    assert.equal(r1.created + r2.created, 3);
    const after = await linked();
    assert.deepEqual([...after.values()], [1, 1, 1, 1]);
    for (const a of auths) assert.equal(after.get(a.id), 1, a.id);
    const byAuth = new Map(
      (await api.deps.store.transactions.byUser(emp.oid)).map((t) => [t.authorizationId, t]),
    );
    const ten = auths.find((a) => a.merchantAmount === 1_000)!;
    assert.equal(byAuth.get(ten.id)!.transactionStatus, "Captured");
    assert.equal(byAuth.get(auths.find((a) => !a.approved)!.id)!.transactionStatus, "Refused");
    assert.equal(byAuth.get(ok.authorizationId)!.oid, ok.transactionOid, "the recorded one kept");
    // Nothing left to repair: a second run creates none, from the cursor or from the start.
    assert.equal((await reconcileAuthorizations(api.deps)).created, 0);
    assert.equal((await reconcileAuthorizations(api.deps, { since: 0 })).created, 0);
    assert.deepEqual([...(await linked()).values()], [1, 1, 1, 1]);
  }),
);

Deno.test(
  "[transactions] reconciliation catches up a capture whose report was lost",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    await defineSecure(api, emp.h);
    const card = await newCard(api, emp.h);
    const p = await buy(api, card, { amount: "30.00", capture: false });
    assert.equal(p.status, "Authorised");
    // Captured at the issuer, never reported to the app.
    await api.deps.issuer.capture({ authorizationId: p.authorizationId });
    assert.equal((await detail(api, emp.h, p.transactionOid)).transactionStatus, "Authorised");
    const r = await reconcileAuthorizations(api.deps);
    assert.equal(r.created, 0);
    assert.equal((await detail(api, emp.h, p.transactionOid)).transactionStatus, "Captured");
  }),
);
