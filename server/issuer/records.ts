/**
 * The simulator's KV layout, all under its own prefix `["issuer", …]`:
 *
 *   ["issuer", "card", token]          CardRecord: masked state and amounts, no PAN, no CVC
 *   ["issuer", "vault", token]         Sealed: PAN + CVC, AES-GCM under the issuer key
 *   ["issuer", "last4", last4]         tokens of the cards ending so (PAN uniqueness, lookup)
 *   ["issuer", "idem", idempotencyKey] IdemRecord: the card a createCard key made
 *   ["issuer", "reveal", sha256(id)]   RevealRecord: a one-time session, by its id's hash
 *   ["issuer", "due", day, token]      a card whose next unfunded budget line is on `day`
 *   ["issuer", "auth", id]             AuthRecord: one authorization and its events
 *   ["issuer", "card_auth", token, createdAt, seq, id]   a card's authorizations in time order
 *   ["issuer", "auth_time", createdAt, seq, id]          every authorization in time order
 *                                      (seq: this process's count, orders one millisecond)
 *   ["issuer", "auth_changed", updatedAt, id]            every authorization by its last change
 *                                      (one entry each, moved at every event: the change feed
 *                                      an app catches up from after missing reports)
 *   ["issuer", "op", idempotencyKey]   OpRecord: the authorization a keyed call answered
 *   ["issuer", "tries", kind, target]  counted CVC and 3-D Secure answers (attempts.ts)
 */
import type { CardDetails, CardStatus, IssuedCard } from "./issuer.ts";
import type { CardOrder } from "./params.ts";
import { base32, base64url } from "./encoding.ts";

export const PREFIX = "issuer";

export const K = {
  card: (token: string) => [PREFIX, "card", token],
  vault: (token: string) => [PREFIX, "vault", token],
  last4: (last4: string) => [PREFIX, "last4", last4],
  idem: (key: string) => [PREFIX, "idem", key],
  reveal: (hash: string) => [PREFIX, "reveal", hash],
  due: (day: string, token: string) => [PREFIX, "due", day, token],
  duePrefix: [PREFIX, "due"],
  auth: (id: string) => [PREFIX, "auth", id],
  cardAuth: (token: string, at: number, seq: number, id: string) => [
    PREFIX,
    "card_auth",
    token,
    at,
    seq,
    id,
  ],
  cardAuthPrefix: (token: string) => [PREFIX, "card_auth", token],
  authTime: (at: number, seq: number, id: string) => [PREFIX, "auth_time", at, seq, id],
  authTimePrefix: [PREFIX, "auth_time"],
  authChanged: (at: number, id: string) => [PREFIX, "auth_changed", at, id],
  authChangedPrefix: [PREFIX, "auth_changed"],
  op: (key: string) => [PREFIX, "op", key],
} as const;

/** What KV keeps of a card: the masked view without derived amounts, plus bookkeeping. */
export type CardRecord = Omit<IssuedCard, "amountAvailable"> & { v: 1; updatedAt: number };

export interface IdemRecord {
  token: string;
  fingerprint: string;
  createdAt: number;
}

export interface RevealRecord {
  token: string;
  expiresAt: number;
}

/** A card token: "ic_" and 128 random bits (Stripe's issuing cards are "ic_…"). */
export const newToken = () => `ic_${base32(crypto.getRandomValues(new Uint8Array(16)))}`;
export const isToken = (t: unknown): t is string =>
  typeof t === "string" && /^ic_[a-z2-7]{26}$/.test(t);

/** A reveal session id: 256 random bits, base64url. */
export const newSessionId = () => base64url(crypto.getRandomValues(new Uint8Array(32)));
export const isSessionId = (s: unknown): s is string =>
  typeof s === "string" && /^[A-Za-z0-9_-]{43}$/.test(s);

/** A new card's record: lines dated today or before are funded at once. */
export function newRecord(
  o: CardOrder,
  token: string,
  last4: string,
  now: number,
  today: string,
): CardRecord {
  const lines = o.lines.map((l) =>
    l.date <= today ? { ...l, funded: true, fundedAt: now } : { ...l, funded: false }
  );
  return {
    v: 1,
    token,
    brand: o.brand,
    last4,
    expMonth: Number(o.validUntil.slice(5, 7)),
    expYear: Number(o.validUntil.slice(0, 4)),
    status: "active",
    kind: o.kind,
    cardholderName: o.cardholderName,
    currency: o.currency,
    amountAllocated: o.amount,
    amountFunded: o.kind === "one_off" ? o.amount : funded(lines),
    amountSpent: 0,
    validUntil: o.validUntil,
    lines,
    metadata: o.metadata,
    cardholderId: o.cardholderId ?? null,
    spendingControls: { blockedCategories: o.blockedCategories ?? [] },
    createdAt: now,
    updatedAt: now,
  };
}

const funded = (lines: IssuedCard["lines"]) =>
  lines.reduce((s, l) => (l.funded ? s + l.amount : s), 0);

/** The day of the first line still to fund, for the due index (none once closed). */
export function nextDue(r: { status: CardStatus; lines: IssuedCard["lines"] }): string | null {
  if (r.status === "closed") return null;
  return r.lines.find((l) => !l.funded)?.date ?? null;
}

/** The masked card the API answers. */
export function toView(r: CardRecord): IssuedCard {
  const { v: _v, updatedAt: _u, ...card } = r;
  return {
    ...card,
    // Cards made before purchases existed have neither.
    cardholderId: r.cardholderId ?? null,
    spendingControls: { blockedCategories: [...(r.spendingControls?.blockedCategories ?? [])] },
    amountAvailable: r.amountFunded - r.amountSpent,
  };
}

/**
 * Funds the lines dated on or before `today` (null when none is due or the card is closed):
 * what fundDue does, and what an authorization does first so a line due today is spendable.
 */
export function fundLines(r: CardRecord, today: string, now: number): CardRecord | null {
  if (r.status === "closed" || !r.lines.some((l) => !l.funded && l.date <= today)) return null;
  let amountFunded = r.amountFunded;
  const lines = r.lines.map((l) => {
    if (l.funded || l.date > today) return l;
    amountFunded += l.amount;
    return { ...l, funded: true, fundedAt: now };
  });
  return { ...r, lines, amountFunded };
}

/** Keeps the due index in step when a card record changes within `op`. */
export function dueIndex(op: Deno.AtomicOperation, before: CardRecord, after: CardRecord) {
  const [b, a] = [nextDue(before), nextDue(after)];
  if (b === a) return;
  if (b) op.delete(K.due(b, before.token));
  if (a) op.set(K.due(a, after.token), null);
}

/** An authorization id: "iauth_" and 128 random bits. */
export const newAuthId = () => `iauth_${base32(crypto.getRandomValues(new Uint8Array(16)))}`;
export const isAuthId = (s: unknown): s is string =>
  typeof s === "string" && /^iauth_[a-z2-7]{26}$/.test(s);

const INSPECT = [Symbol.for("Deno.customInspect"), Symbol.for("nodejs.util.inspect.custom")];

/**
 * The revealed details, which print masked: a stray `console.log(details)` shows the last 4
 * only. The fields themselves are plain, for the one caller that encrypts them for the holder.
 */
export function cardDetails(
  token: string,
  pan: string,
  cvc: string,
  r: { expMonth: number; expYear: number },
): CardDetails {
  const d: CardDetails = { token, pan, cvc, expMonth: r.expMonth, expYear: r.expYear };
  const masked = () =>
    `CardDetails { token: "${token}", pan: "•••• ${pan.slice(-4)}", cvc: "•••", ` +
    `expMonth: ${r.expMonth}, expYear: ${r.expYear} }`;
  for (const s of INSPECT) Object.defineProperty(d, s, { value: masked, enumerable: false });
  return d;
}
