/**
 * Authorizations as the simulator keeps them: parameter checks in the manner of an
 * issuer's API (every field named), the record of a decision, and the idempotency records of
 * keyed calls. Secrets a merchant sends (CVC, 3-D Secure answer) are checked and dropped:
 * they are in no record and in no fingerprint.
 */
import {
  type Authorization,
  type AuthorizeParams,
  DECLINE_REASONS,
  type DeclineCode,
  type Merchant,
} from "./authorization.ts";
import { sha256 } from "./encoding.ts";
import type { FxTerms } from "./fx.ts";
import { IssuerError } from "./errors.ts";
import { isMcc } from "./params.ts";
import { type CardRecord, isToken, K } from "./records.ts";

/** Events one authorization may take (captures, reversals, refunds): its value stays small. */
export const MAX_EVENTS = 100;

export type AuthRecord = Authorization & { v: 1 };

/** What a keyed call answered: the authorization it made or changed. */
export interface OpRecord {
  id: string;
  fingerprint: string;
  at: number;
}

const bad = (message: string) => new IssuerError("invalid_request", message);
const printable = (s: unknown, max: number, min = 1): s is string =>
  typeof s === "string" && s.trim().length >= min && s.length <= max && !/\p{Cc}/u.test(s);

export const isMinor = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) > 0;

export function checkKey(k: unknown): string | undefined {
  if (k === undefined) return undefined;
  if (typeof k !== "string" || k.length < 1 || k.length > 255) {
    throw bad("idempotencyKey must be 1–255 characters");
  }
  return k;
}

export function checkMerchant(m: unknown): Merchant {
  const x = (m ?? {}) as Partial<Merchant>;
  if (!printable(x.name, 100)) throw bad("merchant.name must be 1–100 printable characters");
  if (!printable(x.city, 100, 0)) throw bad("merchant.city must be at most 100 characters");
  if (typeof x.country !== "string" || !/^[A-Z]{2}$/.test(x.country)) {
    throw bad("merchant.country must be an ISO 3166 code such as FR");
  }
  if (!isMcc(x.mcc)) throw bad("merchant.mcc must be 4 digits");
  return { name: x.name.trim(), city: x.city.trim(), country: x.country, mcc: x.mcc };
}

export const checkCurrency = (c: unknown): string => {
  if (typeof c !== "string" || !/^[A-Z]{3}$/.test(c)) {
    throw bad("currency must be an ISO 4217 code in upper case");
  }
  return c;
};

/** Checks authorize's parameters; an unknown or malformed token is card_not_found. */
export function checkAuthorize(p: AuthorizeParams): AuthorizeParams {
  if (typeof p !== "object" || p === null) throw bad("parameters must be an object");
  if (!isToken(p.token)) throw new IssuerError("card_not_found", "No card with this token");
  if (!isMinor(p.amount)) throw bad("amount must be a positive integer in minor units");
  const out: AuthorizeParams = {
    token: p.token,
    amount: p.amount,
    currency: checkCurrency(p.currency),
    merchant: checkMerchant(p.merchant),
    capture: p.capture === true,
    idempotencyKey: checkKey(p.idempotencyKey),
  };
  if (p.cvc !== undefined) {
    if (typeof p.cvc !== "string" || !/^\d{3,4}$/.test(p.cvc)) throw bad("cvc must be 3 digits");
    out.cvc = p.cvc;
  }
  if (p.expMonth !== undefined || p.expYear !== undefined) {
    const m = p.expMonth, y = p.expYear;
    if (!Number.isInteger(m) || m! < 1 || m! > 12) throw bad("expMonth must be 1–12");
    if (!Number.isInteger(y) || !((y! >= 0 && y! < 100) || (y! >= 2000 && y! <= 9999))) {
      throw bad("expYear must be YY or YYYY");
    }
    [out.expMonth, out.expYear] = [m, y];
  }
  if (p.threeDS !== undefined) {
    const pw = p.threeDS?.password;
    if (pw !== undefined && (typeof pw !== "string" || pw.length > 64)) {
      throw bad("threeDS.password must be at most 64 characters");
    }
    out.threeDS = { password: pw };
  }
  return out;
}

/** SHA-256 of a keyed call's parameters, with secrets reduced to whether they were sent. */
export function fingerprint(kind: string, p: object): Promise<string> {
  const { idempotencyKey: _k, cvc, threeDS, ...rest } = p as AuthorizeParams;
  return sha256(
    JSON.stringify({ kind, ...rest, cvc: cvc !== undefined, threeDS: threeDS !== undefined }),
  );
}

/** The record of one decision on `card` (already funded up to today). */
export function decisionRecord(
  id: string,
  card: CardRecord,
  p: AuthorizeParams,
  d: {
    code: DeclineCode | null;
    terms: FxTerms | null;
    amount: number;
    threeDS: Authorization["threeDS"];
  },
  now: number,
): AuthRecord {
  const approved = d.code === null;
  const captured = approved && p.capture === true;
  const merchantAmount = p.amount;
  const amount = d.amount;
  const history: Authorization["history"] = approved
    ? [{ type: "authorization", at: now, merchantAmount, amount }]
    : [];
  if (captured) history.push({ type: "capture", at: now, merchantAmount, amount });
  return {
    v: 1,
    id,
    kind: "purchase",
    cardToken: card.token,
    cardMetadata: card.metadata,
    approved,
    declineCode: d.code,
    reason: d.code ? DECLINE_REASONS[d.code] : null,
    status: !approved ? "declined" : captured ? "closed" : "pending",
    merchant: p.merchant,
    merchantCurrency: p.currency,
    merchantAmount,
    currency: card.currency,
    amount,
    fx: d.terms
      ? { rate: d.terms.rate, fromPerBase: d.terms.fromPerBase, toPerBase: d.terms.toPerBase }
      : null,
    merchantCaptured: captured ? merchantAmount : 0,
    merchantReversed: 0,
    merchantRefunded: 0,
    amountHeld: approved && !captured ? amount : 0,
    amountCaptured: captured ? amount : 0,
    amountReversed: 0,
    amountRefunded: 0,
    threeDS: d.threeDS,
    history,
    createdAt: now,
    capturedAt: captured ? now : null,
    updatedAt: now,
    version: 1,
  };
}

/** The conversion terms an authorization locked (null in the card's currency). */
export function termsOf(a: Authorization): FxTerms | null {
  return a.fx ? { from: a.merchantCurrency, to: a.currency, ...a.fx } : null;
}

export function toAuthorization(r: AuthRecord): Authorization {
  const { v: _v, ...a } = r;
  return structuredClone(a);
}

let seq = 0;

/** Writes a new authorization, its two time indexes and its change entry into `op`. */
export function putNew(op: Deno.AtomicOperation, r: AuthRecord): Deno.AtomicOperation {
  const n = ++seq;
  return op.set(K.auth(r.id), r)
    .set(K.cardAuth(r.cardToken, r.createdAt, n, r.id), null)
    .set(K.authTime(r.createdAt, n, r.id), null)
    .set(K.authChanged(r.updatedAt, r.id), null);
}

/** Moves an authorization's change entry from its previous change to this one, in `op`. */
export function putChanged(
  op: Deno.AtomicOperation,
  before: AuthRecord,
  after: AuthRecord,
): Deno.AtomicOperation {
  return op.delete(K.authChanged(before.updatedAt, before.id))
    .set(K.auth(after.id), after)
    .set(K.authChanged(after.updatedAt, after.id), null);
}
