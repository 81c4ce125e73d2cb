import assert from "node:assert/strict";
import { DAY, entries, fixture, order, rejectsWith } from "./issuer_fixture.ts";

// The fixture's clock reads 2026-01-15.
const LINES = [
  { date: "2026-03-01", amount: 30_000 },
  { date: "2026-01-15", amount: 10_000 }, // today: funded at creation
  { date: "2026-02-01", amount: 20_000 },
  { date: "2026-01-01", amount: 5_000 }, // already past: funded at creation
];

const budget = (over = {}) =>
  order({ amount: undefined, fundingLines: LINES, validUntil: "2026-03-31", ...over });

Deno.test("[issuer] budget card: allocated is the sum, lines due by today fund at creation", async () => {
  await using f = await fixture();
  const card = await f.issuer.createCard(budget());
  assert.equal(card.kind, "budget");
  assert.equal(card.amountAllocated, 65_000);
  assert.equal(card.amountFunded, 15_000);
  assert.equal(card.amountAvailable, 15_000);
  assert.deepEqual(
    card.lines.map((l) => [l.date, l.amount, l.funded]),
    [
      ["2026-01-01", 5_000, true],
      ["2026-01-15", 10_000, true],
      ["2026-02-01", 20_000, false],
      ["2026-03-01", 30_000, false],
    ],
  );
  assert.equal(card.lines[0].fundedAt, f.clock.t);
  assert.equal(card.lines[2].fundedAt, undefined);
  // The due index names the next line's day.
  const due = await entries(f.kv, ["issuer", "due"]);
  assert.deepEqual(due.map((e) => e.key.slice(2)), [["2026-02-01", card.token]]);
});

Deno.test("[issuer] fundDue funds lines dated on or before the given day, once", async () => {
  await using f = await fixture();
  const { token } = await f.issuer.createCard(budget());
  assert.equal((await f.issuer.fundDue(token, "2026-01-31")).amountFunded, 15_000);
  const feb = await f.issuer.fundDue(token, "2026-02-01");
  assert.equal(feb.amountFunded, 35_000);
  assert.equal(feb.amountAvailable, 35_000);
  assert.deepEqual(feb.lines.map((l) => l.funded), [true, true, true, false]);
  // Concurrent funding of the same day adds each line once.
  const racing = await Promise.all(
    Array.from({ length: 20 }, () => f.issuer.fundDue(token, "2026-03-15")),
  );
  for (const c of racing) assert.equal(c.amountFunded, 65_000);
  const done = (await f.issuer.getCard(token))!;
  assert.equal(done.amountFunded, done.amountAllocated);
  assert.ok(done.lines.every((l) => l.funded));
  assert.equal((await entries(f.kv, ["issuer", "due"])).length, 0, "nothing left due");
  await rejectsWith(f.issuer.fundDue(token, "15/03/2026"), "invalid_request");
  await rejectsWith(
    f.issuer.fundDue("ic_unknownunknownunknownunk", "2026-03-15"),
    "card_not_found",
  );
});

Deno.test("[issuer] fundAllDue funds every card with a line due, and only those", async () => {
  await using f = await fixture();
  const a = await f.issuer.createCard(budget());
  const b = await f.issuer.createCard(
    budget({ fundingLines: [{ date: "2026-03-10", amount: 700 }] }),
  );
  const oneOff = await f.issuer.createCard(order());
  assert.equal(await f.issuer.fundAllDue("2026-01-20"), 0);
  assert.equal(await f.issuer.fundAllDue("2026-02-01"), 1);
  assert.equal((await f.issuer.getCard(a.token))!.amountFunded, 35_000);
  assert.equal((await f.issuer.getCard(b.token))!.amountFunded, 0);
  assert.equal(await f.issuer.fundAllDue("2026-03-31"), 2);
  assert.equal((await f.issuer.getCard(a.token))!.amountFunded, 65_000);
  assert.equal((await f.issuer.getCard(b.token))!.amountFunded, 700);
  assert.equal(await f.issuer.fundAllDue("2026-03-31"), 0, "idempotent");
  assert.equal((await f.issuer.getCard(oneOff.token))!.amountFunded, 12_345);
});

Deno.test("[issuer] a closed or frozen budget card: closed takes no more money, frozen does", async () => {
  await using f = await fixture();
  const frozen = await f.issuer.createCard(budget());
  const closed = await f.issuer.createCard(budget());
  await f.issuer.freeze(frozen.token);
  await f.issuer.close(closed.token);
  assert.deepEqual(
    (await entries(f.kv, ["issuer", "due"])).map((e) => e.key[3]),
    [frozen.token],
    "closing drops the card from the due index",
  );
  f.clock.t += 60 * DAY;
  assert.equal(await f.issuer.fundAllDue("2026-03-31"), 1);
  assert.equal((await f.issuer.fundDue(closed.token, "2026-03-31")).amountFunded, 15_000);
  const fr = (await f.issuer.getCard(frozen.token))!;
  assert.equal(fr.amountFunded, 65_000);
  assert.equal(fr.status, "frozen");
});
