/**
 * The issuer simulator's card lifecycle (spec §3 Transaction statuses, §8 refused reasons):
 * authorizations decided in the fixed order with their reasons, CVC and 3-D Secure answers counted
 * before they are read, budget lines, capture (partial, several, final), reversal, refund (linked
 * or not), idempotent replays and the 50-purchase race. Conversion in other currencies is in
 * issuer_fx_test.ts.
 */
import assert from "node:assert/strict";
import { DAY, entries, type Fixture, fixture, order, rejectsWith } from "./issuer_fixture.ts";
import {
  type AuthorizeParams,
  DECLINE_REASONS,
  type DeclineCode,
} from "../../server/issuer/mod.ts";
import { MAX_TRIES, WINDOW_MS } from "../../server/issuer/attempts.ts";
import { refusedAbbreviation } from "../../client/shared/transaction_rules.ts";

const CAFE = { name: "Café de la Gare", city: "Lyon", country: "FR", mcc: "5812" };
const HOLDER = "user-ada";
const PASSWORD = "Secret-3ds";

/** An active one-off EUR card of 100.00, holder enrolled, gambling blocked; its CVC. */
async function card(f: Fixture, over: Parameters<typeof order>[0] = {}) {
  await f.issuer.setThreeDSPassword(HOLDER, PASSWORD, "current");
  const c = await f.issuer.createCard(order({
    amount: 10_000,
    cardholderId: HOLDER,
    spendingControls: { blockedCategories: ["7995", "6051"] },
    ...over,
  }));
  const s = await f.issuer.createRevealSession(c.token);
  const d = await f.issuer.redeemRevealSession(s.sessionId);
  return { ...c, cvc: d.cvc, pan: d.pan };
}

const buy = (token: string, over: Partial<AuthorizeParams> = {}): AuthorizeParams => ({
  token,
  amount: 1_000,
  currency: "EUR",
  merchant: CAFE,
  ...over,
});

async function declined(f: Fixture, p: AuthorizeParams, code: DeclineCode) {
  const before = (await f.issuer.getCard(p.token))!;
  const a = await f.issuer.authorize(p);
  assert.equal(a.approved, false, `expected ${code}, approved`);
  assert.equal(a.declineCode, code);
  assert.equal(a.reason, DECLINE_REASONS[code]);
  assert.equal(a.status, "declined");
  assert.equal(a.amountHeld, 0);
  const after = (await f.issuer.getCard(p.token))!;
  assert.equal(after.amountSpent, before.amountSpent, "a decline moves no money");
  return a;
}

Deno.test("[issuer] authorize: each decline reason in the fixed order, then approve", async () => {
  await using f = await fixture();
  const c = await card(f);
  const wrongCvc = c.cvc === "000" ? "001" : "000";
  // Everything wrong at once: the first step decides, then each fix reveals the next.
  const all = buy(c.token, {
    amount: 50_000,
    cvc: wrongCvc,
    expMonth: c.expMonth === 1 ? 2 : 1,
    expYear: c.expYear,
    threeDS: { password: "wrong" },
    merchant: { ...CAFE, mcc: "7995" },
  });
  await f.issuer.freeze(c.token);
  await declined(f, all, "card_frozen");
  await f.issuer.unfreeze(c.token);
  await declined(f, all, "incorrect_cvc");
  const cvcOk = { ...all, cvc: c.cvc };
  await declined(f, cvcOk, "expiry_mismatch");
  const detailsOk = { ...cvcOk, expMonth: c.expMonth, expYear: c.expYear % 100 };
  await declined(f, { ...detailsOk, threeDS: {} }, "three_ds_missing");
  await declined(f, detailsOk, "three_ds_failed");
  const secureOk = { ...detailsOk, threeDS: { password: PASSWORD } };
  await declined(f, secureOk, "mcc_blocked");
  const mccOk = { ...secureOk, merchant: CAFE };
  await declined(f, { ...mccOk, currency: "XTS" }, "currency_unsupported");
  await declined(f, mccOk, "insufficient_funds");
  const ok = await f.issuer.authorize({ ...mccOk, amount: 10_000 });
  assert.equal(ok.approved, true);
  assert.equal(ok.threeDS, "passed");
  assert.equal(ok.status, "pending");
  assert.equal((await f.issuer.getCard(c.token))!.amountAvailable, 0);
  await f.issuer.close(c.token);
  await declined(f, mccOk, "card_closed");
  // Every decision is kept, newest first, declines too.
  const list = await f.issuer.listAuthorizations(c.token);
  assert.equal(list.length, 10);
  assert.equal(list[0].declineCode, "card_closed");
  assert.deepEqual(
    list.map((a) => refusedAbbreviation(a.reason)).reverse(),
    [
      "Invalid card status",
      "CVC",
      "Verification",
      "Authentication",
      "Authentication",
      "MCC",
      "Invalid currency",
      "Exceeds maximum",
      "",
      "Invalid card status",
    ],
  );
});

Deno.test("[issuer] authorize: an expired card, an unenrolled holder (3Dsecure), unknown card", async () => {
  await using f = await fixture();
  const c = await card(f, { validUntil: "2026-01-31" });
  f.clock.t += 20 * DAY; // 2026-02-04
  await declined(f, buy(c.token), "card_expired");
  const other = await f.issuer.createCard(order({ validUntil: "2026-12-31", amount: 5_000 }));
  const a = await declined(
    f,
    buy(other.token, { threeDS: { password: "x" } }),
    "three_ds_not_enrolled",
  );
  assert.equal(refusedAbbreviation(a.reason), "3-D Secure");
  // Without a challenge the same card pays.
  assert.equal((await f.issuer.authorize(buy(other.token))).approved, true);
  await rejectsWith(f.issuer.authorize(buy("ic_unknownunknownunknownunk")), "card_not_found");
  await rejectsWith(f.issuer.authorize(buy(other.token, { amount: 0 })), "invalid_request");
  await rejectsWith(
    f.issuer.authorize(buy(other.token, { merchant: { ...CAFE, mcc: "58" } })),
    "invalid_request",
  );
});

Deno.test("[issuer] CVC and 3-D Secure answers are counted before they are read", async () => {
  await using f = await fixture();
  const c = await card(f);
  const wrong = c.cvc === "999" ? "998" : "999";
  const tries = await Promise.all(
    Array.from({ length: 12 }, () => f.issuer.authorize(buy(c.token, { cvc: wrong }))),
  );
  const codes = tries.map((a) => a.declineCode);
  assert.equal(codes.filter((x) => x === "incorrect_cvc").length, MAX_TRIES);
  assert.equal(codes.filter((x) => x === "cvc_locked").length, 12 - MAX_TRIES);
  // Locked: even the right CVC is refused unread, until the window passes.
  await declined(f, buy(c.token, { cvc: c.cvc }), "cvc_locked");
  f.clock.t += WINDOW_MS + 1;
  assert.equal((await f.issuer.authorize(buy(c.token, { cvc: c.cvc }))).approved, true);
  // Right answers give their count back: many good purchases never lock the card.
  for (let i = 0; i < MAX_TRIES + 2; i++) {
    const a = await f.issuer.authorize(
      buy(c.token, { amount: 100, threeDS: { password: PASSWORD } }),
    );
    assert.equal(a.approved, true);
  }
  // 3-D Secure counts per cardholder, across the holder's cards.
  const second = await card(f);
  for (let i = 0; i < MAX_TRIES; i++) {
    const t = i % 2 ? c.token : second.token;
    await declined(f, buy(t, { amount: 100, threeDS: { password: `no-${i}` } }), "three_ds_failed");
  }
  await declined(f, buy(second.token, { threeDS: { password: PASSWORD } }), "three_ds_locked");
});

Deno.test("[issuer] budget card: a line not yet funded is 'Exceeded maximum', a line due today funds", async () => {
  await using f = await fixture();
  const c = await card(f, {
    amount: undefined,
    fundingLines: [{ date: "2026-01-15", amount: 3_000 }, { date: "2026-02-15", amount: 3_000 }],
  });
  const a = await declined(f, buy(c.token, { amount: 4_000 }), "budget_not_funded");
  assert.equal(refusedAbbreviation(a.reason), "Exceeded maximum");
  await declined(f, buy(c.token, { amount: 7_000 }), "insufficient_funds");
  assert.equal((await f.issuer.authorize(buy(c.token, { amount: 3_000 }))).approved, true);
  f.clock.t += 31 * DAY; // 2026-02-15: the authorization itself funds the line due today
  const b = await f.issuer.authorize(buy(c.token, { amount: 3_000 }));
  assert.equal(b.approved, true);
  const after = (await f.issuer.getCard(c.token))!;
  assert.equal(after.amountFunded, 6_000);
  assert.equal(after.amountAvailable, 0);
  assert.ok(after.lines.every((l) => l.funded));
  assert.equal((await entries(f.kv, ["issuer", "due"])).length, 0, "due index in step");
});

Deno.test("[issuer] capture at once, later, partially and several times; final releases the rest", async () => {
  await using f = await fixture();
  const c = await card(f);
  const now = await f.issuer.authorize(buy(c.token, { amount: 1_500, capture: true }));
  assert.equal(now.status, "closed");
  assert.equal(now.amountCaptured, 1_500);
  assert.equal(now.capturedAt, now.createdAt);
  const a = await f.issuer.authorize(buy(c.token, { amount: 5_000 }));
  assert.equal((await f.issuer.getCard(c.token))!.amountAvailable, 3_500, "held counts as spent");
  const c1 = await f.issuer.capture({ authorizationId: a.id, amount: 2_000 });
  assert.equal(c1.status, "pending");
  assert.equal(c1.amountHeld, 3_000);
  const c2 = await f.issuer.capture({ authorizationId: a.id, amount: 1_000, final: true });
  assert.equal(c2.status, "closed");
  assert.deepEqual([c2.amountCaptured, c2.amountHeld, c2.amountReversed], [3_000, 0, 2_000]);
  assert.deepEqual(c2.history.map((h) => h.type), [
    "authorization",
    "capture",
    "capture",
    "reversal",
  ]);
  assert.equal(c2.version, 3);
  assert.equal((await f.issuer.getCard(c.token))!.amountAvailable, 10_000 - 1_500 - 3_000);
  await rejectsWith(f.issuer.capture({ authorizationId: a.id }), "invalid_state");
  const b = await f.issuer.authorize(buy(c.token, { amount: 1_000 }));
  await rejectsWith(f.issuer.capture({ authorizationId: b.id, amount: 1_001 }), "invalid_request");
  const whole = await f.issuer.capture({ authorizationId: b.id });
  assert.deepEqual([whole.amountCaptured, whole.status], [1_000, "closed"]);
  const no = await f.issuer.authorize(buy(c.token, { amount: 999_999 }));
  await rejectsWith(f.issuer.capture({ authorizationId: no.id }), "invalid_state");
  await rejectsWith(
    f.issuer.capture({ authorizationId: "iauth_unknownunknownunknownu" }),
    "authorization_not_found",
  );
});

Deno.test("[issuer] reversal of the uncaptured rest; refunds linked (partial, whole) and not", async () => {
  await using f = await fixture();
  const c = await card(f);
  const a = await f.issuer.authorize(buy(c.token, { amount: 4_000 }));
  const r1 = await f.issuer.reverse({ authorizationId: a.id, amount: 1_000 });
  assert.deepEqual([r1.status, r1.amountHeld, r1.amountReversed], ["pending", 3_000, 1_000]);
  const r2 = await f.issuer.reverse({ authorizationId: a.id });
  assert.deepEqual([r2.status, r2.amountHeld], ["reversed", 0]);
  assert.equal((await f.issuer.getCard(c.token))!.amountAvailable, 10_000);
  await rejectsWith(f.issuer.refund({ authorizationId: a.id }), "invalid_state");

  const b = await f.issuer.authorize(buy(c.token, { amount: 6_000, capture: true }));
  const p = await f.issuer.refund({ authorizationId: b.id, amount: 2_500 });
  assert.deepEqual([p.amountRefunded, p.merchantRefunded], [2_500, 2_500]);
  assert.equal((await f.issuer.getCard(c.token))!.amountAvailable, 6_500);
  await rejectsWith(f.issuer.refund({ authorizationId: b.id, amount: 3_501 }), "invalid_request");
  const all = await f.issuer.refund({ authorizationId: b.id });
  assert.equal(all.amountRefunded, 6_000);
  assert.equal((await f.issuer.getCard(c.token))!.amountAvailable, 10_000);

  // A merchant's credit without a purchase: its own record; nothing is spent, so nothing to
  // give back (the card never offers more than its allocation).
  const credit = await f.issuer.refund({
    token: c.token,
    amount: 700,
    currency: "EUR",
    merchant: CAFE,
  });
  assert.deepEqual([credit.kind, credit.approved, credit.status], ["refund", true, "closed"]);
  assert.equal(credit.amountRefunded, 700);
  assert.equal((await f.issuer.getCard(c.token))!.amountAvailable, 10_000);
  // Closed cards still take refunds.
  await f.issuer.close(c.token);
  await f.issuer.refund({ token: c.token, amount: 300, currency: "EUR", merchant: CAFE });
  assert.equal((await f.issuer.getCard(c.token))!.amountAvailable, 10_000);
});

Deno.test("[issuer] merchant credits never lift the available amount above the allocation", async () => {
  await using f = await fixture();
  const c = await card(f);
  const credit = (amount: number) =>
    f.issuer.refund({ token: c.token, amount, currency: "EUR", merchant: CAFE });
  const available = async () => (await f.issuer.getCard(c.token))!.amountAvailable;
  // A credit on an untouched card: recorded, the card stays at its 100.00.
  await credit(5_000);
  assert.equal(await available(), 10_000);
  // Spent 40.00, credited 15.00: 75.00; credited 50.00 more: back to 100.00, not 110.00.
  const a = await f.issuer.authorize(buy(c.token, { amount: 4_000, capture: true }));
  assert.equal(await available(), 6_000);
  await credit(1_500);
  assert.equal(await available(), 7_500);
  await credit(5_000);
  assert.equal(await available(), 10_000);
  // The purchase refunded after those credits gives back nothing more either.
  await f.issuer.refund({ authorizationId: a.id });
  assert.equal(await available(), 10_000);
  // A hold released after a credit covered it: the same.
  const h = await f.issuer.authorize(buy(c.token, { amount: 3_000 }));
  await credit(3_000);
  await f.issuer.reverse({ authorizationId: h.id });
  assert.equal(await available(), 10_000);
  // Whatever the sequence, 100.00 are spendable and 100.01 are not.
  assert.equal((await f.issuer.authorize(buy(c.token, { amount: 10_001 }))).approved, false);
  assert.equal((await f.issuer.authorize(buy(c.token, { amount: 10_000 }))).approved, true);
});

Deno.test("[issuer] a budget card's credit makes no unfunded line spendable", async () => {
  await using f = await fixture();
  const c = await card(f, {
    amount: undefined,
    fundingLines: [{ date: "2026-01-15", amount: 2_000 }, { date: "2026-02-15", amount: 8_000 }],
  });
  await f.issuer.refund({ token: c.token, amount: 5_000, currency: "EUR", merchant: CAFE });
  const after = (await f.issuer.getCard(c.token))!;
  assert.equal(after.amountAvailable, 2_000, "only the funded line");
  assert.equal((await f.issuer.authorize(buy(c.token, { amount: 2_001 }))).approved, false);
});

Deno.test("[issuer] 50 concurrent purchases against a card that affords 10 approve exactly 10", async () => {
  await using f = await fixture();
  const c = await card(f);
  const all = await Promise.all(
    Array.from({ length: 50 }, () => f.issuer.authorize(buy(c.token, { amount: 1_000 }))),
  );
  assert.equal(all.filter((a) => a.approved).length, 10);
  assert.ok(all.filter((a) => !a.approved).every((a) => a.declineCode === "insufficient_funds"));
  const after = (await f.issuer.getCard(c.token))!;
  assert.equal(after.amountAvailable, 0);
  assert.equal(after.amountSpent, 10_000);
  assert.equal((await f.issuer.listAuthorizations(c.token)).length, 50);
});

Deno.test("[issuer] keyed calls replay their first answer; a card is found by number or last 4", async () => {
  await using f = await fixture();
  const c = await card(f);
  const p = buy(c.token, { idempotencyKey: "order-1", cvc: c.cvc });
  const [a, b] = await Promise.all([f.issuer.authorize(p), f.issuer.authorize(p)]);
  assert.equal(a.id, b.id);
  assert.equal((await f.issuer.getCard(c.token))!.amountSpent, 1_000, "charged once");
  await rejectsWith(f.issuer.authorize({ ...p, amount: 2_000 }), "idempotency_conflict");
  const k = { authorizationId: a.id, amount: 400, idempotencyKey: "cap-1" };
  await f.issuer.capture(k);
  assert.equal((await f.issuer.capture(k)).amountCaptured, 400, "captured once");
  assert.equal(await f.issuer.findCardByPan(c.pan), c.token);
  assert.equal(await f.issuer.findCardByPan("4242424242424241"), null);
  assert.deepEqual(await f.issuer.findCardsByLast4(c.last4), [c.token]);
  // No CVC and no card number in what the issuer keeps of authorizations.
  for (const e of await entries(f.kv, ["issuer"])) {
    if (e.key[1] === "vault") continue;
    const text = JSON.stringify(e.value);
    assert.ok(!text.includes(c.pan), `${e.key.join("/")} holds the PAN`);
    if (e.key[1] === "auth" || e.key[1] === "op") assert.doesNotMatch(text, /cvc":\s*"\d/);
  }
});
