import { noteChange, userChannel } from "./changes.ts";
import type { StatusCode } from "../../client/shared/contract/requests.ts";
import type { BudgetLine } from "../../client/shared/budget.ts";
import { IdAllocator } from "./ids.ts";
import { ListCache } from "./list_cache.ts";
import type { CodeWords } from "../org/labels.ts";

/** What the app keeps of an issued card (engineering.md §5: token, brand, last 4, expiry). */
export interface CardRef {
  token: string;
  brand: "visa" | "mastercard";
  last4: string;
  expMonth: number;
  expYear: number;
  /** YYYY-MM-DD, the last day the card may be used. */
  validUntil: string;
  holder: string;
  createdAt: number;
}

/**
 * An expense request as stored (spec §3). Reference labels (cost center, GL, project, type)
 * are copied in when chosen, like an accounting record: a renamed cost center does not
 * rewrite history, and listing 2,000 requests needs no joins.
 */
export interface RequestRecord {
  oid: string;
  id: string;
  authorOid: string;
  accountOid: string;
  typeOid: string;
  purpose: string;
  status: StatusCode;
  /** ms since epoch. */
  issueDate: number;
  costCenterOid: string | null;
  costCenter: string;
  GLOid: string | null;
  GLCode: string;
  projectOid: string | null;
  projectCode: string;
  /**
   * The cost center, GL and project words of every language, copied in with the English ones
   * above (server/org/labels.ts codesIn shows them in the reader's); absent on older records.
   */
  codeWords?: CodeWords;
  vendor: string;
  url: string;
  amount: number;
  currency: string;
  /** The plan the budget lines were built from; null for a one-off amount. */
  budgetPlan: {
    period: "weekly" | "monthly";
    startDate: string;
    amount: number;
    occurrences: number;
  } | null;
  budget: BudgetLine[];
  /** The open approval request (status requested onwards). */
  approvalOid: string | null;
  hasCard: boolean;
  openCard: boolean;
  /** Active, Blocked (frozen) or Closed once a card exists; Closed also for a closed request. */
  cardStatusCode: string | null;
  /** The issuer's card (spec §3 Card): its token and what may be shown; never the PAN or CVC. */
  card?: CardRef | null;
  approverNote: string | null;
  archive: boolean;
  updatedAt: number;
  /** spec §4 Flip: expenses flipped from this one so far (their ids end -0001, -0002…). */
  flips?: number;
  /** spec §4 Flip: set on an expense a flip made: the expense its transactions came from. */
  flippedFrom?: string | null;
}

/** The highest request number reserved by any process. */
const COUNTER: Deno.KvKey = ["seq", "request"];
/** Request numbers reserved per KV write (a sequence cache of 50). */
export const ID_BLOCK = 50;

/**
 * Requests under ["request", authorOid, oid]: a user's list is one prefix scan, and a read
 * by someone else's oid simply finds nothing (spec: 404, no existence leak). An owner index
 * lets the approval workflow find a request from its oid.
 */
export class RequestRepo {
  /** Request numbers of this KV (one allocator a Store, so every test app has its own). */
  readonly ids: IdAllocator;

  /** Each author's list, in memory behind ["request_version", author] (list_cache.ts). */
  readonly #lists: ListCache<RequestRecord>;

  constructor(private kv: Deno.Kv) {
    this.ids = new IdAllocator(kv, COUNTER, { block: ID_BLOCK });
    this.#lists = new ListCache(kv, "request", (author) => ["request", author]);
  }

  key(authorOid: string, oid: string): Deno.KvKey {
    return ["request", authorOid, oid];
  }

  async get(authorOid: string, oid: string): Promise<Deno.KvEntryMaybe<RequestRecord>> {
    return await this.kv.get<RequestRecord>(this.key(authorOid, oid));
  }

  /** Requests by [author, oid], ten keys per read in parallel; null where there is none. */
  async getAll(refs: readonly [string, string][]): Promise<(RequestRecord | null)[]> {
    const parts: Promise<Deno.KvEntryMaybe<RequestRecord>[]>[] = [];
    for (let i = 0; i < refs.length; i += 10) {
      const keys = refs.slice(i, i + 10).map(([author, oid]) => this.key(author, oid));
      parts.push(this.kv.getMany<RequestRecord[]>(keys));
    }
    return (await Promise.all(parts)).flat().map((e) => e.value);
  }

  async owner(oid: string): Promise<string | null> {
    return (await this.kv.get<string>(["request_owner", oid])).value;
  }

  /** The author's requests in key order; shared and frozen, never to be changed. */
  async byUser(
    authorOid: string,
    /** Its version entry, when read already (user_lists.ts). */
    version?: Deno.KvEntryMaybe<unknown>,
  ): Promise<readonly RequestRecord[]> {
    return await this.#lists.list(authorOid, version);
  }

  /** The key of the list's version (bumped by every put). */
  versionKey(authorOid: string): Deno.KvKey {
    return this.#lists.versionKey(authorOid);
  }

  /**
   * Adds the writes of a request (record, owner index, list version) to an atomic operation:
   * every write of a request goes through here.
   */
  put(op: Deno.AtomicOperation, r: RequestRecord): Deno.AtomicOperation {
    op.set(this.key(r.authorOid, r.oid), r).set(["request_owner", r.oid], r.authorOid);
    noteChange(op, [userChannel(r.authorOid)], "request", r.oid);
    return this.#lists.bump(op, r.authorOid);
  }

  /**
   * The next request id, 'R' and at least 6 digits ('R000001'): unique, increasing within a
   * process, never ending in '-dddd' (spec §9 reserves that for closed cards). Numbers come
   * from blocks of {@link ID_BLOCK} reserved in KV (see ids.ts): concurrent creates do not
   * contend on one key, and a restart may leave a gap of up to a block.
   */
  async nextId(): Promise<string> {
    return `R${String(await this.ids.next()).padStart(6, "0")}`;
  }

  /**
   * The counter itself: the highest request number reserved so far. For seeding tools that
   * write requests directly; an allocator that already holds a block keeps using it, so seed
   * before the first create of a process.
   */
  async counter(): Promise<Deno.KvEntryMaybe<number>> {
    return await this.kv.get<number>(COUNTER);
  }
  bumpCounter(op: Deno.AtomicOperation, cur: Deno.KvEntryMaybe<number>): Deno.AtomicOperation {
    return op.check(cur).set(COUNTER, (cur.value ?? 0) + 1);
  }
}
