/**
 * What one event does to an authorization (spec §3 Transaction statuses), as pure functions: the
 * new record and the change of the card's amountSpent. Amounts in the merchant's currency are
 * converted with the terms the authorization locked, telescoping: an event takes conv(total after)
 * − conv(total before), so the parts always add up to the converted whole and a hold released in
 * full leaves nothing behind.
 */
import type { CaptureParams, RefundParams, ReverseParams } from "./authorization.ts";
import { type AuthRecord, isMinor, termsOf } from "./auth_records.ts";
import { convert } from "./fx.ts";
import { IssuerError } from "./errors.ts";

const state = (m: string) => new IssuerError("invalid_state", m);
const bad = (m: string) => new IssuerError("invalid_request", m);

export function checkAmount(amount: number | undefined) {
  if (amount !== undefined && !isMinor(amount)) throw bad("amount must be a positive integer");
}

function purchase(a: AuthRecord, what: string) {
  if (!a.approved || a.kind !== "purchase") throw state(`Only an approved purchase is ${what}`);
}

/** Captures `p.amount` (all that is held when absent); `final` releases the rest. */
export function captured(a: AuthRecord, p: CaptureParams, now: number) {
  purchase(a, "captured");
  const done = a.merchantCaptured + a.merchantReversed;
  const rest = a.merchantAmount - done;
  if (rest <= 0) throw state("Nothing is left to capture on this authorization");
  const take = p.amount ?? rest;
  if (take > rest) throw bad(`amount is over the uncaptured rest (${rest})`);
  const t = termsOf(a);
  const part = convert(t, done + take) - convert(t, done);
  const next: AuthRecord = {
    ...a,
    merchantCaptured: a.merchantCaptured + take,
    amountCaptured: a.amountCaptured + part,
    amountHeld: a.amountHeld - part,
    capturedAt: a.capturedAt ?? now,
    history: [...a.history, { type: "capture", at: now, merchantAmount: take, amount: part }],
  };
  let released = 0;
  if (p.final && take < rest) {
    released = next.amountHeld;
    next.merchantReversed += rest - take;
    next.amountReversed += released;
    next.amountHeld = 0;
    next.history.push({ type: "reversal", at: now, merchantAmount: rest - take, amount: released });
  }
  const open = next.merchantCaptured + next.merchantReversed < a.merchantAmount;
  next.status = open ? "pending" : "closed";
  return { a: next, spent: -released };
}

/** Releases `p.amount` of what is held (all of it when absent). */
export function reversed(a: AuthRecord, p: ReverseParams, now: number) {
  purchase(a, "reversed");
  const done = a.merchantCaptured + a.merchantReversed;
  const rest = a.merchantAmount - done;
  if (rest <= 0) throw state("Nothing is held on this authorization");
  const take = p.amount ?? rest;
  if (take > rest) throw bad(`amount is over the uncaptured rest (${rest})`);
  const t = termsOf(a);
  const part = convert(t, done + take) - convert(t, done);
  const left = rest - take;
  const next: AuthRecord = {
    ...a,
    merchantReversed: a.merchantReversed + take,
    amountReversed: a.amountReversed + part,
    amountHeld: a.amountHeld - part,
    status: left > 0 ? "pending" : a.merchantCaptured > 0 ? "closed" : "reversed",
    history: [...a.history, { type: "reversal", at: now, merchantAmount: take, amount: part }],
  };
  return { a: next, spent: -part };
}

/** Refunds `p.amount` of what is captured and not refunded yet (all of it when absent). */
export function refunded(a: AuthRecord, p: RefundParams, now: number) {
  purchase(a, "refunded");
  if (p.currency !== undefined && p.currency !== a.merchantCurrency) {
    throw bad(`a refund is in the purchase's currency (${a.merchantCurrency})`);
  }
  const open = a.merchantCaptured - a.merchantRefunded;
  if (open <= 0) throw state("Nothing captured is left to refund");
  const take = p.amount ?? open;
  if (take > open) throw bad(`amount is over what is captured and not refunded (${open})`);
  const t = termsOf(a);
  const room = a.amountCaptured - a.amountRefunded;
  // The last refund takes exactly what is left, whatever the rounding of the earlier ones.
  const part = take === open
    ? room
    : Math.min(room, convert(t, a.merchantRefunded + take) - convert(t, a.merchantRefunded));
  const next: AuthRecord = {
    ...a,
    merchantRefunded: a.merchantRefunded + take,
    amountRefunded: a.amountRefunded + part,
    history: [...a.history, { type: "refund", at: now, merchantAmount: take, amount: part }],
  };
  return { a: next, spent: -part };
}
