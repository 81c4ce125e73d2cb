import assert from "node:assert/strict";
import {
  canFlip,
  checkFlipPurpose,
  cutReason,
  hasFlipMarker,
  needsReceipt,
  receiptDueAt,
  receiptOverdue,
  refusedAbbreviation,
  refusedKind,
} from "../../client/shared/transaction_rules.ts";
import { DECLINE_REASONS } from "../../server/issuer/mod.ts";

const DAY = 86_400_000;

Deno.test("[transactions] spec §8 refused reason abbreviations, in the spec's order", () => {
  assert.equal(refusedAbbreviation("CVC check failed/the security code does not match"), "CVC");
  assert.equal(refusedAbbreviation("MCC blocked/gambling"), "MCC");
  assert.equal(refusedAbbreviation("Exceeds maximum/over the balance"), "Exceeds maximum");
  assert.equal(refusedAbbreviation("Exceeded maximum/budget"), "Exceeded maximum");
  assert.equal(refusedAbbreviation("Verification failed/expiry"), "Verification");
  assert.equal(refusedAbbreviation("3Dsecure not enrolled/none"), "3-D Secure");
  assert.equal(refusedAbbreviation("Authentication failed/wrong"), "Authentication");
  assert.equal(
    refusedAbbreviation("Invalid card status/the card is closed"),
    "Invalid card status",
  );
  assert.equal(refusedAbbreviation("Invalid merchant"), "Invalid merchant");
  // The first of the list wins when a reason holds two.
  assert.equal(refusedAbbreviation("Invalid CVC/x"), "CVC");
  assert.equal(refusedAbbreviation(null), "");
  assert.equal(refusedAbbreviation("x".repeat(200)).length, 130);
  // Every reason the issuer gives has one of them.
  const known = new Set([
    "CVC",
    "MCC",
    "Exceeds maximum",
    "Exceeded maximum",
    "Verification",
    "3-D Secure",
    "Authentication",
  ]);
  for (const reason of Object.values(DECLINE_REASONS)) {
    const a = refusedAbbreviation(reason);
    assert.ok(known.has(a) || (reason.startsWith("Invalid") && reason.startsWith(`${a}/`)), reason);
  }
});

Deno.test("[transactions] spec §9: the full reason is cut at 130 characters", () => {
  assert.equal(cutReason("short"), "short");
  assert.equal(cutReason("y".repeat(131)), "y".repeat(130));
  assert.equal(cutReason(undefined), "");
});

Deno.test("[transactions] flip marker, flippable, receipts needed and overdue", () => {
  const t = {
    transactionStatus: "Captured",
    transactionType: "Purchase",
    nbReceipts: 0,
    reviewed: false,
    flipExtOid: null as string | null,
  };
  assert.equal(hasFlipMarker(t), false);
  assert.equal(hasFlipMarker({ ...t, flipExtOid: "x" }), true);
  assert.equal(hasFlipMarker({ ...t, transactionStatus: "Authorised", flipExtOid: "x" }), true);
  assert.equal(hasFlipMarker({ ...t, transactionStatus: "Moved", flipExtOid: "x" }), false);
  assert.equal(canFlip(t), true);
  assert.equal(canFlip({ ...t, transactionStatus: "Authorised" }), true);
  for (const s of ["Refused", "Moved", "Reversed", "Refunded"]) {
    assert.equal(canFlip({ ...t, transactionStatus: s }), false, s);
  }
  assert.equal(canFlip({ ...t, reviewed: true }), false);
  assert.equal(canFlip({ ...t, transactionType: "Refund" }), false);
  assert.equal(needsReceipt(t), true);
  assert.equal(needsReceipt({ ...t, nbReceipts: 1 }), false);
  assert.equal(needsReceipt({ ...t, transactionStatus: "Authorised" }), false);
  assert.equal(needsReceipt({ ...t, transactionStatus: "Moved" }), false);
  assert.equal(receiptDueAt(1_000, 7), 1_000 + 7 * DAY);
  assert.equal(receiptOverdue(t, 0, 7, 7 * DAY - 1), false);
  assert.equal(receiptOverdue(t, 0, 7, 7 * DAY), true);
  assert.equal(receiptOverdue(t, null, 7, 99 * DAY), false);
  assert.equal(receiptOverdue(t, 0, 0, 0), true);
});

Deno.test("[transactions] spec §5 'Flip: purpose required'", () => {
  assert.equal(checkFlipPurpose(undefined), "request.purposeRequired");
  assert.equal(checkFlipPurpose("  "), "request.purposeRequired");
  assert.equal(checkFlipPurpose("Dinner"), null);
  assert.equal(checkFlipPurpose("x".repeat(501)), "request.purposeTooLong");
});

Deno.test("[transactions] org file: receiptOverdueDays defaults to 7, blockedMccs to none", async () => {
  const { parseOrg } = await import("../../server/org/parse.ts");
  const url = new URL("../../server/org/demo_org.json", import.meta.url);
  const file = JSON.parse(await Deno.readTextFile(url));
  assert.equal(parseOrg(file).settings.receiptOverdueDays, 7);
  assert.deepEqual(parseOrg(file).requestTypes[0].blockedMccs, [
    "6051",
    "7800",
    "7801",
    "7802",
    "7995",
  ]);
  delete file.settings.receiptOverdueDays;
  for (const t of file.requestTypes) delete t.blockedMccs;
  const org = parseOrg(file);
  assert.equal(org.settings.receiptOverdueDays, 7);
  assert.deepEqual(org.requestTypes[0].blockedMccs, []);
  file.requestTypes[0].blockedMccs = ["79"];
  assert.throws(() => parseOrg(file), /blockedMccs.*4-digit/);
  file.requestTypes[0].blockedMccs = [];
  file.settings.receiptOverdueDays = -1;
  assert.throws(() => parseOrg(file), /receiptOverdueDays/);
});

Deno.test("[transactions] refusedKind names every spec §8 abbreviation for its translation", async () => {
  const { DECLINE_REASONS } = await import("../../server/issuer/authorization.ts");
  const want: Record<string, string> = {
    card_closed: "invalidCard",
    card_frozen: "invalidCard",
    card_expired: "invalidCard",
    incorrect_cvc: "cvc",
    cvc_locked: "cvc",
    expiry_mismatch: "verification",
    three_ds_not_enrolled: "threeDSecure",
    three_ds_missing: "authentication",
    three_ds_failed: "authentication",
    three_ds_locked: "authentication",
    mcc_blocked: "mcc",
    currency_unsupported: "invalidCurrency",
    insufficient_funds: "exceedsMax",
    budget_not_funded: "exceededMax",
  };
  for (const [code, reason] of Object.entries(DECLINE_REASONS)) {
    assert.equal(refusedKind(reason), want[code], code);
  }
  assert.equal(refusedKind("Invalid merchant/unknown"), "invalid");
  assert.equal(refusedKind("Something else"), null);
  assert.equal(refusedKind(null), null);
});
