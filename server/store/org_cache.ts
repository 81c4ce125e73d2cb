import { listValues } from "./kv.ts";
import { ARCHIVED, type OrgAccount, type OrgType, type Team } from "./org.ts";
import type { User } from "./users.ts";
import { bumpOrg, ORG_VERSION } from "./org_version.ts";

/** What approval decisions read on every call: teams, users, request types, accounts. */
export interface OrgSnapshot {
  teams: ReadonlyMap<string, Readonly<Team>>;
  users: ReadonlyMap<string, Readonly<User>>;
  types: ReadonlyMap<string, Readonly<OrgType>>;
  accounts: ReadonlyMap<string, Readonly<OrgAccount>>;
  /** Each team's members (people still in it), from `users`: read by team, not by scanning. */
  members: ReadonlyMap<string, readonly Readonly<User>[]>;
}

/** The members of `team` in a snapshot (none when it has none). */
export const membersOf = (snap: OrgSnapshot, team: string): readonly Readonly<User>[] =>
  snap.members.get(team) ?? [];

/**
 * The organisation kept in memory behind ORG_VERSION (like list_cache.ts for users' lists):
 * one get of the version — which callers read in one getMany with their own keys — tells
 * whether the copy is current, whichever process wrote. The version is read before the data,
 * so a copy is never older than its stamp. Records come back shared and frozen.
 */
export class OrgCache {
  #kept: { stamp: string; snap: OrgSnapshot } | null = null;

  constructor(private kv: Deno.Kv) {}

  /** The snapshot; `read`: the ORG_VERSION entry when the caller read it just before. */
  async snapshot(read?: Deno.KvEntryMaybe<unknown>): Promise<OrgSnapshot> {
    const version = read ?? await this.kv.get(ORG_VERSION);
    const kept = this.#kept;
    if (kept && version.versionstamp === kept.stamp) return kept.snap;
    // Archived records (org.ts ARCHIVED) too: an open approval may still name them.
    const byOid = async <T extends { oid: string }>(prefix: string) =>
      new Map(
        [
          ...await listValues<T>(this.kv, [ARCHIVED, prefix]),
          ...await listValues<T>(this.kv, [prefix]),
        ].map((t) => [t.oid, Object.freeze(t)]),
      );
    const [teams, users, types, accounts] = await Promise.all([
      byOid<Team>("team"),
      byOid<User>("user"),
      byOid<OrgType>("rtype"),
      byOid<OrgAccount>("account"),
    ]);
    const members = new Map<string, Readonly<User>[]>();
    for (const u of users.values()) {
      for (const t of u.teams) {
        const list = members.get(t);
        if (list) list.push(u);
        else members.set(t, [u]);
      }
    }
    const snap = { teams, users, types, accounts, members };
    let stamp = version.versionstamp;
    if (!stamp) {
      // A store written before the version existed: created, checked absent (a write since
      // the version was read bumped it and fails the check), so the copy can be kept.
      const made = await bumpOrg(this.kv.atomic().check(version)).commit();
      if (made.ok) stamp = made.versionstamp;
    }
    if (stamp) this.#kept = { stamp, snap };
    return snap;
  }
}
