/**
 * This file: generation, reveals, freeze, close and cancel (the same subject goes on in
 * cards_secure_test.ts).
 *
 * Virtual cards and 3-D Secure (spec §2, §3 Card and Secure settings, §4, §6, §7):
 * generation on the embedded issuer simulator, the masked card, reveals sealed for the
 * device's key, freeze/unfreeze/close and the request flags they change, the secure settings
 * flow with its emailed or texted PIN. In-process, no sockets.
 */
import assert from "node:assert/strict";
import { DEMO, type TestApi, withApp } from "../helpers.ts";
import { newRevealKey, openWithKey } from "../../client/shared/reveal_cipher.ts";
import type { Card } from "../../client/shared/contract/cards.ts";
import type { ExpenseRequest } from "../../client/shared/contract/requests.ts";
import { assertError, assertOk, type Headers, login, luhn } from "./api.ts";
import { accepted, defineSecure, E, get, post, SECURE, TRAVEL } from "./cards_helpers.ts";

async function entity(api: TestApi, h: Headers, oid: string): Promise<ExpenseRequest> {
  const r = await get(api, h, `pwaexpenseentity?record=${oid}`);
  assertOk(r);
  return r.json.expenseRequest as ExpenseRequest;
}

async function reveal(api: TestApi, h: Headers, oid: string) {
  const key = newRevealKey();
  const r = await get(api, h, `pwaexpensecardreveal?oid=${oid}&key=${key}`);
  return { r, key };
}

/**
 * The race of a card read with close/cancel, made deterministic: the issuer's close answers
 * only after a card read (which syncs the request with the issuer) has run in between.
 */
function readBetweenIssuerCloseAndWrite(api: TestApi, h: Headers, oid: string) {
  const issuer = api.deps.issuer;
  const close = issuer.close.bind(issuer);
  issuer.close = async (token: string) => {
    const card = await close(token);
    const read = await get(api, h, `pwaexpensecard?oid=${oid}`);
    assertOk(read);
    assert.equal((read.json.card as Card).cardStatusCode, "Closed");
    return card;
  };
  return () => (issuer.close = close);
}

// ---------------------------------------------------------------------------------------------
// Generation

Deno.test(
  "[cards] generate: refused without 3-D Secure, then a card for the request's amount",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    const oid = await accepted(api, emp.h);
    const before = await entity(api, emp.h, oid);
    assert.equal(before.canGenerate, true);
    assert.equal(before.is3DSecureDefined, false);
    assertError(await post(api, emp.h, "pwanewqcard", { oid }), 403, "secure_required");
    assert.equal((await entity(api, emp.h, oid)).hasCard, false);

    await defineSecure(api, emp.h);
    assert.equal((await entity(api, emp.h, oid)).is3DSecureDefined, true);
    const g = await post(api, emp.h, "pwanewqcard", { oid });
    assertOk(g);
    const card = g.json.card as Card;
    assert.equal(card.oid, oid);
    assert.equal(card.cardStatusCode, "Active");
    assert.equal(card.activeCard, true);
    assert.equal(card.amountAllocated, 120.5);
    assert.equal(card.amountAvailable, 120.5);
    assert.equal(card.amountCurrency, "EUR");
    assert.equal(card.type, "visa");
    assert.equal(card.cardHolderName, "EMMA LAURENT");
    assert.match(card.cardNumber, /^•••• •••• •••• \d{4}$/);
    assert.equal(card.cvc, "•••");
    assert.equal(card.canReveal, true);
    assert.equal(card.validityDays, 90);
    assert.ok(card.expirationMonth >= 1 && card.expirationMonth <= 12);
    // The request follows the card (spec §3/§4).
    const after = await entity(api, emp.h, oid);
    assert.equal(after.hasCard, true);
    assert.equal(after.openCard, true);
    assert.equal(after.cardStatusCode, "Active");
    assert.equal(after.canGenerate, false);
    // No card number in any answer but the reveal.
    for (const text of [g.text, JSON.stringify(after)]) {
      assert.ok(!/\d{13,19}/.test(text), text);
    }
    // A second call answers the same card, never a second one.
    const again = await post(api, emp.h, "pwanewqcard", { oid });
    assertOk(again);
    assert.equal((again.json.card as Card).last4, card.last4);
    const issued = [];
    for await (const e of api.kv.list({ prefix: ["issuer", "card"] })) issued.push(e.key);
    assert.equal(issued.length, 1);
  }),
);

Deno.test(
  "[cards] generate: 404 for another user's request, 403 on a request not accepted",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    const mgr = await login(api, DEMO.manager);
    await defineSecure(api, emp.h);
    await defineSecure(api, mgr.h, { ...SECURE, phoneNumber: "698765432" });
    const oid = await accepted(api, emp.h);
    assertError(await post(api, mgr.h, "pwanewqcard", { oid }), 404, "not_found");
    assertError(await get(api, mgr.h, `pwaexpensecard?oid=${oid}`), 404);
    const c = await post(api, emp.h, "pwaexpenserequestcreate", { expenseRequest: TRAVEL });
    const fresh = (c.json.expenseRequest as ExpenseRequest).oid;
    assertError(await post(api, emp.h, "pwanewqcard", { oid: fresh }), 403, "not_allowed");
    assertOk(await post(api, emp.h, "pwasubmit", { record: fresh }));
    assertError(await post(api, emp.h, "pwanewqcard", { oid: fresh }), 403, "not_allowed");
    assertError(await post(api, emp.h, "pwanewqcard", { oid: "nope" }), 404);
    assertError(await api.call("POST", `${E}/pwanewqcard`, { body: { oid } }), 401);
  }),
);

Deno.test(
  "[cards] 50 concurrent pwanewqcard on one request give one card",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    await defineSecure(api, emp.h);
    const oid = await accepted(api, emp.h);
    const rs = await Promise.all(
      Array.from({ length: 50 }, () => post(api, emp.h, "pwanewqcard", { oid })),
    );
    for (const r of rs) assertOk(r);
    assert.equal(new Set(rs.map((r) => (r.json.card as Card).last4)).size, 1);
    let n = 0;
    for await (const _ of api.kv.list({ prefix: ["issuer", "card"] })) n++;
    assert.equal(n, 1);
    assert.equal((await entity(api, emp.h, oid)).hasCard, true);
  }),
);

Deno.test(
  "[cards] a budget request's card: allocated is the sum, lines fund on their dates",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    await defineSecure(api, emp.h);
    const t0 = Date.UTC(2027, 0, 10, 9);
    api.deps.now = () => t0;
    const oid = await accepted(api, emp.h, {
      typeOid: "type-event",
      amount: undefined,
      budget: { period: "monthly", startDate: "2027-01-10", amount: 100, occurrences: 3 },
    });
    const card = (await post(api, emp.h, "pwanewqcard", { oid })).json.card as Card;
    assert.equal(card.type, "mc");
    assert.equal(card.amountAllocated, 300);
    assert.equal(card.amountAvailable, 100);
    assert.deepEqual(card.budget.map((l) => l.budgetfunded), [true, false, false]);
    api.deps.now = () => Date.UTC(2027, 1, 10, 8);
    const feb = (await get(api, emp.h, `pwaexpensecard?oid=${oid}`)).json.card as Card;
    assert.equal(feb.amountAvailable, 200);
    assert.deepEqual(feb.budget.map((l) => l.budgetfunded), [true, true, false]);
    assert.deepEqual((await entity(api, emp.h, oid)).budget.map((l) => l.budgetfunded), [
      true,
      true,
      false,
    ]);
  }, { TOKEN_IDLE_DAYS: "3650" }),
);

// ---------------------------------------------------------------------------------------------
// Reveal

Deno.test(
  "[cards] reveal by the author decrypts on the device to a Luhn-valid PAN and a 3-digit CVC",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    await defineSecure(api, emp.h);
    const oid = await accepted(api, emp.h);
    const card = (await post(api, emp.h, "pwanewqcard", { oid })).json.card as Card;
    const { r, key } = await reveal(api, emp.h, oid);
    assertOk(r);
    assert.equal(r.res.headers.get("cache-control"), "no-store");
    assert.ok(!/\d{13,19}/.test(r.text), "the answer itself holds no number");
    const { pan, cvc } = JSON.parse(await openWithKey(key, String(r.json.encryptedresult)));
    assert.match(pan, /^\d{16}$/);
    assert.ok(luhn(pan));
    assert.ok(pan.startsWith("4"), "a Visa test number");
    assert.equal(pan.slice(-4), card.last4);
    assert.match(cvc, /^\d{3}$/);
    // Another key cannot open it.
    await assert.rejects(() => openWithKey(newRevealKey(), String(r.json.encryptedresult)));
    // Each reveal is recorded: who and when.
    const log = [];
    for await (const e of api.kv.list<{ userOid: string }>({ prefix: ["card_reveal", oid] })) {
      log.push(e.value.userOid);
    }
    assert.deepEqual(log, [emp.oid]);
  }),
);

Deno.test(
  "[cards] reveal refused to anyone else, with reveal disabled, on a frozen card, with a bad key",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    const mgr = await login(api, DEMO.manager);
    await defineSecure(api, emp.h);
    const oid = await accepted(api, emp.h);
    assertOk(await post(api, emp.h, "pwanewqcard", { oid }));
    assertError((await reveal(api, mgr.h, oid)).r, 404);
    assertError(await get(api, emp.h, `pwaexpensecardreveal?oid=${oid}&key=short`), 400);
    assertOk(await post(api, emp.h, "pwafreezecard", { oid }));
    assertError((await reveal(api, emp.h, oid)).r, 403, "reveal_not_allowed");
    assertOk(await post(api, emp.h, "pwaunfreezecard", { oid }));
    assertOk((await reveal(api, emp.h, oid)).r);
    // The organisation turns reveals off.
    const meta = (await api.deps.store.org.meta())!;
    await api.kv.set(["org", "meta"], {
      ...meta,
      settings: { ...meta.settings, revealEnabled: false },
    });
    const card = (await get(api, emp.h, `pwaexpensecard?oid=${oid}`)).json.card as Card;
    assert.equal(card.canReveal, false);
    assertError((await reveal(api, emp.h, oid)).r, 403, "reveal_not_allowed");
  }),
);

// ---------------------------------------------------------------------------------------------
// Freeze, unfreeze, close, cancel

Deno.test(
  "[cards] freeze/unfreeze/close transitions and the request flags they change",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    await defineSecure(api, emp.h);
    const oid = await accepted(api, emp.h);
    assertOk(await post(api, emp.h, "pwanewqcard", { oid }));
    const frozen = await post(api, emp.h, "pwafreezecard", { oid });
    assertOk(frozen);
    assert.equal((frozen.json.card as Card).cardStatusCode, "Blocked");
    assert.equal((frozen.json.card as Card).canUnfreeze, true);
    let e = await entity(api, emp.h, oid);
    assert.equal(e.cardStatusCode, "Blocked");
    assert.equal(e.openCard, true);
    assertError(await post(api, emp.h, "pwafreezecard", { oid }), 403, "not_allowed");
    const thawed = await post(api, emp.h, "pwaunfreezecard", { oid });
    assertOk(thawed);
    assert.equal((thawed.json.card as Card).cardStatusCode, "Active");
    // Close: the card is closed at the issuer (final) and the request is read-only.
    assertOk(await post(api, emp.h, "pwaclose", { oid }));
    e = await entity(api, emp.h, oid);
    assert.equal(e.cardStatusCode, "Closed");
    assert.equal(e.openCard, false);
    assert.equal(e.canClose, false);
    assert.equal(e.canCancel, false);
    const closed = (await get(api, emp.h, `pwaexpensecard?oid=${oid}`)).json.card as Card;
    assert.equal(closed.cardStatusCode, "Closed");
    assert.equal(closed.validityDays, null);
    assert.equal(closed.canReveal, false);
    assertError(await post(api, emp.h, "pwaunfreezecard", { oid }), 403);
    assertError((await reveal(api, emp.h, oid)).r, 403);
    const issued = await api.deps.issuer.getCard(
      (await api.deps.store.requests.get(emp.oid, oid)).value!.card!.token,
    );
    assert.equal(issued?.status, "closed");
  }),
);

Deno.test(
  "[cards] cancel with a card closes the card and cancels the request",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    await defineSecure(api, emp.h);
    const oid = await accepted(api, emp.h);
    assertOk(await post(api, emp.h, "pwanewqcard", { oid }));
    assert.equal((await entity(api, emp.h, oid)).canCancel, true);
    assertOk(await post(api, emp.h, "pwacancel", { oid }));
    const e = await entity(api, emp.h, oid);
    assert.equal(e.statusCode, "cancelled");
    assert.equal(e.cardStatusCode, "Closed");
    const token = (await api.deps.store.requests.get(emp.oid, oid)).value!.card!.token;
    assert.equal((await api.deps.issuer.getCard(token))?.status, "closed");
  }),
);

Deno.test(
  "[cards] close and cancel racing a card read complete: the card closed by them ends the request",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    await defineSecure(api, emp.h);
    const a = await accepted(api, emp.h);
    const b = await accepted(api, emp.h);
    assertOk(await post(api, emp.h, "pwanewqcard", { oid: a }));
    assertOk(await post(api, emp.h, "pwanewqcard", { oid: b }));
    let restore = readBetweenIssuerCloseAndWrite(api, emp.h, a);
    assertOk(await post(api, emp.h, "pwaclose", { oid: a }));
    restore();
    let e = await entity(api, emp.h, a);
    assert.equal(e.statusCode, "accepted");
    assert.equal(e.cardStatusCode, "Closed");
    restore = readBetweenIssuerCloseAndWrite(api, emp.h, b);
    assertOk(await post(api, emp.h, "pwacancel", { oid: b }));
    restore();
    e = await entity(api, emp.h, b);
    assert.equal(e.statusCode, "cancelled", "a cancel that closed the card cancels the request");
    assert.equal(e.cardStatusCode, "Closed");
    // Done is done: a later close or cancel is refused before anything is sent to the issuer.
    assertError(await post(api, emp.h, "pwacancel", { oid: a }), 403, "not_allowed");
    assertError(await post(api, emp.h, "pwaclose", { oid: b }), 403, "not_allowed");
  }),
);

Deno.test(
  "[cards] close and cancel sent together: neither answers 403, the request ends cancelled",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    await defineSecure(api, emp.h);
    const oid = await accepted(api, emp.h);
    assertOk(await post(api, emp.h, "pwanewqcard", { oid }));
    // Both pass their check, both close the card at the issuer, then write in turn.
    const issuer = api.deps.issuer;
    const close = issuer.close.bind(issuer);
    let waiting: (() => void)[] = [];
    issuer.close = async (token: string) => {
      const card = await close(token);
      await new Promise<void>((go) => {
        waiting.push(go);
        if (waiting.length === 2) { for (const g of waiting) g(); }
      });
      return card;
    };
    const [c1, c2] = await Promise.all([
      post(api, emp.h, "pwaclose", { oid }),
      post(api, emp.h, "pwacancel", { oid }),
    ]);
    issuer.close = close;
    waiting = [];
    assertOk(c1);
    assertOk(c2);
    const e = await entity(api, emp.h, oid);
    assert.equal(e.statusCode, "cancelled");
    assert.equal(e.cardStatusCode, "Closed");
  }),
);

Deno.test(
  "[cards] the obfuscated card is what the app keeps: masked number, brand, holder, expiry",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    await defineSecure(api, emp.h);
    const oid = await accepted(api, emp.h);
    const card = (await post(api, emp.h, "pwanewqcard", { oid })).json.card as Card;
    const o = await get(api, emp.h, `pwaexpensecardobfuscated?oid=${oid}`);
    assertOk(o);
    assert.deepEqual(o.json.card, {
      oid,
      cardNumber: card.cardNumber,
      last4: card.last4,
      type: "visa",
      cardHolderName: "EMMA LAURENT",
      expirationMonth: card.expirationMonth,
      expirationYear: card.expirationYear,
      cardStatusCode: "Active",
    });
  }),
);
