import { ORG_VERSION } from "./org_version.ts";
/**
 * An approval request (spec §3), opened when a request is submitted. The voting itself
 * (votes, levels opening one after another) is the approval workflow's; this repository
 * stores the record and finds it from its request.
 */
export interface PollLevelRecord {
  level: number;
  actionDescription: string;
  teamOids: string[];
  /** Approving votes the level needs. */
  quota: number;
  /** pending until the level before it is done; open while it collects votes. */
  statusCode: "pending" | "open" | "approved" | "rejected" | "cancelled";
  openedAt: number | null;
}

export interface VoteRecord {
  userOid: string;
  level: number;
  statusCode: "approved" | "rejected" | "reviewed";
  isDelegated: boolean;
  createdAt: number;
}

export interface ApprovalRecord {
  oid: string;
  id: string;
  requestOid: string;
  authorOid: string;
  statusCode: "new" | "approved" | "rejected" | "cancelled";
  createdAt: number;
  amount: number;
  currency: string;
  typeOid: string;
  costCenterOid: string | null;
  levels: PollLevelRecord[];
  votes: VoteRecord[];
  archive: boolean;
  /**
   * Who may not vote on which level: an approver whose edit reissued an approval in which
   * that level had been decided (spec §4/§6: nobody undoes another person's vote and then
   * casts it themselves). Carried from one reissue to the next.
   */
  barred?: { userOid: string; level: number }[];
}

export class ApprovalRepo {
  constructor(private kv: Deno.Kv) {}

  async get(oid: string): Promise<Deno.KvEntryMaybe<ApprovalRecord>> {
    return await this.kv.get<ApprovalRecord>(this.key(oid));
  }

  /**
   * The approval and the organisation's version in one store read (a decision needs both:
   * the record and the teams that say who may decide it, org_cache.ts).
   */
  async withOrgVersion(
    oid: string,
  ): Promise<[Deno.KvEntryMaybe<ApprovalRecord>, Deno.KvEntryMaybe<unknown>]> {
    const [a, v] = await this.kv.getMany<[ApprovalRecord, unknown]>([this.key(oid), ORG_VERSION]);
    return [a, v];
  }

  key(oid: string): Deno.KvKey {
    return ["approval", oid];
  }

  /** The record, its request index and a team index (every team of every level). */
  put(op: Deno.AtomicOperation, a: ApprovalRecord): Deno.AtomicOperation {
    op.set(["approval", a.oid], a).set(["approval_by_request", a.requestOid, a.oid], a.oid);
    for (const team of new Set(a.levels.flatMap((l) => l.teamOids))) {
      op.set(["approval_by_team", team, a.oid], a.oid);
    }
    return op;
  }

  /** Approvals with a level for one of these teams. */
  async byTeams(teamOids: Iterable<string>): Promise<ApprovalRecord[]> {
    const oids = new Set<string>();
    for (const team of teamOids) {
      for await (const e of this.kv.list<string>({ prefix: ["approval_by_team", team] })) {
        oids.add(e.value);
      }
    }
    const out: ApprovalRecord[] = [];
    for (const oid of oids) {
      const a = (await this.get(oid)).value;
      if (a) out.push(a);
    }
    return out;
  }

  async byRequest(requestOid: string): Promise<ApprovalRecord[]> {
    const out: ApprovalRecord[] = [];
    for await (const e of this.kv.list<string>({ prefix: ["approval_by_request", requestOid] })) {
      const a = (await this.get(e.value)).value;
      if (a) out.push(a);
    }
    return out.sort((a, b) => a.createdAt - b.createdAt);
  }
}
