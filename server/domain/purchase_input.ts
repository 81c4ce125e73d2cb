/**
 * What the issuer's test mode accepts: `POST /_issuer/purchase` and its capture,
 * reverse and refund calls, as JSON or as the page's plain HTML form (strings, "on" for a
 * ticked box), and `deno task issuer` from the command line. Amounts are decimal amounts of
 * the currency ("12.50"); the issuer works in minor units. Server only: full zod.
 */
import * as z from "zod";
import { badRequest } from "../errors.ts";

const text = (max: number) => z.string().trim().max(max);
const optText = (max: number) =>
  z.preprocess((v) => (v === "" || v === null ? undefined : v), text(max).optional());
/** true, "true", "on", "1" (a ticked checkbox); absent, false, "false", "" are false. */
const flag = z.preprocess(
  (v) => v === true || v === "true" || v === "on" || v === "1",
  z.boolean(),
);
const amount = z.union([z.number().positive(), z.string().trim().regex(/^\d+(\.\d+)?$/)])
  .transform(String);
const optAmount = z.preprocess((v) => (v === "" || v === null ? undefined : v), amount.optional());
const currency = z.preprocess(
  (v) => (typeof v === "string" ? v.trim().toUpperCase() || undefined : v),
  z.string().regex(/^[A-Z]{3}$/, "an ISO 4217 code such as EUR").optional(),
);

/**
 * How a merchant or a tester names the card: `card` is its last 4 digits, the card's oid
 * (its request's) or the issuer's token; or `pan` with, as a merchant sends them, `cvc` and
 * `expiry` ("MM/YY") or `expMonth` + `expYear`.
 */
export const CardRef = z.object({
  card: optText(64),
  pan: z.preprocess(
    (v) => (typeof v === "string" ? v.replace(/[\s-]/g, "") || undefined : v),
    z.string().regex(/^\d{12,19}$/, "12 to 19 digits").optional(),
  ),
  cvc: optText(4).pipe(z.string().regex(/^\d{3,4}$/, "3 digits").optional()),
  expiry: optText(7).pipe(z.string().regex(/^\d{1,2}\/(\d{2}|\d{4})$/, "MM/YY").optional()),
  expMonth: z.coerce.number().int().min(1).max(12).optional(),
  expYear: z.coerce.number().int().min(0).max(9999).optional(),
});

export const PurchaseInput = CardRef.extend({
  amount,
  /** The merchant's currency; the card's own when absent. */
  currency,
  merchantName: text(100).min(1, "merchantName is required"),
  merchantCity: optText(100),
  merchantCountry: z.preprocess(
    (v) => (typeof v === "string" ? v.trim().toUpperCase() || undefined : v),
    z.string().regex(/^[A-Z]{2}$/, "an ISO 3166 code such as FR").optional(),
  ),
  mcc: optText(4).pipe(z.string().regex(/^\d{4}$/, "4 digits").optional()),
  capture: flag.optional(),
  /** Ask for a 3-D Secure challenge (implied by a password). */
  threeDS: flag.optional(),
  threeDSPassword: optText(64),
  idempotencyKey: optText(255),
});
export type PurchaseInput = z.infer<typeof PurchaseInput>;

/** Capture, reverse and a linked refund name the purchase by either id. */
export const EventInput = z.object({
  transactionOid: optText(64),
  authorizationId: optText(64),
  /** Merchant currency; the whole rest when absent. */
  amount: optAmount,
  /** Capture only: release what stays uncaptured. */
  final: flag.optional(),
  idempotencyKey: optText(255),
});
export type EventInput = z.infer<typeof EventInput>;

/** A refund: linked (EventInput's ids) or a merchant's credit to a card (CardRef + merchant). */
export const RefundInput = EventInput.extend(CardRef.shape).extend({
  currency,
  merchantName: optText(100),
  merchantCity: optText(100),
  merchantCountry: PurchaseInput.shape.merchantCountry,
  mcc: PurchaseInput.shape.mcc,
});
export type RefundInput = z.infer<typeof RefundInput>;

/** Parses `input` with `schema`; a 400 naming every problem otherwise. */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const what = r.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`);
  throw badRequest("invalid_body", what.join("; "));
}

/** "03/27" or "3/2027" → month and year (YY kept as given; the issuer reads 27 as 2027). */
export function expiryOf(ref: z.infer<typeof CardRef>): { expMonth?: number; expYear?: number } {
  if (ref.expiry) {
    const [m, y] = ref.expiry.split("/");
    return { expMonth: Number(m), expYear: Number(y) };
  }
  return { expMonth: ref.expMonth, expYear: ref.expYear };
}
