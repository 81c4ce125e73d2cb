/**
 * Purchases in any currency (spec §3 Transaction originalCurrency, pricingCurrency): converted to
 * the card's currency at the simulator's rate table, exactly in minor units (one rounding, half
 * up), the terms locked on the authorization so partial captures and refunds add up to the
 * converted whole.
 */
import assert from "node:assert/strict";
import { fixture, order } from "./issuer_fixture.ts";
import {
  convert,
  createIssuer,
  DEFAULT_RATES,
  exponentOf,
  formatMinor,
  loadIssuerKey,
  parseMinor,
  termsFor,
} from "../../server/issuer/mod.ts";
import { fromMinor, minorDigits, toMinor } from "../../client/shared/currency_units.ts";

const SHOP = { name: "Hotel Europa", city: "New York", country: "US", mcc: "3501" };

Deno.test("[issuer] conversion is exact in minor units: cross rates, exponents 0, 2 and 3", () => {
  const t = (from: string, to: string) => termsFor(DEFAULT_RATES, from, to)!;
  // 100.00 USD at 1.0840 USD per EUR: 9225.092… cents → 92.25 EUR.
  assert.equal(convert(t("USD", "EUR"), 10_000), 9_225);
  assert.equal(t("USD", "EUR").rate, "0.922509");
  // 1,000 JPY (no decimals) at 162.50: 615.38… cents → 6.15 EUR.
  assert.equal(convert(t("JPY", "EUR"), 1_000), 615);
  // 12.34 EUR → JPY: 2005.25 yen → 2005.
  assert.equal(convert(t("EUR", "JPY"), 1_234), 2_005);
  // 10.00 EUR → KWD (3 decimals) at 0.3330: 3.330 KWD = 3330 fils.
  assert.equal(convert(t("EUR", "KWD"), 1_000), 3_330);
  // A cross rate is the exact ratio of two entries (GBP → USD), not via a rounded EUR amount.
  assert.equal(convert(t("GBP", "USD"), 100_000), 126_636); // 1000 × 1.0840 / 0.8560 = 1266.355…
  assert.equal(convert(null, 1_234), 1_234);
  assert.equal(termsFor(DEFAULT_RATES, "XTS", "EUR"), null);
});

Deno.test("[issuer] rounding is half up, once, on the exact product", async () => {
  const key = await loadIssuerKey({ APP_ENV: "development", KV_PATH: ":memory:", onDeploy: false });
  const kv = await Deno.openKv(":memory:");
  try {
    const rates = { base: "EUR", asOf: "2026-01-01", rates: { EUR: "1", XAA: "2", XBB: "8" } };
    const issuer = createIssuer("simulator", { kv, key, now: () => Date.UTC(2026, 0, 15), rates });
    assert.deepEqual(issuer.rates(), rates);
    const half = termsFor(rates, "XAA", "EUR")!;
    assert.equal(convert(half, 1), 1); // 0.5 → 1
    assert.equal(convert(half, 3), 2); // 1.5 → 2
    assert.equal(convert(half, 4), 2);
    assert.equal(convert(termsFor(rates, "XBB", "EUR")!, 3), 0); // 0.375 → 0
    const card = await issuer.createCard(order({ amount: 1_000 }));
    const a = await issuer.authorize({
      token: card.token,
      amount: 3,
      currency: "XAA",
      merchant: SHOP,
      capture: true,
    });
    assert.deepEqual([a.merchantAmount, a.merchantCurrency, a.amount, a.currency], [
      3,
      "XAA",
      2,
      "EUR",
    ]);
    assert.equal((await issuer.getCard(card.token))!.amountSpent, 2);
  } finally {
    kv.close();
  }
});

Deno.test("[issuer] a USD purchase on a EUR card: both amounts kept, parts add up to the whole", async () => {
  await using f = await fixture();
  const card = await f.issuer.createCard(order({ amount: 50_000 }));
  const a = await f.issuer.authorize({
    token: card.token,
    amount: 10_000,
    currency: "USD",
    merchant: SHOP,
  });
  assert.deepEqual(
    [a.merchantAmount, a.merchantCurrency, a.amount, a.currency, a.fx?.rate],
    [10_000, "USD", 9_225, "EUR", "0.922509"],
  );
  const parts = [];
  for (const amount of [3_333, 3_333, 3_334]) {
    const c = await f.issuer.capture({ authorizationId: a.id, amount });
    parts.push(c.history.at(-1)!.amount);
  }
  assert.equal(parts.reduce((s, x) => s + x, 0), 9_225, `parts ${parts}`);
  // Refunds in the purchase's currency, at the locked rate, also telescope to the whole.
  const r1 = await f.issuer.refund({ authorizationId: a.id, amount: 1_111 });
  const r2 = await f.issuer.refund({ authorizationId: a.id });
  assert.equal(r2.amountRefunded, 9_225);
  assert.equal(r1.history.at(-1)!.amount + r2.history.at(-1)!.amount, 9_225);
  assert.equal((await f.issuer.getCard(card.token))!.amountAvailable, 50_000);
  // A currency outside the table is declined, not guessed.
  const x = await f.issuer.authorize({
    token: card.token,
    amount: 100,
    currency: "XTS",
    merchant: SHOP,
  });
  assert.equal(x.declineCode, "currency_unsupported");
});

Deno.test("[issuer] a JPY card spends in yen; a KWD purchase keeps its three decimals", async () => {
  await using f = await fixture();
  const card = await f.issuer.createCard(order({ currency: "JPY", amount: 20_000 }));
  const a = await f.issuer.authorize({
    token: card.token,
    amount: 1_234,
    currency: "EUR",
    merchant: SHOP,
    capture: true,
  });
  assert.equal(a.amount, 2_005);
  const k = await f.issuer.authorize({
    token: card.token,
    amount: 1_234, // 1.234 KWD
    currency: "KWD",
    merchant: SHOP,
  });
  // 1.234 KWD / 0.3330 × 162.50 = 602.18… yen → 602.
  assert.equal(k.amount, 602);
  assert.equal((await f.issuer.getCard(card.token))!.amountAvailable, 20_000 - 2_005 - 602);
});

Deno.test("[issuer] decimal amounts to minor units and back, per currency", () => {
  assert.equal(parseMinor("12.3", "EUR"), 1_230);
  assert.equal(parseMinor(12.5, "EUR"), 1_250);
  assert.equal(parseMinor("0.10", "EUR"), 10);
  assert.equal(parseMinor("12.345", "EUR"), null);
  assert.equal(parseMinor("1000", "JPY"), 1_000);
  assert.equal(parseMinor("1.5", "JPY"), null);
  assert.equal(parseMinor("1.234", "KWD"), 1_234);
  assert.equal(parseMinor("-1", "EUR"), null);
  assert.equal(parseMinor("1e3", "EUR"), null);
  assert.equal(formatMinor(1_234, "EUR"), "12.34");
  assert.equal(formatMinor(5, "EUR"), "0.05");
  assert.equal(formatMinor(1_234, "KWD"), "1.234");
  assert.equal(formatMinor(1_234, "JPY"), "1234");
  // The app's table of minor units agrees with the issuer's.
  for (const code of [...Object.keys(DEFAULT_RATES.rates), "BHD", "CLP", "KRW", "XOF", "TND"]) {
    assert.equal(minorDigits(code), exponentOf(code), code);
  }
  assert.equal(toMinor(12.34, "EUR"), 1_234);
  assert.equal(toMinor(1_234, "JPY"), 1_234);
  assert.equal(fromMinor(1_234, "KWD"), 1.234);
  assert.equal(fromMinor(1_234, "JPY"), 1_234);
});
