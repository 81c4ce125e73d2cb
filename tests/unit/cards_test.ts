import assert from "node:assert/strict";
import {
  CARD_REVEAL_MS,
  cardState,
  groupCardNumber,
  inWallet,
  isClosedCardId,
  maskedNumber,
  matchesWalletFilter,
  notActiveStyle,
  PASSWORD_REVEAL_MS,
  secondsLeft,
  SECURE_PANEL_TIMEOUT_MS,
  validThru,
  WALLET_FILTERS,
  type WalletRow,
  walletRowOpens,
} from "../../client/lib/cards.ts";

const row = (p: Partial<WalletRow> = {}): WalletRow => ({
  id: "R000001",
  statusCode: "accepted",
  hasCard: true,
  openCard: true,
  cardStatusCode: "Active",
  ...p,
});

Deno.test("[cards] spec §9 constants: reveal 30 s, password 10 s, secure panel 300000 ms", () => {
  assert.equal(CARD_REVEAL_MS, 30_000);
  assert.equal(PASSWORD_REVEAL_MS, 10_000);
  assert.equal(SECURE_PANEL_TIMEOUT_MS, 300_000);
});

Deno.test("[cards] ids ending with a dash and four digits are closed cards (spec §9)", () => {
  assert.equal(isClosedCardId("R000123-0042"), true);
  assert.equal(isClosedCardId("R000123"), false);
  assert.equal(isClosedCardId("R000123-042"), false);
  assert.equal(isClosedCardId("R000123-00420"), false, "five digits after the dash");
});

Deno.test("[cards] the wallet lists requests with a card, and closed-card ids", () => {
  assert.equal(inWallet(row()), true);
  assert.equal(inWallet(row({ hasCard: false, cardStatusCode: null })), false);
  assert.equal(inWallet(row({ id: "R000009-2024", hasCard: false, cardStatusCode: null })), true);
});

Deno.test("[cards] a flipped expense (…-0001, no card) is listed Closed and opens as the expense", () => {
  const flipped = row({
    id: "R000009-0001",
    hasCard: false,
    openCard: false,
    cardStatusCode: "Closed",
  });
  assert.equal(inWallet(flipped), true);
  assert.equal(matchesWalletFilter(flipped, "Closed"), true);
  assert.equal(walletRowOpens(flipped), "request", "no card view: its card calls answer 404");
  assert.equal(walletRowOpens(row()), "card");
  assert.equal(walletRowOpens(row({ cardStatusCode: "Closed", openCard: false })), "card");
});

Deno.test("[cards] card state: Active, Closed, anything else blocked (spec §3, §4)", () => {
  assert.equal(cardState(row()), "Active");
  assert.equal(cardState(row({ cardStatusCode: "Blocked" })), "Blocked");
  assert.equal(cardState(row({ cardStatusCode: "Suspended" })), "Blocked");
  assert.equal(cardState(row({ cardStatusCode: "Closed", openCard: false })), "Closed");
  // No open card reads Closed whatever the status says.
  assert.equal(cardState(row({ openCard: false })), "Closed");
  assert.equal(cardState(row({ id: "R000009-2024", hasCard: false })), "Closed");
  assert.equal(cardState(row({ statusCode: "cancelled" })), "Closed");
  assert.equal(cardState(row({ statusCode: "moved" })), "Closed");
});

Deno.test("[cards] wallet sub-filters and the 'not active' style (spec §2)", () => {
  assert.deepEqual(WALLET_FILTERS, ["notClosed", "Active", "Closed"]);
  const active = row();
  const blocked = row({ cardStatusCode: "Blocked" });
  const closed = row({ cardStatusCode: "Closed", openCard: false });
  const pick = (f: (typeof WALLET_FILTERS)[number]) =>
    [active, blocked, closed].filter((r) => matchesWalletFilter(r, f));
  assert.deepEqual(pick("notClosed"), [active, blocked]);
  assert.deepEqual(pick("Active"), [active]);
  assert.deepEqual(pick("Closed"), [closed]);
  assert.deepEqual([active, blocked, closed].map(notActiveStyle), [false, true, false]);
});

Deno.test("[cards] card numbers in groups of four, masked with the last four", () => {
  assert.equal(groupCardNumber("4000001234567899"), "4000 0012 3456 7899");
  assert.equal(groupCardNumber("4000 0012-3456 7899"), "4000 0012 3456 7899");
  assert.equal(groupCardNumber("371449635398431"), "3714 4963 5398 431");
  assert.equal(maskedNumber("4242"), "•••• •••• •••• 4242");
  assert.equal(maskedNumber(null), "•••• •••• •••• ••••");
  assert.equal(maskedNumber("42x2"), "•••• •••• •••• ••••");
});

Deno.test("[cards] valid-thru MM/YY with the 2.0-0 format (spec §2, §9)", () => {
  assert.equal(validThru(2, 2027), "02/27");
  assert.equal(validThru(12, 2030), "12/30");
  assert.equal(validThru(1, 2100), "01/00");
});

Deno.test("[cards] the countdown counts whole seconds down to 0", () => {
  const t0 = 1_000_000;
  assert.equal(secondsLeft(t0 + CARD_REVEAL_MS, t0), 30);
  assert.equal(secondsLeft(t0 + CARD_REVEAL_MS, t0 + 1), 30);
  assert.equal(secondsLeft(t0 + CARD_REVEAL_MS, t0 + 29_001), 1);
  assert.equal(secondsLeft(t0 + CARD_REVEAL_MS, t0 + 30_000), 0);
  assert.equal(secondsLeft(t0, t0 + 5_000), 0);
});
