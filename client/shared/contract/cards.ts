import * as z from "zod/mini";
import { endpoint } from "./endpoint.ts";
import { ArchiveParam, BudgetLine } from "./requests.ts";
import { PASSWORD_MAX, PHONE_MAX, REVEAL_KEY } from "../secure_rules.ts";

// spec §7 card and 3-D Secure calls. Field names are spec §3's; shapes are ours. A card is
// addressed by its request's oid (one card per accepted request). No answer but the two
// reveals carries a card number, a CVC or a password, and those only encrypted for the
// device's one-time key.

const E = "/scmapi/expense";
const Oid = z.string().check(z.minLength(1), z.maxLength(64));
const OidBody = z.object({ oid: Oid, archive: z.optional(z.boolean()) });
const RevealKey = z.string().check(z.regex(REVEAL_KEY, "key must be 16 letters or digits"));

/**
 * spec §3 Card, masked. cardStatusCode: Active, Closed, or anything else (Blocked: frozen)
 * which the wallet shows in the 'not active' style. Amounts are in the card's currency.
 */
export const Card = z.object({
  /** The request's oid (cards are addressed by it) and id. */
  oid: z.string(),
  id: z.string(),
  statusCode: z.string(),
  cardStatusCode: z.string(),
  /** Masked: '•••• •••• •••• 4242'. */
  cardNumber: z.string(),
  last4: z.string(),
  expirationMonth: z.number(),
  expirationYear: z.number(),
  /** 'YYYY-MM-DD', the last day the card can be used (active-until). */
  validityToDate: z.string(),
  /** Days left until validityToDate, for open cards; null once closed. */
  validityDays: z.nullable(z.number()),
  activeCard: z.boolean(),
  /** Always masked ('•••'): the CVC only travels inside a reveal. */
  cvc: z.string(),
  cardHolderName: z.string(),
  /** 'visa' or 'mc' (spec: type contains visa or mc). */
  type: z.enum(["visa", "mc"]),
  canReveal: z.boolean(),
  canClose: z.boolean(),
  canCancel: z.boolean(),
  canFreeze: z.boolean(),
  canUnfreeze: z.boolean(),
  amountAvailable: z.number(),
  amountAllocated: z.number(),
  amountCurrency: z.string(),
  /** The request's details the card detail shows (spec §2). */
  purpose: z.string(),
  issueDate: z.string(),
  costCenter: z.string(),
  GLCode: z.string(),
  projectCode: z.string(),
  budget: z.array(BudgetLine),
});
export type Card = z.infer<typeof Card>;

/** The fallback of a failed card fetch (spec §8): masked number, brand, holder, expiry. */
export const ObfuscatedCard = z.object({
  oid: z.string(),
  cardNumber: z.string(),
  last4: z.string(),
  type: z.enum(["visa", "mc"]),
  cardHolderName: z.string(),
  expirationMonth: z.number(),
  expirationYear: z.number(),
  cardStatusCode: z.string(),
});
export type ObfuscatedCard = z.infer<typeof ObfuscatedCard>;

/** What a card reveal decrypts to on the device. */
export const RevealedCard = z.object({ pan: z.string(), cvc: z.string() });
export type RevealedCard = z.infer<typeof RevealedCard>;

/** spec §3 Secure settings; the password is never sent in clear (a placeholder when set). */
export const SecureSettings = z.object({
  password: z.string(),
  countryPrefix: z.string(),
  phoneNumber: z.string(),
  requirePin: z.boolean(),
  /** 3-D Secure is defined (is3DSecureDefined of the requests). */
  defined: z.boolean(),
});
export type SecureSettings = z.infer<typeof SecureSettings>;

export const SecureRecord = z.object({
  password: z.string().check(z.maxLength(PASSWORD_MAX + 10)),
  countryPrefix: z.string().check(z.maxLength(5)),
  phoneNumber: z.string().check(z.maxLength(PHONE_MAX + 1)),
});

const CardAnswer = z.object({ card: Card });

export const cards = {
  newCard: endpoint({
    method: "POST",
    path: `${E}/pwanewqcard`,
    auth: "bearer",
    body: OidBody,
    response: CardAnswer,
  }),
  card: endpoint({
    method: "GET",
    path: `${E}/pwaexpensecard`,
    auth: "bearer",
    query: z.object({ oid: Oid, archive: ArchiveParam }),
    response: CardAnswer,
  }),
  obfuscated: endpoint({
    method: "GET",
    path: `${E}/pwaexpensecardobfuscated`,
    auth: "bearer",
    query: z.object({ oid: Oid, archive: ArchiveParam }),
    response: z.object({ card: ObfuscatedCard }),
  }),
  reveal: endpoint({
    method: "GET",
    path: `${E}/pwaexpensecardreveal`,
    auth: "bearer",
    query: z.object({ oid: Oid, key: RevealKey, archive: ArchiveParam }),
    /** RevealedCard as JSON, sealed for `key` (client/shared/reveal_cipher.ts). */
    response: z.object({ encryptedresult: z.string() }),
  }),
  freeze: endpoint({
    method: "POST",
    path: `${E}/pwafreezecard`,
    auth: "bearer",
    body: OidBody,
    response: CardAnswer,
  }),
  unfreeze: endpoint({
    method: "POST",
    path: `${E}/pwaunfreezecard`,
    auth: "bearer",
    body: OidBody,
    response: CardAnswer,
  }),
  secure: endpoint({
    method: "GET",
    path: `${E}/pwaexpensecardsecure`,
    auth: "bearer",
    response: z.object({ secure: SecureSettings }),
  }),
  setSecure: endpoint({
    method: "POST",
    path: `${E}/pwasetexpensedosecure`,
    auth: "bearer",
    body: z.object({ record: SecureRecord }),
    /** requirePin: a 4-digit PIN went out by SMS or email and must be validated. */
    response: z.object({ requirePin: z.boolean(), secure: SecureSettings }),
  }),
  validateSecurePin: endpoint({
    method: "POST",
    path: `${E}/pwaexpensedosecurevalidatepin`,
    auth: "bearer",
    body: z.object({ pin: z.string().check(z.maxLength(8)) }),
    response: z.object({ pinOk: z.boolean(), attemptsLeft: z.number() }),
  }),
  reveal3ds: endpoint({
    method: "GET",
    path: `${E}/pwareveal3ds`,
    auth: "bearer",
    query: z.object({ key: RevealKey }),
    /** The stored password, sealed for `key`. */
    response: z.object({ decryptpwd: z.string() }),
  }),
} as const;
