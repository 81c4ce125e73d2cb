import * as z from "zod/mini";
import { endpoint } from "./endpoint.ts";
import { sessionRoutes as R } from "./routes.ts";

// spec §7 'Registration and session', all but pwalists (session.ts): what a device calls before
// the lists, whose schemas (requests, transactions) it does not build (the PIN pad's
// start-up evaluates only these). Field names are the spec's; response shapes are ours.

const trimmed = (min: number, max: number, msg: string) =>
  z.string().check(z.trim(), z.minLength(min, msg), z.maxLength(max, msg));

export const VerificationCode = z.string().check(
  z.regex(/^\d{5}$/, "verificationcode must be 5 digits"),
);
export const Pin6 = z.string().check(z.regex(/^\d{6}$/, "pin must be 6 digits"));
/** Tokens are 128+ bits, base64url. */
export const Token = z.string().check(z.regex(/^[A-Za-z0-9_-]{22,128}$/, "malformed token"));
const Status = z.object({ status: z.string() });

/**
 * A translation: a string for every key. Checked in one loop, not one schema run per key (670
 * keys in English: the record schema was the longest task of a first visit's start-up at a
 * phone's speed, 8-11 ms of CPU here).
 */
export const Dictionary = z.custom<Record<string, string>>(
  (v) =>
    typeof v === "object" && v !== null && !Array.isArray(v) &&
    Object.values(v).every((s) => typeof s === "string"),
  "translation must map every key to a string",
);

export const Settings = z.object({
  vatMode: z.enum(["simple", "advanced"]),
  accountingCodeEnabled: z.enum(["true", "false", "required"]),
  typeEnabled: z.enum(["true", "false", "required"]),
  limitReceiptAttachementFormat: z.boolean(),
});

export const sessionStart = {
  initialize: endpoint({
    ...R.initialize,
    query: z.object({ sessioncode: z.optional(z.string().check(z.maxLength(128))) }),
    response: z.object({
      extensions: z.array(z.string()),
      faqUrl: z.nullable(z.string()),
      chatUrl: z.nullable(z.string()),
      vapidPublicKey: z.nullable(z.string()),
      version: z.string(),
    }),
  }),
  appcolor: endpoint({
    ...R.appcolor,
    response: z.object({ appcolor: z.string(), cardcolor: z.string() }),
  }),
  translation: endpoint({
    ...R.translation,
    query: z.object({
      entity: z.optional(z.literal("expense")),
      locale: z.optional(z.string().check(z.regex(/^[a-z]{2}(-[A-Za-z]{2})?$/))),
    }),
    response: z.object({
      translation: Dictionary,
      locale: z.string(),
    }),
  }),
  /** The tokenless variant: only what an unactivated device may see, no user data. */
  publicLists: endpoint({
    ...R.publicLists,
    response: z.extend(Settings, {
      expenses: z.object({ expenseslist: z.array(z.never()) }),
      transactions: z.object({ receiptslist: z.array(z.never()) }),
      canRequest: z.literal(false),
    }),
  }),
  registerPushToken: endpoint({
    ...R.registerPushToken,
    body: z.object({
      pushToken: z.string().check(z.maxLength(4096)),
      deviceId: z.string().check(z.maxLength(128)),
      isIOS: z.boolean(),
    }),
    response: z.object({ result: z.literal("OK") }),
  }),
  checkValidation: endpoint({
    ...R.checkValidation,
    body: z.object({ verificationcode: VerificationCode }),
    response: z.object({ status: z.literal("OK"), token: Token, fname: z.string() }),
  }),
  activationEmail: endpoint({
    ...R.activationEmail,
    body: z.object({ email: trimmed(5, 254, "email must be 5 to 254 characters") }),
    response: z.object({
      question: z.object({ id: z.string(), key: z.string(), text: z.string() }),
    }),
  }),
  secretAnswer: endpoint({
    ...R.secretAnswer,
    body: z.object({
      email: trimmed(5, 254, "email must be 5 to 254 characters"),
      answer: trimmed(1, 200, "answer must be 1 to 200 characters"),
      questOid: z.string().check(z.minLength(1), z.maxLength(64)),
    }),
    response: z.object({ message: z.string() }),
  }),
  confirmPin: endpoint({
    ...R.confirmPin,
    body: z.object({ verificationcode: VerificationCode, pin: Pin6 }),
    response: z.object({ token: Token, useEnc: z.boolean() }),
  }),
  checkRegistered: endpoint({
    ...R.checkRegistered,
    body: z.object({ token: Token }),
    response: z.object({ status: z.enum(["OK", "NOT_REGISTERED"]) }),
  }),
  checkPinValid: endpoint({
    ...R.checkPinValid,
    // token is empty when the PIN could not decrypt it locally: the server still counts the try.
    body: z.object({ token: z.union([Token, z.literal("")]), pin: Pin6 }),
    // Our server rotates the token at every unlock and sends the new one; an upstream
    // (relay mode) may not, and then the sealed token stays as it is.
    response: z.object({ status: z.literal("OK"), useEnc: z.boolean(), token: z.optional(Token) }),
  }),
  unregister: endpoint({
    ...R.unregister,
    body: z.object({ token: Token }),
    response: Status,
  }),
  supportUrl: endpoint({
    ...R.supportUrl,
    response: z.object({ supporturl: z.nullable(z.string()) }),
  }),
  secretQuestions: endpoint({
    ...R.secretQuestions,
    response: z.object({
      questions: z.array(z.object({ id: z.string(), key: z.string(), text: z.string() })),
    }),
  }),
};
