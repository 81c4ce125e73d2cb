/**
 * A lived-in demo (spec §2 Transactions): on first start with the demo organisation, employee@ gets
 * a history so that every screen has something to show: requests in every status, approvals waiting
 * for approver@ (level 1) and manager@ (level 2), an active Visa card with captured, authorised,
 * refused (one of each reason) and foreign-currency purchases spread over today, yesterday, last
 * week and older, one captured purchase whose receipt is overdue, and a closed Mastercard; receipts
 * on three purchases, two of them reviewed with their VAT (spec §4 VAT flag). Everything goes
 * through the domain functions the API and the issuer's test mode use (createRequest,
 * submitRequest, decide, generateCard, closeRequest, cancelRequest, purchase/capture/refund), with
 * `deps.now` set to earlier instants while seeding, so the records are exactly what the app would
 * have made at those times. Nothing is mailed: the domain only queues messages, and the activation
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

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The demo's 3-D Secure password of employee@ (README: Demo organisation). */
export const DEMO_3DS_PASSWORD = "demo3ds";
const DEMO_PHONE = { countryPrefix: "+33", phoneNumber: "612345678" };

/** Who the history belongs to and who decides on it (emails of server/org/demo_org.json). */
const WHO = {
  employee: "employee@demo.example",
  approver: "approver@demo.example",
  manager: "manager@demo.example",
};

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

async function seed(deps: Deps, { ago, at }: Clock): Promise<void> {
  const emma = await user(deps, WHO.employee);
  const adam = await user(deps, WHO.approver);
  const maria = await user(deps, WHO.manager);
  const { approvals } = deps.store;

  const create = async (body: CreateBody) => await createRequest(deps, emma, body);
  /** The request's open approval (after a submit). */
  const approvalOf = async (requestOid: string) => {
    const list = await approvals.byRequest(requestOid);
    return list[list.length - 1].oid;
  };
  const submit = async (oid: string) => {
    await submitRequest(deps, emma, oid);
    return await approvalOf(oid);
  };

  // 3-D Secure defined for employee@ (cards need it): the password at the issuer, as a
  // confirmed change leaves it (secure.ts does the same after the PIN; no PIN mail here).
  at(ago(50));
  await deps.issuer.setThreeDSPassword(emma.oid, DEMO_3DS_PASSWORD, "current");
  const secure: SecureRecord = {
    userOid: emma.oid,
    ...DEMO_PHONE,
    defined: true,
    updatedAt: deps.now(),
  };
  const secureOp = deps.store.kv.atomic();
  deps.store.secure.put(secureOp, secure);
  if (!(await secureOp.commit()).ok) throw new Error("demo history: 3-D Secure not saved");

  // 1. A trade-fair stand on an EVENT card (Mastercard): accepted, a deposit held then
  // released when the fair was called off, the card closed.
  at(ago(45, 9));
  const fair = await create({
    typeOid: "type-event",
    amount: 1500,
    purpose: "Stand at the Paris trade fair",
    vendor: "Viparis",
    url: "www.viparis.com",
    costCenterOid: "cc-marketing",
    GLOid: "gl-advertising",
    projectOid: "prj-brand",
  });
  at(ago(45, 10));
  const fairA = await submit(fair.oid);
  at(ago(44, 11));
  await decide(deps, adam, fairA, "approved");
  at(ago(43, 15));
  await decide(deps, maria, fairA, "approved");
  at(ago(42, 9));
  await generateCard(deps, emma, fair.oid);
  at(ago(40, 14));
  const deposit = await purchase(deps, {
    ...merchant("Viparis", "Paris", "FR", "7399"),
    card: fair.oid,
    amount: "1200.00",
  });
  at(ago(38, 10));
  await reverse(deps, { transactionOid: deposit.transactionOid ?? undefined });
  at(ago(36, 16));
  await closeRequest(deps, emma, fair.oid);

  // 2. A monitor, rejected by approver@ with a note (EQUIPMENT requires one).
  at(ago(30, 9));
  const monitor = await create({
    typeOid: "type-equipment",
    amount: 450,
    purpose: "Second 27-inch monitor",
    vendor: "LDLC",
    costCenterOid: "cc-it",
    GLOid: "gl-hardware",
    projectOid: "prj-cloud",
  });
  at(ago(30, 10));
  const monitorA = await submit(monitor.oid);
  at(ago(29, 14));
  await addApprovalComment(
    deps,
    adam,
    monitorA,
    "We have spare monitors in the IT stock room: please ask IT for one.",
  );
  await decide(deps, adam, monitorA, "rejected");

  // 3. The client visit to Lyon: accepted at both levels, an active Visa card in use.
  at(ago(25, 8));
  const lyon = await create({
    typeOid: "type-travel",
    amount: 800,
    purpose: "Client visit to Lyon: train, hotel and meals",
    costCenterOid: "cc-sales",
    GLOid: "gl-travel",
    projectOid: "prj-expansion",
  });
  at(ago(25, 9));
  const lyonA = await submit(lyon.oid);
  at(ago(24, 10));
  await decide(deps, adam, lyonA, "approved");
  at(ago(23, 16));
  await decide(deps, maria, lyonA, "approved");
  at(ago(22, 9));
  await generateCard(deps, emma, lyon.oid);

  // 4. An ergonomic keyboard, submitted then cancelled by employee@.
  at(ago(16, 11));
  const keyboard = await create({
    typeOid: "type-supplies",
    amount: 89,
    purpose: "Ergonomic keyboard",
    vendor: "Logitech",
  });
  at(ago(16, 12));
  await submit(keyboard.oid);
  at(ago(15, 9));
  await cancelRequest(deps, emma, keyboard.oid);

  // 5. Printer toner: accepted, no card yet (the newcomer can generate one).
  at(ago(12, 10));
  const toner = await create({
    typeOid: "type-supplies",
    amount: 60,
    purpose: "Toner for the team printer",
    vendor: "Bureau Vallée",
  });
  at(ago(12, 11));
  const tonerA = await submit(toner.oid);
  at(ago(11, 9));
  await decide(deps, adam, tonerA, "approved");

  // 6. London workshop (GBP): approved by approver@ at level 1, waiting for manager@ (level 2).
  at(ago(10, 9));
  const london = await create({
    typeOid: "type-uk-travel",
    amount: 1200,
    purpose: "Client workshop in London",
    vendor: "Eurostar",
    url: "www.eurostar.com",
  });
  at(ago(10, 10));
  const londonA = await submit(london.oid);
  at(ago(9, 15));
  await decide(deps, adam, londonA, "approved");

  // 7. Train tickets to Brussels: waiting for approver@ (one level: under 250 EUR).
  at(ago(9, 16));
  const brussels = await create({
    typeOid: "type-travel",
    amount: 180,
    purpose: "Train tickets for the team offsite in Brussels",
    vendor: "SNCF Connect",
  });
  at(ago(9, 17));
  await submit(brussels.oid);

  // 8. A conference in Amsterdam, still a draft (new).
  at(ago(9, 18));
  await create({
    typeOid: "type-travel",
    amount: 600,
    purpose: "Conference in Amsterdam",
    vendor: "Booking.com",
  });
  // Requests are created before the overdue receipt below exists (from ago(9) on it blocks
  // new requests, spec §5); the purchases follow at their own dates.

  // Purchases on the Lyon card (available 800 EUR), oldest first.
  const buy = async (d: number, h: number, p: Omit<PurchaseInput, "card">) => {
    at(ago(d, h));
    return await purchase(deps, { card: lyon.oid, ...p });
  };
  const details = await cardDetails(deps, lyon.oid, emma);

  // Older: a hotel captured 16 days ago with no receipt: overdue (receiptOverdueDays 7).
  await buy(16, 20, {
    ...merchant("Hôtel Bellecour", "Lyon", "FR", "7011"),
    amount: "180.00",
    capture: true,
  });
  // Older: refused, casino (MCC blocked by the TRAVEL type's policy).
  await buy(15, 22, { ...merchant("Casino Le Lyon Vert", "Lyon", "FR", "7995"), amount: "50.00" });
  // Older: refused, online shop sent a wrong CVC.
  await buy(10, 13, {
    ...merchant("Amazon Marketplace", "Luxembourg", "LU", "5942"),
    amount: "34.90",
    cvc: wrongCvc(details.cvc),
  });
  // Older, reversed: a car hire hold released.
  const hire = await buy(9, 9, {
    ...merchant("Hertz", "Lyon", "FR", "7512"),
    amount: "150.00",
  });
  at(ago(8, 12));
  await reverse(deps, {
    transactionOid: hire.transactionOid ?? undefined,
  });

  // Last week: foreign currency (GBP), captured; its receipt is due in a day or two.
  const heathrow = await buy(5, 9, {
    ...merchant("Heathrow Express", "London", "GB", "4112"),
    amount: "25.00",
    currency: "GBP",
    capture: true,
  });
  // Last week: refused, the expiry date sent did not match (Verification).
  await buy(4, 19, {
    ...merchant("Booking.com", "Amsterdam", "NL", "4722"),
    amount: "96.00",
    expMonth: details.expMonth === 12 ? 1 : details.expMonth + 1,
    expYear: details.expYear,
  });
  // Last week: refused, wrong 3-D Secure password (Authentication).
  await buy(3, 8, {
    ...merchant("Air France", "Paris", "FR", "3007"),
    amount: "212.40",
    threeDS: true,
    threeDSPassword: "wrong-password",
  });

  // Yesterday: dinner with the client, held then captured; a USD software hold (3-D Secure).
  const dinner = await buy(1, 20, {
    ...merchant("Brasserie Georges", "Lyon", "FR", "5812"),
    amount: "64.50",
  });
  at(ago(1, 23));
  await capture(deps, { transactionOid: dinner.transactionOid ?? undefined });
  await buy(1, 11, {
    ...merchant("Figma", "San Francisco", "US", "5734"),
    amount: "45.00",
    currency: "USD",
    threeDS: true,
    threeDSPassword: DEMO_3DS_PASSWORD,
  });

  // Today: the train home, captured; a taxi, authorised; a laptop, refused (over the balance).
  const train = await buy(0, 3, {
    ...merchant("SNCF", "Lyon", "FR", "4112"),
    amount: "89.00",
    capture: true,
  });
  await buy(0, 2, { ...merchant("Taxi Lyonnais", "Lyon", "FR", "4121"), amount: "27.80" });
  await buy(0, 1, {
    ...merchant("Apple Store", "Lyon", "FR", "5732"),
    amount: "1299.00",
  });

  // Receipts (spec §3 Receipt, Document): the dinner's PDF with a note, VAT to be told; the
  // Heathrow ticket reviewed without VAT; the train reviewed with French VAT at 10 %.
  const receipt = async (oid: string | null | undefined, name: string, lines: string[]) => {
    if (!oid) throw new Error(`demo history: no transaction for ${name}`);
    const r = await attachDocument(deps, emma, {
      record: oid,
      documentType: "receipt",
      advanced: false,
      name,
      data: receiptPdf(lines[0], lines.slice(1)),
      preview: null,
    });
    return r.document.oid;
  };
  at(ago(1, 22));
  const dinnerReceipt = await receipt(dinner.transactionOid, "brasserie-georges.pdf", [
    "Brasserie Georges",
    "30 cours de Verdun, Lyon",
    "2 x Menu Georges          58.00",
    "1 x Cafe                   6.50",
    "Total EUR                 64.50",
    "dont TVA 10 %              5.86",
  ]);
  await saveNote(deps, emma, dinnerReceipt, "Dinner with the client, 2 people");
  await setDoTax(deps, emma, dinner.transactionOid!, "true");
  at(ago(5, 6));
  await receipt(heathrow.transactionOid, "heathrow-express.pdf", [
    "Heathrow Express",
    "Paddington - Heathrow T5",
    "Single, standard          25.00 GBP",
    "Zero-rated transport",
  ]);
  await setDoTax(deps, emma, heathrow.transactionOid!, "false");
  await review(deps, emma, [{
    oid: heathrow.transactionOid!,
    typeOid: "rt-ticket",
    accountingCodeOid: "ac-transport",
  }]);
  at(ago(0, 2));
  await receipt(train.transactionOid, "sncf-e-billet.pdf", [
    "SNCF e-billet",
    "Lyon Part-Dieu - Paris Gare de Lyon",
    "TGV INOUI 2nde classe      89.00",
    "dont TVA 10 %              8.09",
  ]);
  await setDoTax(deps, emma, train.transactionOid!, "true");
  await review(deps, emma, [{
    oid: train.transactionOid!,
    countryId: "FR",
    vat1Oid: "vat-fr-10",
    vat1Amount: 8.09,
    typeOid: "rt-ticket",
    accountingCodeOid: "ac-transport",
  }]);
}

function merchant(name: string, city: string, country: string, mcc: string) {
  return { merchantName: name, merchantCity: city, merchantCountry: country, mcc };
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
