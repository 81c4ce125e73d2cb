/**
 * The simulator's KV layout, all under its own prefix `["issuer", …]`:
 *
 *   ["issuer", "card", token]          CardRecord: masked state and amounts, no PAN, no CVC
 *   ["issuer", "vault", token]         Sealed: PAN + CVC, AES-GCM under the issuer key
 *   ["issuer", "last4", last4]         tokens of the cards ending so (PAN uniqueness, lookup)
 *   ["issuer", "idem", idempotencyKey] IdemRecord: the card a createCard key made
 *   ["issuer", "reveal", sha256(id)]   RevealRecord: a one-time session, by its id's hash
 *   ["issuer", "due", day, token]      a card whose next unfunded budget line is on `day`
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
  return { ...card, amountAvailable: r.amountFunded - r.amountSpent };
}

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
