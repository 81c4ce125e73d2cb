/**
 * A lived-in demo (spec §2 Transactions): on first start with the demo organisation, employee@ gets
 * a history so that every screen has something to show: requests in every status, approvals waiting
 * for approver@ (level 1) and manager@ (level 2), an active Visa card with captured, authorised,
 * refused (one of each reason) and foreign-currency purchases spread over today, yesterday, last
 * week and older, one captured purchase whose receipt is overdue, and a closed Mastercard; receipts
 * on three purchases, two of them reviewed with their VAT (spec §4 VAT flag). The story is data
 * (server/org/demo_history.json, checked by a schema when read); this module replays it step by
 * step through the domain functions the API and the issuer's test mode use (createRequest,
 * submitRequest, decide, generateCard, closeRequest, cancelRequest, purchase/capture/reverse,
 * attachDocument, review), with `deps.now` set to each step's instant, so the records are exactly
 * what the app would have made at those times. Nothing is mailed: the domain only queues messages, and the activation
 * mails are queued afterwards by boot.ts.
 */
import type { Deps } from "../domain/env.ts";
import type { User } from "../store/users.ts";
import type { SecureRecord } from "../store/secure.ts";
import { createRequest } from "../domain/request_create.ts";
import { cancelRequest, closeRequest, submitRequest } from "../domain/requests.ts";
import { addApprovalComment, decide } from "../domain/approvals.ts";
import { generateCard } from "../domain/cards.ts";
import { capture, purchase, reverse } from "../domain/purchases.ts";
import type { PurchaseInput } from "../domain/purchase_input.ts";
import type { CreateBody } from "../../client/shared/contract/request_bodies.ts";
import { attachDocument } from "../domain/uploads.ts";
import { saveNote } from "../domain/documents.ts";
import { review, setDoTax } from "../domain/vat.ts";
import { receiptPdf } from "../org/sample_pdf.ts";
import story from "../org/demo_history.json" with { type: "json" };
import * as z from "zod";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * Seeds the history. Call once, right after the demo organisation was imported into an empty
 * store (boot.ts seedIfEmpty). `deps.now` is restored afterwards, whatever happens.
 */
export async function seedDemoHistory(deps: Deps): Promise<void> {
  const realNow = deps.now;
  const now = realNow();
  // Instants relative to the start: d days and h hours ago (UTC days for the groups).
  const startOfToday = Math.floor(now / DAY) * DAY;
  const ago = (d: number, h = 0) =>
    d === 0 ? Math.max(startOfToday, now - h * HOUR) : startOfToday - d * DAY + h * HOUR;
  const at = (t: number) => {
    deps.now = () => t;
  };
  try {
    await seed(deps, { ago, at });
  } finally {
    deps.now = realNow;
  }
}

interface Clock {
  /** An instant `d` UTC days before today, at `h` hours (today: `h` hours ago, not before 00:00). */
  ago: (d: number, h?: number) => number;
  /** Sets deps.now to that instant. */
  at: (t: number) => void;
}

async function user(deps: Deps, email: string): Promise<User> {
  const u = await deps.store.users.byEmail(email);
  if (!u) throw new Error(`demo history: no user ${email} in the demo organisation`);
  return u;
}

/** One step of the story (server/org/demo_history.json), checked when read. */
const When = z.tuple([z.number().int().min(0), z.number().min(0).optional()]);
const Who = z.enum(["employee", "approver", "manager"]);
const base = { at: When.optional(), why: z.string().optional() };
const Step = z.discriminatedUnion("do", [
  z.object({
    ...base,
    do: z.literal("create"),
    as: Who,
    ref: z.string(),
    body: z.record(z.string(), z.unknown()),
  }),
  z.object({
    ...base,
    do: z.enum(["submit", "card", "close", "cancel"]),
    as: Who,
    ref: z.string(),
  }),
  z.object({
    ...base,
    do: z.literal("decide"),
    as: Who,
    ref: z.string(),
    decision: z.enum(["approved", "rejected"]),
  }),
  z.object({ ...base, do: z.literal("comment"), as: Who, ref: z.string(), text: z.string() }),
  z.object({ ...base, do: z.literal("readCard"), as: Who, card: z.string() }),
  z.object({
    ...base,
    do: z.literal("purchase"),
    card: z.string(),
    ref: z.string().optional(),
    merchant: z.tuple([z.string(), z.string(), z.string(), z.string()]),
    amount: z.string(),
    currency: z.string().optional(),
    capture: z.boolean().optional(),
    threeDS: z.boolean().optional(),
    threeDSPassword: z.string().optional(),
    /** What the merchant sends wrong: the CVC, or the expiry (a month off). */
    wrong: z.enum(["cvc", "expiry"]).optional(),
  }),
  z.object({ ...base, do: z.enum(["capture", "reverse"]), ref: z.string() }),
  z.object({
    ...base,
    do: z.literal("receipt"),
    as: Who,
    ref: z.string(),
    name: z.string(),
    lines: z.array(z.string()).min(1),
    note: z.string().optional(),
  }),
  z.object({
    ...base,
    do: z.literal("vatFlag"),
    as: Who,
    ref: z.string(),
    value: z.enum(["true", "false"]),
  }),
  z.object({
    ...base,
    do: z.literal("review"),
    as: Who,
    ref: z.string(),
    fields: z.record(z.string(), z.unknown()),
  }),
]);
const Story = z.object({
  people: z.record(Who, z.string()),
  secure: z.object({
    as: Who,
    at: When,
    password: z.string(),
    countryPrefix: z.string(),
    phoneNumber: z.string(),
  }),
  steps: z.array(Step),
});
type Story = z.infer<typeof Story>;

/** The story, read from the data file next to the demo organisation. */
export const STORY: Story = Story.parse(story);

/** The demo's 3-D Secure password of employee@ (README: Demo organisation). */
export const DEMO_3DS_PASSWORD = STORY.secure.password;

/** Replays the story through the domain, each step at its instant. */
async function seed(deps: Deps, { ago, at }: Clock): Promise<void> {
  const people = new Map<string, User>();
  for (const [who, email] of Object.entries(STORY.people)) people.set(who, await user(deps, email));
  const as = (who: string) => people.get(who)!;
  const requests = new Map<string, string>();
  const purchases = new Map<string, string>();
  const cards = new Map<string, { cvc: string; expMonth: number; expYear: number }>();
  const request = (ref: string) => {
    const oid = requests.get(ref);
    if (!oid) throw new Error(`demo history: no request ${ref} yet`);
    return oid;
  };
  const bought = (ref: string) => {
    const oid = purchases.get(ref);
    if (!oid) throw new Error(`demo history: no transaction for ${ref}`);
    return oid;
  };
  /** The request's open approval (after a submit). */
  const approvalOf = async (ref: string) => {
    const list = await deps.store.approvals.byRequest(request(ref));
    return list[list.length - 1].oid;
  };

  // 3-D Secure defined (cards need it): the password at the issuer, as a confirmed change
  // leaves it (secure.ts does the same after the PIN; no PIN mail here).
  const sec = STORY.secure;
  at(ago(...sec.at));
  const holder = as(sec.as);
  await deps.issuer.setThreeDSPassword(holder.oid, sec.password, "current");
  const secure: SecureRecord = {
    userOid: holder.oid,
    countryPrefix: sec.countryPrefix,
    phoneNumber: sec.phoneNumber,
    defined: true,
    updatedAt: deps.now(),
  };
  const secureOp = deps.store.kv.atomic();
  deps.store.secure.put(secureOp, secure);
  if (!(await secureOp.commit()).ok) throw new Error("demo history: 3-D Secure not saved");

  for (const step of STORY.steps) {
    if (step.at) at(ago(...step.at));
    switch (step.do) {
      case "create":
        requests.set(
          step.ref,
          (await createRequest(deps, as(step.as), step.body as CreateBody)).oid,
        );
        break;
      case "submit":
        await submitRequest(deps, as(step.as), request(step.ref));
        break;
      case "decide":
        await decide(deps, as(step.as), await approvalOf(step.ref), step.decision);
        break;
      case "comment":
        await addApprovalComment(deps, as(step.as), await approvalOf(step.ref), step.text);
        break;
      case "card":
        await generateCard(deps, as(step.as), request(step.ref));
        break;
      case "close":
        await closeRequest(deps, as(step.as), request(step.ref));
        break;
      case "cancel":
        await cancelRequest(deps, as(step.as), request(step.ref));
        break;
      case "readCard":
        cards.set(step.card, await cardDetails(deps, request(step.card), as(step.as)));
        break;
      case "purchase": {
        const [merchantName, merchantCity, merchantCountry, mcc] = step.merchant;
        const card = cards.get(step.card);
        if (step.wrong && !card) throw new Error(`demo history: read card ${step.card} first`);
        const r = await purchase(deps, {
          card: request(step.card),
          merchantName,
          merchantCity,
          merchantCountry,
          mcc,
          amount: step.amount,
          ...(step.currency ? { currency: step.currency } : {}),
          ...(step.capture ? { capture: true } : {}),
          ...(step.threeDS ? { threeDS: true } : {}),
          ...(step.threeDSPassword ? { threeDSPassword: step.threeDSPassword } : {}),
          ...(step.wrong === "cvc" ? { cvc: wrongCvc(card!.cvc) } : {}),
          ...(step.wrong === "expiry"
            ? { expMonth: card!.expMonth === 12 ? 1 : card!.expMonth + 1, expYear: card!.expYear }
            : {}),
        } as PurchaseInput);
        if (step.ref && r.transactionOid) purchases.set(step.ref, r.transactionOid);
        break;
      }
      case "capture":
        await capture(deps, { transactionOid: bought(step.ref) });
        break;
      case "reverse":
        await reverse(deps, { transactionOid: bought(step.ref) });
        break;
      case "receipt": {
        const [title, ...rest] = step.lines;
        const r = await attachDocument(deps, as(step.as), {
          record: bought(step.ref),
          documentType: "receipt",
          advanced: false,
          name: step.name,
          data: receiptPdf(title, rest),
          preview: null,
        });
        if (step.note) await saveNote(deps, as(step.as), r.document.oid, step.note);
        break;
      }
      case "vatFlag":
        await setDoTax(deps, as(step.as), bought(step.ref), step.value);
        break;
      case "review":
        await review(deps, as(step.as), [
          { oid: bought(step.ref), ...step.fields } as Parameters<typeof review>[2][number],
        ]);
        break;
    }
  }
}

/** A CVC that is certainly not the card's. */
function wrongCvc(cvc: string): string {
  return String((Number(cvc) + 1) % 1000).padStart(3, "0");
}

/** The card's expiry and CVC, as a merchant would have them (read once through a reveal). */
async function cardDetails(deps: Deps, requestOid: string, owner: User) {
  const r = (await deps.store.requests.get(owner.oid, requestOid)).value;
  if (!r?.card) throw new Error("demo history: the card was not generated");
  const s = await deps.issuer.createRevealSession(r.card.token);
  return await deps.issuer.redeemRevealSession(s.sessionId);
}
