/**
 * pwaflip (spec §2 Flip form, §3 Flip payload, §4 Flip and Moved, §5 purpose
 * required): captured or authorised transactions of one expense move onto a new expense
 * '<id>-0001' with the form's purpose and codes; the originals become Moved with links, in
 * one atomic write; refused, reviewed, moved ones and strangers are refused.
 */
import assert from "node:assert/strict";
import { DEMO, type TestApi, withApp } from "../helpers.ts";
import { assertError, assertOk, type Headers, login } from "./api.ts";
import type { ExpenseRequest, ExpenseRow } from "../../client/shared/contract/requests.ts";
import type { Transaction } from "../../client/shared/contract/transactions.ts";
import { buy, defineSecure, detail, get, issuer, newCard, post, rows } from "./purchase_helpers.ts";

const FORM = {
  purpose: "Client dinner, Lyon",
  ccoid: "cc-marketing",
  gloid: "gl-entertainment",
  projoid: "prj-brand",
};

async function setUp(api: TestApi) {
  const emp = await login(api, DEMO.employee);
  await defineSecure(api, emp.h);
  const card = await newCard(api, emp.h);
  return { emp, card };
}

const flip = (api: TestApi, h: Headers, body: Record<string, unknown>) =>
  post(api, h, "pwaflip", body);

async function expenses(api: TestApi, h: Headers): Promise<ExpenseRow[]> {
  const r = await get(api, h, "pwalists");
  return (r.json.expenses as { expenseslist: ExpenseRow[] }).expenseslist;
}

Deno.test(
  "[flip] moves captured and authorised transactions onto a new expense '<id>-0001' and answers it",
  withApp(async (api) => {
    const { emp, card } = await setUp(api);
    const a = await buy(api, card, { amount: "20" });
    const b = await buy(api, card, { amount: "15", capture: false });
    const r = await flip(api, emp.h, {
      ...FORM,
      transactionoids: [a.transactionOid, b.transactionOid],
      oid: card.oid,
      archive: false,
    });
    assertOk(r);
    const x = r.json.expenseRequest as ExpenseRequest;
    assert.equal(x.id, `${card.id}-0001`);
    assert.equal(x.purpose, FORM.purpose);
    assert.deepEqual([x.costCenterOid, x.GLOid, x.projectOid], [
      FORM.ccoid,
      FORM.gloid,
      FORM.projoid,
    ]);
    assert.deepEqual([x.statusCode, x.amount, x.pricingCurrency], ["accepted", 35, "EUR"]);
    // spec §9: an id ending with a dash and four digits is a closed card — no card actions.
    assert.deepEqual([x.cardStatusCode, x.canGenerate, x.canClose, x.canCancel], [
      "Closed",
      false,
      false,
      false,
    ]);
    const copies = r.json.transactions as Transaction[];
    assert.equal(copies.length, 2);
    for (const c of copies) {
      assert.equal(c.expenseOid, x.oid);
      assert.equal(c.flipExtOid, card.oid, "the flip marker");
      assert.ok([a.transactionOid, b.transactionOid].includes(c.originOid!));
    }
    // The originals are Moved, linked to where they went; the list keeps both.
    const orig = await detail(api, emp.h, a.transactionOid);
    assert.equal(orig.transactionStatus, "Moved");
    assert.equal(orig.movedToExpenseOid, x.oid);
    assert.equal(orig.movedToOid, copies.find((c) => c.originOid === a.transactionOid)!.oid);
    assert.equal(orig.canFlip, false);
    const list = await rows(api, emp.h);
    assert.equal(list.filter((t) => t.transactionStatus === "Moved").length, 2);
    assert.equal(list.length, 4);
    assert.ok((await expenses(api, emp.h)).some((e) => e.oid === x.oid));
    const entity = await get(api, emp.h, `pwaexpenseentity?record=${x.oid}`);
    assertOk(entity);
    // Later issuer events land on the copy: capturing the authorised one.
    const copyB = copies.find((c) => c.originOid === b.transactionOid)!;
    assert.equal(copyB.transactionStatus, "Authorised");
    assert.equal((await issuer(api, "capture", { transactionOid: b.transactionOid })).status, 200);
    assert.equal((await detail(api, emp.h, copyB.oid)).transactionStatus, "Captured");
    assert.equal((await detail(api, emp.h, b.transactionOid)).transactionStatus, "Moved");
    // A second flip from the card's expense is -0002; purpose and codes may be minimal.
    const c = await buy(api, card, { amount: "3" });
    const r2 = await flip(api, emp.h, { transactionoids: [c.transactionOid], purpose: "Taxi" });
    assertOk(r2);
    assert.equal((r2.json.expenseRequest as ExpenseRequest).id, `${card.id}-0002`);
  }),
);

Deno.test(
  "[flip] purpose required, the named expense must be theirs, one expense at a time",
  withApp(async (api) => {
    const { emp, card } = await setUp(api);
    const a = await buy(api, card);
    const before = await rows(api, emp.h);
    for (const purpose of [undefined, "", "   "]) {
      assertError(
        await flip(api, emp.h, { ...FORM, purpose, transactionoids: [a.transactionOid] }),
        422,
        "purpose_required",
        "Please enter a purpose",
      );
    }
    assertError(
      await flip(api, emp.h, { ...FORM, transactionoids: [a.transactionOid], oid: "other" }),
      422,
      "wrong_expense",
    );
    assertError(
      await flip(api, emp.h, { ...FORM, ccoid: "cc-it", transactionoids: [a.transactionOid] }),
      422,
      "codes_mismatch",
    );
    assertError(await flip(api, emp.h, { ...FORM, transactionoids: [] }), 400, "invalid_body");
    const other = await newCard(api, emp.h, { purpose: "Second card" });
    const b = await buy(api, other);
    assertError(
      await flip(api, emp.h, { ...FORM, transactionoids: [a.transactionOid, b.transactionOid] }),
      422,
      "mixed_expenses",
    );
    // Nothing moved, no expense made.
    const after = await rows(api, emp.h);
    assert.equal(after.filter((t) => t.transactionStatus === "Moved").length, 0);
    assert.equal(after.length, before.length + 1);
    assert.ok(!(await expenses(api, emp.h)).some((e) => e.id.endsWith("-0001")));
  }),
);

Deno.test(
  "[flip] only the card's author; refused, reviewed, reversed and moved transactions are refused",
  withApp(async (api) => {
    const { emp, card } = await setUp(api);
    const mgr = await login(api, DEMO.manager);
    const ok = await buy(api, card);
    assertError(
      await flip(api, mgr.h, { ...FORM, transactionoids: [ok.transactionOid] }),
      404,
      "not_found",
    );
    const refused = await buy(api, card, { mcc: "7995" });
    const reversed = await buy(api, card, { capture: false });
    await issuer(api, "reverse", { transactionOid: reversed.transactionOid });
    const reviewed = await buy(api, card);
    const { transactions, kv } = api.deps.store;
    const e = await transactions.get(emp.oid, reviewed.transactionOid);
    await transactions.put(kv.atomic().check(e), { ...e.value!, reviewed: true }).commit();
    assertOk(await flip(api, emp.h, { ...FORM, transactionoids: [ok.transactionOid] }));
    // Sent again as it was, the flip answers the same expense (a retry after a lost answer).
    const again = await flip(api, emp.h, { ...FORM, transactionoids: [ok.transactionOid] });
    assertOk(again);
    assert.equal((again.json.expenseRequest as ExpenseRequest).id, `${card.id}-0001`);
    // Otherwise a moved transaction is refused like the others.
    for (const t of [refused, reversed, reviewed]) {
      assertError(
        await flip(api, emp.h, { ...FORM, transactionoids: [t.transactionOid] }),
        422,
        "not_flippable",
      );
    }
    for (
      const other of [{ purpose: "Another purpose" }, { ccoid: null, gloid: null, projoid: null }]
    ) {
      assertError(
        await flip(api, emp.h, { ...FORM, ...other, transactionoids: [ok.transactionOid] }),
        422,
        "not_flippable",
      );
    }
    assert.equal((await detail(api, emp.h, refused.transactionOid)).transactionStatus, "Refused");
    assert.equal(
      (await expenses(api, emp.h)).filter((e) => e.id.startsWith(`${card.id}-`)).length,
      1,
    );
  }),
);

Deno.test(
  "[flip] atomic: the originals are Moved exactly when the new expense exists",
  withApp(async (api) => {
    const { emp, card } = await setUp(api);
    const a = await buy(api, card);
    const b = await buy(api, card);
    const body = { ...FORM, transactionoids: [a.transactionOid, b.transactionOid] };
    // A failure right before the commit leaves everything as it was.
    api.deps.faults = {
      beforeCommit: (what) => {
        if (what === "flip") throw new Error("crash before commit");
      },
    };
    const quiet = console.error;
    console.error = () => {};
    try {
      assert.equal((await flip(api, emp.h, body)).status, 500);
    } finally {
      console.error = quiet;
      api.deps.faults = undefined;
    }
    assert.ok((await rows(api, emp.h)).every((t) => t.transactionStatus === "Captured"));
    assert.ok(!(await expenses(api, emp.h)).some((e) => e.id.includes("-")));
    // Ten concurrent flips of the same transactions: one makes the expense, the other nine find
    // it made and answer it (a repeat is a success); then another purpose is refused.
    const all = await Promise.all(Array.from({ length: 10 }, () => flip(api, emp.h, body)));
    all.forEach(assertOk);
    const oids = new Set(all.map((r) => (r.json.expenseRequest as ExpenseRequest).oid));
    assert.equal(oids.size, 1);
    assertError(await flip(api, emp.h, { ...body, purpose: "Other" }), 422, "not_flippable");
    const made = (await expenses(api, emp.h)).filter((e) => e.id.startsWith(`${card.id}-`));
    assert.deepEqual(made.map((e) => e.id), [`${card.id}-0001`]);
    assert.deepEqual(made.map((e) => e.oid), [...oids]);
    const list = await rows(api, emp.h);
    assert.equal(list.filter((t) => t.transactionStatus === "Moved").length, 2);
    assert.equal(list.filter((t) => t.expenseOid === made[0].oid).length, 2);
  }),
);

/** The request as its author's list and detail show it (spec §3 fields). */
async function requestOf(api: TestApi, h: Headers, oid: string): Promise<ExpenseRequest> {
  const r = await get(api, h, `pwaexpenseentity?record=${oid}`);
  assertOk(r);
  return r.json.expenseRequest as ExpenseRequest;
}

Deno.test(
  "[flip] spec §4 moved: a closed card's request whose every transaction was flipped away ends moved",
  withApp(async (api) => {
    const { emp, card } = await setUp(api);
    const a = await buy(api, card, { amount: "20" });
    const b = await buy(api, card, { amount: "15" });
    // The card still open: flipping all it spent leaves the request accepted (it may spend).
    assertOk(await flip(api, emp.h, { transactionoids: [a.transactionOid], purpose: "Taxi" }));
    assert.equal((await requestOf(api, emp.h, card.oid)).statusCode, "accepted");
    // Closed, with one transaction left on it: still accepted.
    assertOk(await post(api, emp.h, "pwaclose", { oid: card.oid }));
    let src = await requestOf(api, emp.h, card.oid);
    assert.deepEqual([src.statusCode, src.cardStatusCode], ["accepted", "Closed"]);
    // The flip that moves the last one ends it moved: read-only, no card action, no comment.
    assertOk(await flip(api, emp.h, { transactionoids: [b.transactionOid], purpose: "Hotel" }));
    src = await requestOf(api, emp.h, card.oid);
    assert.equal(src.statusCode, "moved");
    assert.deepEqual([src.canCancel, src.canClose, src.canGenerate], [false, false, false]);
    const listed = (await expenses(api, emp.h)).find((e) => e.oid === card.oid)!;
    assert.equal(listed.statusCode, "moved");
    assertError(
      await post(api, emp.h, "pwaaddcomment", { oid: card.oid, comment: "late note" }),
      403,
    );
  }),
);

Deno.test(
  "[flip] spec §4 moved: closing the card after all was flipped ends the request moved; a refused purchase keeps it",
  withApp(async (api) => {
    const { emp, card } = await setUp(api);
    const a = await buy(api, card, { amount: "12" });
    assertOk(await flip(api, emp.h, { transactionoids: [a.transactionOid], purpose: "Lunch" }));
    assertOk(await post(api, emp.h, "pwaclose", { oid: card.oid }));
    assert.equal((await requestOf(api, emp.h, card.oid)).statusCode, "moved");
    // Another card with a refused purchase left on it: closing keeps it accepted (not all moved).
    const other = await newCard(api, emp.h);
    const ok = await buy(api, other, { amount: "8" });
    const refused = await buy(api, other, { amount: "999999" });
    assert.equal((await detail(api, emp.h, refused.transactionOid)).transactionStatus, "Refused");
    assertOk(await flip(api, emp.h, { transactionoids: [ok.transactionOid], purpose: "Parking" }));
    assertOk(await post(api, emp.h, "pwaclose", { oid: other.oid }));
    assert.equal((await requestOf(api, emp.h, other.oid)).statusCode, "accepted");
  }),
);
