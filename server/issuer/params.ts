/**
 * Checks of what createCard is given, the way an issuer's API checks a request: every field,
 * with a message naming it, before anything is written. Also the fingerprint that ties an
 * idempotency key to the parameters it was first used with.
 */
import { sha256 } from "./encoding.ts";
import { IssuerError } from "./errors.ts";
import type { Brand, CreateCardParams, FundingLine } from "./issuer.ts";

export const MAX_LINES = 500;
const MAX_KEY = 255;
const MAX_NAME = 100;
const MAX_META_KEYS = 20;
const MAX_META_KEY = 40;
const MAX_META_VALUE = 500;

/** What createCard works from once checked: lines sorted by date, metadata keys sorted. */
export interface CardOrder {
  idempotencyKey: string;
  cardholderName: string;
  brand: Brand;
  currency: string;
  kind: "one_off" | "budget";
  amount: number;
  lines: FundingLine[];
  validUntil: string;
  metadata: Record<string, string>;
  /** Present only when given, so cards made before purchases existed keep their fingerprint. */
  cardholderId?: string;
  blockedCategories?: string[];
}

const bad = (message: string) => new IssuerError("invalid_request", message);

/** The UTC calendar day of an epoch-ms instant. */
export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** True for a real calendar day written YYYY-MM-DD (years 2000–9999). */
export function isDay(s: unknown): s is string {
  if (typeof s !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(s) || s < "2000") return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

const isMinor = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) > 0;

/**
 * Checks createCard's parameters; throws invalid_request. Whether validUntil has passed is
 * `checkNotPast`'s, asked only before a new card: a late replay still gets its card.
 */
export function checkOrder(p: CreateCardParams): CardOrder {
  if (typeof p !== "object" || p === null) throw bad("parameters must be an object");
  const key = p.idempotencyKey;
  if (typeof key !== "string" || key.length < 1 || key.length > MAX_KEY) {
    throw bad(`idempotencyKey must be 1–${MAX_KEY} characters`);
  }
  const name = typeof p.cardholderName === "string" ? p.cardholderName.trim() : "";
  if (!name || name.length > MAX_NAME || /\p{Cc}/u.test(name)) {
    throw bad(`cardholderName must be 1–${MAX_NAME} printable characters`);
  }
  if (p.brand !== "visa" && p.brand !== "mastercard") {
    throw bad("brand must be visa or mastercard");
  }
  if (typeof p.currency !== "string" || !/^[A-Z]{3}$/.test(p.currency)) {
    throw bad("currency must be an ISO 4217 code in upper case");
  }
  if (!isDay(p.validUntil)) throw bad("validUntil must be a day YYYY-MM-DD");
  const hasAmount = p.amount !== undefined;
  const hasLines = p.fundingLines !== undefined;
  if (hasAmount === hasLines) throw bad("give exactly one of amount and fundingLines");
  let amount: number;
  let lines: FundingLine[] = [];
  if (hasAmount) {
    if (!isMinor(p.amount)) throw bad("amount must be a positive integer in minor units");
    amount = p.amount;
  } else {
    if (!Array.isArray(p.fundingLines) || p.fundingLines.length < 1) {
      throw bad("fundingLines must hold at least one line");
    }
    if (p.fundingLines.length > MAX_LINES) throw bad(`at most ${MAX_LINES} fundingLines`);
    lines = p.fundingLines.map((l, i) => {
      if (!isDay(l?.date)) throw bad(`fundingLines[${i}].date must be a day YYYY-MM-DD`);
      if (l.date > p.validUntil) throw bad(`fundingLines[${i}].date is after validUntil`);
      if (!isMinor(l.amount)) {
        throw bad(`fundingLines[${i}].amount must be a positive integer in minor units`);
      }
      return { date: l.date, amount: l.amount };
    });
    // Stable: lines of one day keep the order they were given in.
    lines.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
    amount = lines.reduce((s, l) => s + l.amount, 0);
    if (!Number.isSafeInteger(amount)) throw bad("the fundingLines add up past a safe integer");
  }
  return {
    idempotencyKey: key,
    cardholderName: name,
    brand: p.brand,
    currency: p.currency,
    kind: hasAmount ? "one_off" : "budget",
    amount,
    lines,
    validUntil: p.validUntil,
    metadata: checkMetadata(p.metadata),
    ...checkControls(p),
  };
}

/** For purchases: the 3-D Secure holder and the blocked merchant categories, when given. */
function checkControls(p: CreateCardParams): Pick<CardOrder, "cardholderId" | "blockedCategories"> {
  const out: Pick<CardOrder, "cardholderId" | "blockedCategories"> = {};
  if (p.cardholderId !== undefined) {
    if (typeof p.cardholderId !== "string" || !/^[A-Za-z0-9_-]{1,128}$/.test(p.cardholderId)) {
      throw bad("cardholderId must be 1-128 letters, digits, - or _");
    }
    out.cardholderId = p.cardholderId;
  }
  const blocked = p.spendingControls?.blockedCategories;
  if (blocked !== undefined) {
    if (!Array.isArray(blocked) || blocked.length > MAX_MCCS) {
      throw bad(`spendingControls.blockedCategories must be a list of at most ${MAX_MCCS}`);
    }
    for (const m of blocked) {
      if (!isMcc(m)) throw bad("spendingControls.blockedCategories holds 4-digit codes");
    }
    out.blockedCategories = [...new Set(blocked)].sort();
  }
  return out;
}

const MAX_MCCS = 200;
/** An ISO 18245 merchant category code. */
export const isMcc = (m: unknown): m is string => typeof m === "string" && /^\d{4}$/.test(m);

/** A new card must be usable at least today (`today` YYYY-MM-DD, UTC). */
export function checkNotPast(o: CardOrder, today: string) {
  if (o.validUntil < today) throw bad("validUntil is in the past");
}

function checkMetadata(m: unknown): Record<string, string> {
  if (m === undefined) return {};
  if (typeof m !== "object" || m === null || Array.isArray(m)) {
    throw bad("metadata must be an object of strings");
  }
  const entries = Object.entries(m).sort(([a], [b]) => (a < b ? -1 : 1));
  if (entries.length > MAX_META_KEYS) throw bad(`metadata holds at most ${MAX_META_KEYS} keys`);
  for (const [k, v] of entries) {
    if (k.length < 1 || k.length > MAX_META_KEY) {
      throw bad(`metadata keys must be 1–${MAX_META_KEY} characters`);
    }
    if (typeof v !== "string" || v.length > MAX_META_VALUE) {
      throw bad(`metadata.${k} must be a string of at most ${MAX_META_VALUE} characters`);
    }
  }
  return Object.fromEntries(entries);
}

/** SHA-256 of everything but the key: a replay must ask for the same card. */
export function fingerprint(o: CardOrder): Promise<string> {
  const { idempotencyKey: _, ...rest } = o;
  return sha256(JSON.stringify(rest));
}
