import { noteChange, teamChannel, userChannel } from "./changes.ts";
import { keepBounded } from "./bounded.ts";
import { ORG_VERSION } from "./org_version.ts";
import { writeInBatches } from "./kv.ts";
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

/** Approvals whose request this process remembers (about 100 bytes each). */
const MAX_LINKS = 50_000;
/** ["approval_team_at", team, createdAt, oid]: a team's approvals, oldest first. */
const BY_TEAM_AT = "approval_team_at";
/** ["approval_team_open", team, oid]: a team's open approvals (status new). */
const OPEN_BY_TEAM = "approval_team_open";
const TEAM_INDEXES_READY: Deno.KvKey = ["approval_team_ready"];

export class ApprovalRepo {
  /**
   * Each approval's request (its author and oid), fixed when the approval is opened: kept per
   * process for the approvals it has read or written, so a decision reads the approval and
   * its request at once (withRequest). Only records that exist are kept, at most MAX_LINKS.
   */
  private links = new Map<string, { authorOid: string; requestOid: string }>();

  constructor(private kv: Deno.Kv) {}

  async get(oid: string): Promise<Deno.KvEntryMaybe<ApprovalRecord>> {
    const entry = await this.kv.get<ApprovalRecord>(this.key(oid));
    this.remember(entry.value);
    return entry;
  }

  /**
   * The approval, the organisation's version (the teams that say who may decide it,
   * org_cache.ts) and, when this process knows which request the approval is for, that
   * request: one store read for what a decision needs. `request` is null when the link was
   * not known (the caller reads the request itself).
   */
  async withRequest<R>(
    oid: string,
    requestKey: (authorOid: string, requestOid: string) => Deno.KvKey,
  ): Promise<{
    approval: Deno.KvEntryMaybe<ApprovalRecord>;
    version: Deno.KvEntryMaybe<unknown>;
    request: Deno.KvEntryMaybe<R> | null;
  }> {
    const link = this.links.get(oid);
    const keys = [this.key(oid), ORG_VERSION];
    if (link) keys.push(requestKey(link.authorOid, link.requestOid));
    const [approval, version, request] = await this.kv.getMany<[ApprovalRecord, unknown, R]>(
      keys as [Deno.KvKey, Deno.KvKey, Deno.KvKey],
    );
    this.remember(approval.value);
    const same = link && approval.value?.requestOid === link.requestOid &&
      approval.value.authorOid === link.authorOid;
    return { approval, version, request: same ? request : null };
  }

  private remember(a: ApprovalRecord | null): void {
    if (a) {
      keepBounded(
        this.links,
        a.oid,
        { authorOid: a.authorOid, requestOid: a.requestOid },
        MAX_LINKS,
      );
    }
  }

  key(oid: string): Deno.KvKey {
    return ["approval", oid];
  }

  /** The record, its request index and a team index (every team of every level). */
  put(op: Deno.AtomicOperation, a: ApprovalRecord): Deno.AtomicOperation {
    this.remember(a);
    op.set(["approval", a.oid], a).set(["approval_by_request", a.requestOid, a.oid], a.oid);
    const teams = new Set(a.levels.flatMap((l) => l.teamOids));
    for (const team of teams) {
      op.set(["approval_by_team", team, a.oid], a.oid);
      // The approvers' list reads these two (listRecent): what is open, and the newest first.
      op.set([BY_TEAM_AT, team, a.createdAt, a.oid], a.oid);
      if (a.statusCode === "new") op.set([OPEN_BY_TEAM, team, a.oid], a.oid);
      else op.delete([OPEN_BY_TEAM, team, a.oid]);
    }
    // Its approvers' lists (by team) and the requester's view of its levels.
    noteChange(op, [...[...teams].map(teamChannel), userChannel(a.authorOid)], "approval", a.oid);
    return op;
  }

  /**
   * Every approval ever of these teams (whole history: an index walk and one read each). For
   * tools and tests; the approvers' list and the leavers' rerouting read listRecent and
   * openByTeams, whose cost does not grow with the teams' history.
   */
  async byTeams(teamOids: Iterable<string>): Promise<ApprovalRecord[]> {
    const oids = new Set<string>();
    for (const team of teamOids) {
      for await (const e of this.kv.list<string>({ prefix: ["approval_by_team", team] })) {
        oids.add(e.value);
      }
    }
    return await this.getAll(oids);
  }

  /** The open approvals (status new) of these teams. */
  async openByTeams(teamOids: Iterable<string>): Promise<ApprovalRecord[]> {
    await this.backfill();
    const oids = new Set<string>();
    for (const team of teamOids) {
      for await (const e of this.kv.list<string>({ prefix: [OPEN_BY_TEAM, team] })) {
        oids.add(e.value);
      }
    }
    return (await this.getAll(oids)).filter((a) => a.statusCode === "new");
  }

  /**
   * What an approver's list shows (spec §7 pwalistrequests): every open approval of these
   * teams, and of their history the `history` newest per team. Reads in proportion to the open
   * ones and `history`, not to the teams' whole past.
   */
  async listRecent(teamOids: Iterable<string>, history: number): Promise<ApprovalRecord[]> {
    await this.backfill();
    const oids = new Set<string>();
    for (const team of teamOids) {
      for await (const e of this.kv.list<string>({ prefix: [OPEN_BY_TEAM, team] })) {
        oids.add(e.value);
      }
      const recent = this.kv.list<string>({ prefix: [BY_TEAM_AT, team] }, {
        reverse: true,
        limit: history,
        batchSize: Math.min(history, 500),
      });
      for await (const e of recent) oids.add(e.value);
    }
    return await this.getAll(oids);
  }

  /** Approvals by oid, ten keys per read (Deno KV's getMany limit), in parallel. */
  private async getAll(oids: Iterable<string>): Promise<ApprovalRecord[]> {
    const keys = [...oids].map((oid) => this.key(oid));
    const parts: Promise<Deno.KvEntryMaybe<ApprovalRecord>[]>[] = [];
    for (let i = 0; i < keys.length; i += 10) {
      parts.push(this.kv.getMany<ApprovalRecord[]>(keys.slice(i, i + 10)));
    }
    const out: ApprovalRecord[] = [];
    for (const part of await Promise.all(parts)) {
      for (const e of part) {
        if (e.value) {
          this.remember(e.value);
          out.push(e.value);
        }
      }
    }
    return out;
  }

  #ready = false;
  /**
   * The open and time-ordered team indexes of approvals written before they existed, once per
   * store (a marker key says it is done).
   */
  private async backfill(): Promise<void> {
    if (this.#ready) return;
    if ((await this.kv.get(TEAM_INDEXES_READY)).value) {
      this.#ready = true;
      return;
    }
    const all = this.kv.list<ApprovalRecord>({ prefix: ["approval"] }, { batchSize: 500 });
    await writeInBatches(this.kv, all, (op, { value: a }) => {
      for (const team of new Set(a.levels.flatMap((l) => l.teamOids))) {
        op.set([BY_TEAM_AT, team, a.createdAt, a.oid], a.oid);
        if (a.statusCode === "new") op.set([OPEN_BY_TEAM, team, a.oid], a.oid);
      }
    }, 100);
    await this.kv.set(TEAM_INDEXES_READY, true);
    this.#ready = true;
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
