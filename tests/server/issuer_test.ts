import assert from "node:assert/strict";
import { DAY, entries, fixture, order, rejectsWith, T0 } from "./issuer_fixture.ts";
import { luhnValid, TEST_BINS } from "../../server/issuer/pan.ts";

Deno.test("[issuer] createCard answers a masked one-off card funded at once", async () => {
  await using f = await fixture();
  const card = await f.issuer.createCard(order({ brand: "mastercard", amount: 50_000 }));
  assert.match(card.token, /^ic_[a-z2-7]{26}$/);
  assert.match(card.last4, /^\d{4}$/);
  assert.deepEqual(
    { ...card, token: "", last4: "" },
    {
      token: "",
      last4: "",
      brand: "mastercard",
      expMonth: 3,
      expYear: 2026,
      status: "active",
      kind: "one_off",
      cardholderName: "Ada Lovelace",
      currency: "EUR",
      amountAllocated: 50_000,
      amountFunded: 50_000,
      amountSpent: 0,
      amountAvailable: 50_000,
      validUntil: "2026-03-31",
      lines: [],
      metadata: card.metadata,
      cardholderId: null,
      spendingControls: { blockedCategories: [] },
      createdAt: T0,
    },
  );
  assert.deepEqual(await f.issuer.getCard(card.token), card);
  assert.equal(await f.issuer.getCard("ic_unknownunknownunknownunk"), null);
  assert.equal(await f.issuer.getCard("../../etc"), null);
  // What a caller does to its copy does not reach the issuer.
  card.amountAvailable = 1;
  assert.equal((await f.issuer.getCard(card.token))!.amountAvailable, 50_000);
});

Deno.test("[issuer] createCard replays: same key, same card; other parameters refused", async () => {
  await using f = await fixture();
  const o = order();
  const a = await f.issuer.createCard(o);
  f.clock.t += DAY; // a retry the next day is still the same card
  const b = await f.issuer.createCard({ ...o, metadata: { ...o.metadata } });
  assert.deepEqual(b, a);
  await rejectsWith(f.issuer.createCard({ ...o, amount: 999 }), "idempotency_conflict");
  await rejectsWith(f.issuer.createCard({ ...o, brand: "mastercard" }), "idempotency_conflict");
  assert.equal((await entries(f.kv, ["issuer", "card"])).length, 1);
  assert.equal((await entries(f.kv, ["issuer", "vault"])).length, 1);
});

Deno.test("[issuer] 50 concurrent createCard with one key make one card", async () => {
  await using f = await fixture();
  const o = order();
  const cards = await Promise.all(Array.from({ length: 50 }, () => f.issuer.createCard(o)));
  assert.equal(new Set(cards.map((c) => c.token)).size, 1);
  for (const c of cards) assert.deepEqual(c, cards[0]);
  assert.equal((await entries(f.kv, ["issuer", "card"])).length, 1);
  assert.equal((await entries(f.kv, ["issuer", "vault"])).length, 1);
  assert.equal((await entries(f.kv, ["issuer", "idem"])).length, 1);
  const buckets = await entries(f.kv, ["issuer", "last4"]);
  assert.deepEqual(buckets.map((e) => e.value), [[cards[0].token]]);
});

Deno.test("[issuer] 50 concurrent createCard with distinct keys all succeed", async () => {
  await using f = await fixture();
  const cards = await Promise.all(
    Array.from(
      { length: 50 },
      (_, i) => f.issuer.createCard(order({ brand: i % 2 ? "visa" : "mastercard" })),
    ),
  );
  assert.equal(new Set(cards.map((c) => c.token)).size, 50);
  assert.equal((await entries(f.kv, ["issuer", "card"])).length, 50);
  const indexed = (await entries(f.kv, ["issuer", "last4"])).flatMap((e) => e.value as string[]);
  assert.equal(indexed.length, 50);
});

Deno.test("[issuer] createCard refuses malformed orders with invalid_request", async () => {
  await using f = await fixture();
  const lines = [{ date: "2026-02-01", amount: 100 }];
  const bad = [
    order({ idempotencyKey: "" }),
    order({ idempotencyKey: "k".repeat(256) }),
    order({ cardholderName: "  " }),
    order({ cardholderName: "Ada\nLovelace" }),
    order({ brand: "amex" as "visa" }),
    order({ currency: "eur" }),
    order({ amount: 0 }),
    order({ amount: 12.5 }),
    order({ amount: Number.MAX_SAFE_INTEGER + 1 }),
    order({ amount: 100, fundingLines: lines }),
    order({ amount: undefined }),
    order({ amount: undefined, fundingLines: [] }),
    order({ amount: undefined, fundingLines: [{ date: "2026-02-30", amount: 100 }] }),
    order({ amount: undefined, fundingLines: [{ date: "2026-04-01", amount: 100 }] }),
    order({ amount: undefined, fundingLines: [{ date: "2026-02-01", amount: -1 }] }),
    order({
      amount: undefined,
      fundingLines: Array.from({ length: 501 }, () => ({ date: "2026-02-01", amount: 1 })),
    }),
    order({ validUntil: "2026-01-14" }), // yesterday
    order({ validUntil: "31/03/2026" }),
    order({ metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, "v"])) }),
    order({ metadata: { k: 1 as unknown as string } }),
  ];
  for (const o of bad) await rejectsWith(f.issuer.createCard(o), "invalid_request");
  assert.equal((await entries(f.kv)).length, 0, "nothing written");
  // Valid until today is fine.
  assert.equal((await f.issuer.createCard(order({ validUntil: "2026-01-15" }))).expMonth, 1);
});

Deno.test("[issuer] reveal: a session redeems once to the card's details", async () => {
  await using f = await fixture();
  const card = await f.issuer.createCard(order({ brand: "visa", validUntil: "2027-11-30" }));
  const s = await f.issuer.createRevealSession(card.token);
  assert.match(s.sessionId, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(s.expiresAt, T0 + 60_000);
  const d = await f.issuer.redeemRevealSession(s.sessionId);
  assert.equal(d.token, card.token);
  assert.ok(luhnValid(d.pan) && d.pan.length === 16);
  assert.ok(TEST_BINS.visa.includes(d.pan.slice(0, 6)));
  assert.equal(d.pan.slice(-4), card.last4);
  assert.match(d.cvc, /^\d{3}$/);
  assert.deepEqual([d.expMonth, d.expYear], [11, 2027]);
  // Printed by accident, it shows masked; serialised on purpose, it is whole.
  const printed = Deno.inspect(d);
  assert.ok(!printed.includes(d.pan) && printed.includes(card.last4), printed);
  assert.ok(!Deno.inspect({ wrapped: [d] }).includes(d.pan));
  assert.equal(JSON.parse(JSON.stringify(d)).pan, d.pan);
  await rejectsWith(f.issuer.redeemRevealSession(s.sessionId), "session_invalid");
  await rejectsWith(f.issuer.redeemRevealSession("x".repeat(43)), "session_invalid");
  await rejectsWith(f.issuer.redeemRevealSession("not an id"), "session_invalid");
  // A second session reveals the same card again.
  const again = await f.issuer.redeemRevealSession(
    (await f.issuer.createRevealSession(card.token)).sessionId,
  );
  assert.deepEqual([again.pan, again.cvc], [d.pan, d.cvc]);
  assert.equal((await entries(f.kv, ["issuer", "reveal"])).length, 0, "spent sessions gone");
});

Deno.test("[issuer] reveal: 50 concurrent redeems of one session give the details once", async () => {
  await using f = await fixture();
  const card = await f.issuer.createCard(order());
  for (let round = 0; round < 3; round++) {
    const { sessionId } = await f.issuer.createRevealSession(card.token);
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, () => f.issuer.redeemRevealSession(sessionId)),
    );
    const won = results.filter((r) => r.status === "fulfilled");
    assert.equal(won.length, 1, `round ${round}`);
    for (const r of results) {
      if (r.status === "rejected") assert.equal(r.reason.code, "session_invalid");
    }
  }
});

Deno.test("[issuer] reveal: sessions expire after 60 s by the injected clock", async () => {
  await using f = await fixture();
  const card = await f.issuer.createCard(order());
  const a = await f.issuer.createRevealSession(card.token);
  const b = await f.issuer.createRevealSession(card.token);
  f.clock.t = T0 + 60_000; // the last millisecond still counts
  assert.equal((await f.issuer.redeemRevealSession(a.sessionId)).token, card.token);
  f.clock.t = T0 + 60_001;
  await rejectsWith(f.issuer.redeemRevealSession(b.sessionId), "session_invalid");
  // An expired session is spent too: turning the clock back does not revive it.
  f.clock.t = T0;
  await rejectsWith(f.issuer.redeemRevealSession(b.sessionId), "session_invalid");
});

Deno.test("[issuer] reveal: the session lifetime is configurable", async () => {
  await using f = await fixture({ revealTtlMs: 5_000 });
  const card = await f.issuer.createCard(order());
  const s = await f.issuer.createRevealSession(card.token);
  assert.equal(s.expiresAt, T0 + 5_000);
  f.clock.t += 5_001;
  await rejectsWith(f.issuer.redeemRevealSession(s.sessionId), "session_invalid");
});

Deno.test("[issuer] reveal: only for an active card, also at redeem time", async () => {
  await using f = await fixture();
  const card = await f.issuer.createCard(order());
  await rejectsWith(f.issuer.createRevealSession("ic_unknownunknownunknownunk"), "card_not_found");
  const s = await f.issuer.createRevealSession(card.token);
  await f.issuer.freeze(card.token);
  await rejectsWith(f.issuer.createRevealSession(card.token), "card_frozen");
  await rejectsWith(f.issuer.redeemRevealSession(s.sessionId), "card_frozen");
  await rejectsWith(f.issuer.redeemRevealSession(s.sessionId), "session_invalid"); // spent
  await f.issuer.unfreeze(card.token);
  const t = await f.issuer.createRevealSession(card.token);
  await f.issuer.close(card.token);
  await rejectsWith(f.issuer.createRevealSession(card.token), "card_closed");
  await rejectsWith(f.issuer.redeemRevealSession(t.sessionId), "card_closed");
});

Deno.test("[issuer] freeze, unfreeze, close: transitions, repeats and refusals", async () => {
  await using f = await fixture();
  const { token } = await f.issuer.createCard(order());
  f.clock.t += 1000;
  assert.equal((await f.issuer.freeze(token)).status, "frozen");
  assert.equal((await f.issuer.freeze(token)).status, "frozen"); // a repeat is a success
  assert.equal((await f.issuer.unfreeze(token)).status, "active");
  assert.equal((await f.issuer.unfreeze(token)).status, "active");
  await f.issuer.freeze(token);
  f.clock.t += 1000;
  const closed = await f.issuer.close(token); // frozen → closed is allowed
  assert.equal(closed.status, "closed");
  assert.equal(closed.closedAt, T0 + 2000);
  f.clock.t += 1000;
  assert.deepEqual(await f.issuer.close(token), closed, "closing again changes nothing");
  await rejectsWith(f.issuer.freeze(token), "card_closed");
  await rejectsWith(f.issuer.unfreeze(token), "card_closed");
  assert.equal((await f.issuer.getCard(token))!.status, "closed");
  for (const op of [f.issuer.freeze, f.issuer.unfreeze, f.issuer.close]) {
    await rejectsWith(op.call(f.issuer, "ic_unknownunknownunknownunk"), "card_not_found");
  }
  // Changes racing a close never bring the card out of closed (versioned writes).
  for (let round = 0; round < 10; round++) {
    const { token: t } = await f.issuer.createCard(order());
    await Promise.allSettled([
      f.issuer.close(t),
      ...Array.from({ length: 20 }, (_, i) => i % 2 ? f.issuer.freeze(t) : f.issuer.unfreeze(t)),
    ]);
    assert.equal((await f.issuer.getCard(t))!.status, "closed", `round ${round}`);
  }
});
