import { noteChange, userChannel } from "./changes.ts";
import { type DeclarationState, needsReceipt } from "../../client/shared/transaction_rules.ts";
import { ListCache } from "./list_cache.ts";
import { writeInBatches } from "./kv.ts";

/**
 * A card transaction as the app keeps it (spec §3 Transaction): what the issuer
 * decided about one authorization of one of the user's cards, plus what only the app knows
 * (the expense it belongs to, flips, receipts, review, VAT). Money in minor units of its
 * currency. No card number, no CVC: the card is named by its request and the issuer's token.
 */
export interface TransactionRecord {
  v: 2;
  oid: string;
  /** The card's author: transactions live under their user (a stranger's read finds nothing). */
  userOid: string;
  /** The expense it is on now: the card's request, or the one a flip made. */
  expenseOid: string;
  /** The card's request (oid, id) and the issuer's card token. */
  cardOid: string;
  cardId: string;
  cardToken: string;
  /** The issuer's authorization and the highest of its versions applied here. */
  authorizationId: string;
  issuerVersion: number;
  transactionType: "Purchase" | "Refund";
  transactionStatus: string;
  /** The issuer's state (pending, closed, reversed, declined). */
  status: string;
  createdAt: number;
  capturedAt: number | null;
  updatedAt: number;
  merchantname: string;
  merchantcity: string;
  merchantcountry: string;
  mcc: string;
  /** What counts, in the card's currency: captured net of refunds, else what is held. */
  amount: number;
  pricingCurrency: string;
  /** The same in the merchant's currency. */
  originalAmount: number;
  originalCurrency: string;
  /** Display rate (1 original = rate pricing), null in the card's own currency. */
  rate: string | null;
  amountAuthorized: number;
  amountCaptured: number;
  amountRefunded: number;
  refusedReason: string | null;
  originalPurpose: string;
  /** Flips: the original of a copy; the expense a copy came from; where an original went. */
  originOid: string | null;
  flipExtOid: string | null;
  movedToOid: string | null;
  movedToExpenseOid: string | null;
  /** Receipts, documents, review and VAT: the receipts issue fills them. */
  nbReceipts: number;
  nbDocuments: number;
  reviewed: boolean;
  collectVatFlag: boolean | null;
  typeOid: string | null;
  accountingCodeOid: string | null;
  countryId: string | null;
  vat: {
    vat1Oid: string | null;
    vat2Oid: string | null;
    vat3Oid: string | null;
    vat1Amount: number | null;
    vat2Amount: number | null;
    vat3Amount: number | null;
  };
  archive: boolean;
  /** The holder's "no receipt" declaration (spec §5), if any; absent on older records. */
  declaration?: DeclarationRecord | null;
}

/**
 * A card holder's "no receipt" declaration on one transaction (spec §5 missing receipts):
 * what was bought, why there is no receipt, who confirmed it and when; "pending" until an
 * approver accepts it when the organisation requires approval of declarations.
 */
export interface DeclarationRecord {
  what: string;
  reason: string;
  byOid: string;
  byName: string;
  at: number;
  state: DeclarationState;
  /** The approver who accepted it (organisations that require approval). */
  decidedByOid?: string;
  decidedByName?: string;
  decidedAt?: number;
}

/** Where the app's transaction of an issuer authorization is (the live one after a flip). */
/**
 * What a new transaction carries before anyone accounts for it: no flip, no receipt, no
 * document, not reviewed, no VAT (the receipts and VAT issue fills these).
 */
export function unaccounted(): Pick<
  TransactionRecord,
  | "originOid"
  | "flipExtOid"
  | "movedToOid"
  | "movedToExpenseOid"
  | "nbReceipts"
  | "nbDocuments"
  | "reviewed"
  | "collectVatFlag"
  | "typeOid"
  | "accountingCodeOid"
  | "countryId"
  | "vat"
  | "archive"
> {
  return {
    originOid: null,
    flipExtOid: null,
    movedToOid: null,
    movedToExpenseOid: null,
    nbReceipts: 0,
    nbDocuments: 0,
    reviewed: false,
    collectVatFlag: null,
    typeOid: null,
    accountingCodeOid: null,
    countryId: null,
    vat: noVatLines(),
    archive: false,
  };
}

/** The three VAT line slots, all empty (spec §3 vat1…vat3 Oid and Amount). */
export function noVatLines(): TransactionRecord["vat"] {
  return {
    vat1Oid: null,
    vat2Oid: null,
    vat3Oid: null,
    vat1Amount: null,
    vat2Amount: null,
    vat3Amount: null,
  };
}

/** ["transaction_missing", capturedAt, oid] → userOid: see TransactionRepo.put. */
export const MISSING = ["transaction_missing"] as const;

/** Whether a transaction is in the missing-receipt index: a live purchase needing one. */
const missingReceipt = (t: TransactionRecord) => !t.movedToOid && needsReceipt(t);

/** ["transaction_booked", bookedAt, oid] → userOid: see TransactionRepo.put. */
export const BOOKED = ["transaction_booked"] as const;

/**
 * When a transaction counts in the books: a purchase when first captured (authorised, refused
 * and reversed ones never), a merchant's credit when made. Null when it does not count.
 */
export function bookedAt(
  t: Pick<TransactionRecord, "transactionType" | "capturedAt" | "createdAt" | "status">,
): number | null {
  if (t.transactionType === "Refund") {
    return t.status === "declined" ? null : t.capturedAt ?? t.createdAt;
  }
  return t.capturedAt;
}

export interface AuthRef {
  userOid: string;
  oid: string;
}

/**
 * Transactions under ["transaction", userOid, oid] (a user's list is one prefix scan), an
 * owner index by oid (test mode names a transaction by its oid alone) and an index from the
 * issuer's authorization id to the app's live transaction, kept in the same atomic writes.
 * A user's list (read on every pwalists) is kept in memory behind ["transaction_version",
 * user], which every put() bumps (list_cache.ts): every write of a transaction must go
 * through put().
 */
export class TransactionRepo {
  readonly #lists: ListCache<TransactionRecord>;

  constructor(private kv: Deno.Kv) {
    this.#lists = new ListCache(kv, "transaction", (user) => ["transaction", user]);
  }

  key(userOid: string, oid: string): Deno.KvKey {
    return ["transaction", userOid, oid];
  }

  async get(userOid: string, oid: string): Promise<Deno.KvEntryMaybe<TransactionRecord>> {
    return await this.kv.get<TransactionRecord>(this.key(userOid, oid));
  }

  /** The user's transactions in key order; shared and frozen, never to be changed. */
  async byUser(
    userOid: string,
    /** Its version entry, when read already (user_lists.ts). */
    version?: Deno.KvEntryMaybe<unknown>,
  ): Promise<readonly TransactionRecord[]> {
    return await this.#lists.list(userOid, version);
  }

  /** The key of the list's version (bumped by every put). */
  versionKey(userOid: string): Deno.KvKey {
    return this.#lists.versionKey(userOid);
  }

  async owner(oid: string): Promise<string | null> {
    return (await this.kv.get<string>(["transaction_owner", oid])).value;
  }

  async byAuthorization(authorizationId: string): Promise<Deno.KvEntryMaybe<AuthRef>> {
    return await this.kv.get<AuthRef>(["transaction_auth", authorizationId]);
  }

  /**
   * Adds the writes of a transaction (record, owner index, booked index, list version) to an
   * atomic op.
   */
  put(op: Deno.AtomicOperation, t: TransactionRecord): Deno.AtomicOperation {
    op.set(this.key(t.userOid, t.oid), t).set(["transaction_owner", t.oid], t.userOid);
    // The accounting export's index: the live transactions by the day they were booked. The key
    // never moves (a capture's time is set once), so a flip's original leaves it and its copy
    // enters it in the same write.
    const at = bookedAt(t);
    if (at !== null) {
      const key = [...BOOKED, at, t.oid];
      if (t.movedToOid) op.delete(key);
      else op.set(key, t.userOid);
    }
    // The receipt sweeps' index (server/reminders, server/push/overdue.ts): the purchases still
    // missing a receipt, by capture time. Sweeps read the time range that falls due, not the
    // organisation's transactions.
    if (t.capturedAt !== null) {
      const key = [...MISSING, t.capturedAt, t.oid];
      if (missingReceipt(t)) op.set(key, t.userOid);
      else op.delete(key);
    }
    noteChange(op, [userChannel(t.userOid)], "transaction", t.oid);
    return this.#lists.bump(op, t.userOid);
  }

  /**
   * The live purchases missing a receipt captured in [from, to), oldest first: their owner
   * and oid (the record is read by key). A sweep's reads follow what falls due.
   */
  async *missingReceipts(from: number, to: number): AsyncIterable<AuthRef> {
    await this.#backfillMissing();
    const it = this.kv.list<string>(
      { start: [...MISSING, Math.max(0, from)], end: [...MISSING, to] },
      { batchSize: 500 },
    );
    for await (const e of it) yield { userOid: e.value, oid: String(e.key[2]) };
  }

  /** The records of `refs` (ten keys per read), those that exist, in the order given. */
  async getAll(refs: readonly AuthRef[]): Promise<TransactionRecord[]> {
    const parts: Promise<Deno.KvEntryMaybe<TransactionRecord>[]>[] = [];
    for (let i = 0; i < refs.length; i += 10) {
      const keys = refs.slice(i, i + 10).map((r) => this.key(r.userOid, r.oid));
      parts.push(this.kv.getMany<TransactionRecord[]>(keys));
    }
    return (await Promise.all(parts)).flat().flatMap((e) => e.value ? [e.value] : []);
  }

  /** missingReceipts grouped by owner: the records, read by key. */
  async missingByUser(from: number, to: number): Promise<Map<string, TransactionRecord[]>> {
    const refs = new Map<string, AuthRef[]>();
    for await (const r of this.missingReceipts(from, to)) {
      const list = refs.get(r.userOid);
      if (list) list.push(r);
      else refs.set(r.userOid, [r]);
    }
    const out = new Map<string, TransactionRecord[]>();
    for (const [user, list] of refs) out.set(user, await this.getAll(list));
    return out;
  }

  #missingReady = false;
  /** The missing-receipt index of transactions written before it existed, once per store. */
  async #backfillMissing(): Promise<void> {
    if (this.#missingReady) return;
    const done = ["transaction_missing_ready"];
    if (!(await this.kv.get(done)).value) {
      const all = this.kv.list<TransactionRecord>({ prefix: ["transaction"] }, { batchSize: 500 });
      await writeInBatches(this.kv, all, (op, { value: t }) => {
        if (t.capturedAt === null || !missingReceipt(t)) return false;
        op.set([...MISSING, t.capturedAt, t.oid], t.userOid);
      });
      await this.kv.set(done, true);
    }
    this.#missingReady = true;
  }

  /**
   * The booked index of transactions written before it existed, once per store (a marker key
   * says it is done): each live transaction's entry, in writes of 500.
   */
  async backfillBooked(): Promise<number> {
    const done = ["transaction_booked_ready"];
    if ((await this.kv.get(done)).value) return 0;
    const all = this.kv.list<TransactionRecord>({ prefix: ["transaction"] });
    const n = await writeInBatches(this.kv, all, (op, { value: t }) => {
      const at = bookedAt(t);
      if (at === null || t.movedToOid) return false;
      op.set([...BOOKED, at, t.oid], t.userOid);
    });
    await this.kv.set(done, true);
    return n;
  }

  /** Points an authorization at the transaction that now stands for it. */
  link(op: Deno.AtomicOperation, t: TransactionRecord): Deno.AtomicOperation {
    return op.set(["transaction_auth", t.authorizationId], { userOid: t.userOid, oid: t.oid });
  }
}
