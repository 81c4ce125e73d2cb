import type { StatusCode } from "../../client/api/contract/requests.ts";
import type { BudgetLine } from "../../client/lib/budget.ts";
import { listValues } from "./kv.ts";

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
  cardStatusCode: string | null;
  approverNote: string | null;
  archive: boolean;
  updatedAt: number;
}

/**
 * Requests under ["request", authorOid, oid]: a user's list is one prefix scan, and a read
 * by someone else's oid simply finds nothing (spec: 404, no existence leak). An owner index
 * lets the approval workflow find a request from its oid.
 */
export class RequestRepo {
  constructor(private kv: Deno.Kv) {}

  key(authorOid: string, oid: string): Deno.KvKey {
    return ["request", authorOid, oid];
  }

  async get(authorOid: string, oid: string): Promise<Deno.KvEntryMaybe<RequestRecord>> {
    return await this.kv.get<RequestRecord>(this.key(authorOid, oid));
  }

  async owner(oid: string): Promise<string | null> {
    return (await this.kv.get<string>(["request_owner", oid])).value;
  }

  async byUser(authorOid: string): Promise<RequestRecord[]> {
    return await listValues<RequestRecord>(this.kv, ["request", authorOid]);
  }

  /** Adds the writes of a request (record and owner index) to an atomic operation. */
  put(op: Deno.AtomicOperation, r: RequestRecord): Deno.AtomicOperation {
    return op.set(this.key(r.authorOid, r.oid), r).set(["request_owner", r.oid], r.authorOid);
  }

  /** The request-number counter, read so a create can check and bump it atomically. */
  async counter(): Promise<Deno.KvEntryMaybe<number>> {
    return await this.kv.get<number>(["seq", "request"]);
  }
  bumpCounter(op: Deno.AtomicOperation, cur: Deno.KvEntryMaybe<number>): Deno.AtomicOperation {
    return op.check(cur).set(["seq", "request"], (cur.value ?? 0) + 1);
  }
}
