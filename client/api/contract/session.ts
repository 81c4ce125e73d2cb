import * as z from "zod/mini";
import { endpoint } from "./endpoint.ts";
import { ExpenseRow } from "./requests.ts";
import { TransactionRow } from "./transactions.ts";

// spec §7 'Registration and session'. Field names are the spec's; response shapes are ours.

const E = "/scmapi/expense";
const trimmed = (min: number, max: number, msg: string) =>
  z.string().check(z.trim(), z.minLength(min, msg), z.maxLength(max, msg));

export const VerificationCode = z.string().check(
  z.regex(/^\d{5}$/, "verificationcode must be 5 digits"),
);
export const Pin6 = z.string().check(z.regex(/^\d{6}$/, "pin must be 6 digits"));
/** Tokens are 128+ bits, base64url. */
export const Token = z.string().check(z.regex(/^[A-Za-z0-9_-]{22,128}$/, "malformed token"));
const Status = z.object({ status: z.string() });

export const Settings = z.object({
  vatMode: z.enum(["simple", "advanced"]),
  accountingCodeEnabled: z.enum(["true", "false", "required"]),
  typeEnabled: z.enum(["true", "false", "required"]),
  limitReceiptAttachementFormat: z.boolean(),
});

export const session = {
  initialize: endpoint({
    method: "GET",
    path: "/qtservlet/initialize",
    auth: "none",
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
    method: "GET",
    path: "/qtservlet//appcolor",
    auth: "none",
    response: z.object({ appcolor: z.string(), cardcolor: z.string() }),
  }),
  translation: endpoint({
    method: "GET",
    path: `${E}/pwatranslation`,
    auth: "bearer-or-device",
    query: z.object({
      entity: z.optional(z.literal("expense")),
      locale: z.optional(z.string().check(z.regex(/^[a-z]{2}(-[A-Za-z]{2})?$/))),
    }),
    response: z.object({
      translation: z.record(z.string(), z.string()),
      locale: z.string(),
    }),
  }),
  lists: endpoint({
    method: "GET",
    path: `${E}/pwalists`,
    auth: "bearer",
    response: z.extend(Settings, {
      expenses: z.object({ expenseslist: z.array(ExpenseRow) }),
      transactions: z.object({ receiptslist: z.array(TransactionRow) }),
      username: z.string(),
      fname: z.string(),
      lname: z.string(),
      canRequest: z.boolean(),
    }),
  }),
  /** The tokenless variant: only what an unactivated device may see, no user data. */
  publicLists: endpoint({
    method: "GET",
    path: "/qtservlet/expense/pwalists",
    auth: "none",
    response: z.extend(Settings, {
      expenses: z.object({ expenseslist: z.array(z.never()) }),
      transactions: z.object({ receiptslist: z.array(z.never()) }),
      canRequest: z.literal(false),
    }),
  }),
  registerPushToken: endpoint({
    method: "POST",
    path: `${E}/pwaregisterpushtoken`,
    auth: "bearer",
    body: z.object({
      pushToken: z.string().check(z.maxLength(4096)),
      deviceId: z.string().check(z.maxLength(128)),
      isIOS: z.boolean(),
    }),
    response: z.object({ result: z.literal("OK") }),
  }),
  checkValidation: endpoint({
    method: "POST",
    path: `${E}/pwacheckvalidation`,
    auth: "device",
    body: z.object({ verificationcode: VerificationCode }),
    response: z.object({ status: z.literal("OK"), token: Token, fname: z.string() }),
  }),
  activationEmail: endpoint({
    method: "POST",
    path: `${E}/pwaactivationemail`,
    auth: "device",
    body: z.object({ email: trimmed(5, 254, "email must be 5 to 254 characters") }),
    response: z.object({
      question: z.object({ id: z.string(), key: z.string(), text: z.string() }),
    }),
  }),
  secretAnswer: endpoint({
    method: "POST",
    path: `${E}/pwasecretanswer`,
    auth: "device",
    body: z.object({
      email: trimmed(5, 254, "email must be 5 to 254 characters"),
      answer: trimmed(1, 200, "answer must be 1 to 200 characters"),
      questOid: z.string().check(z.minLength(1), z.maxLength(64)),
    }),
    response: z.object({ message: z.string() }),
  }),
  confirmPin: endpoint({
    method: "POST",
    path: `${E}/pwaconfirmpin`,
    auth: "device",
    body: z.object({ verificationcode: VerificationCode, pin: Pin6 }),
    response: z.object({ token: Token, useEnc: z.boolean() }),
  }),
  checkRegistered: endpoint({
    method: "POST",
    path: `${E}/pwacheckregistered`,
    auth: "device",
    body: z.object({ token: Token }),
    response: z.object({ status: z.enum(["OK", "NOT_REGISTERED"]) }),
  }),
  checkPinValid: endpoint({
    method: "POST",
    path: `${E}/pwacheckpinvalid`,
    auth: "device",
    // token is empty when the PIN could not decrypt it locally: the server still counts the try.
    body: z.object({ token: z.union([Token, z.literal("")]), pin: Pin6 }),
    // Our server rotates the token at every unlock and sends the new one; an upstream
    // (relay mode) may not, and then the sealed token stays as it is.
    response: z.object({ status: z.literal("OK"), useEnc: z.boolean(), token: z.optional(Token) }),
  }),
  unregister: endpoint({
    method: "POST",
    path: `${E}/pwaunregister`,
    auth: "device",
    body: z.object({ token: Token }),
    response: Status,
  }),
  supportUrl: endpoint({
    method: "GET",
    path: `${E}/pwasupporturl`,
    auth: "bearer",
    response: z.object({ supporturl: z.nullable(z.string()) }),
  }),
  secretQuestions: endpoint({
    method: "GET",
    path: `${E}/pwasecretquestions`,
    auth: "bearer",
    response: z.object({
      questions: z.array(z.object({ id: z.string(), key: z.string(), text: z.string() })),
    }),
  }),
};
