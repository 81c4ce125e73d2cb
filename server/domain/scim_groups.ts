/**
 * SCIM 2.0 Groups (RFC 7643 §4.2, RFC 7644 §3): the organisation's teams, provisioned by an
 * identity provider; membership is written on each user (scim.ts's changeUser, each write
 * checked). Free of HTTP: server/routes/scim.ts translates.
 */
import * as z from "zod";
import type { Deps } from "./env.ts";
import { ARCHIVED, type Team } from "../store/org.ts";
import { bumpOrg } from "../store/org_version.ts";
import type { User } from "../store/users.ts";
import { hasLeft } from "./leavers.ts";
import { changeUser, GroupBody, Member, parse, parseFilter, PatchBody, ScimError } from "./scim.ts";

type ScimTeam = Team & { externalId?: string };

export async function teamsById(deps: Deps): Promise<Map<string, ScimTeam>> {
  return new Map((await deps.store.org.list<ScimTeam>("team")).map((t) => [t.oid, t]));
}

export async function membersOf(deps: Deps, teamOid: string): Promise<User[]> {
  return (await deps.store.users.all()).filter((u) => !hasLeft(u) && u.teams.includes(teamOid));
}

export async function listGroups(deps: Deps, filter?: string): Promise<ScimTeam[]> {
  const f = parseFilter(filter);
  const all = [...(await teamsById(deps)).values()];
  if (!f) return all;
  switch (f.attr) {
    case "displayname":
      return all.filter((t) => t.teamName.toLowerCase() === f.value.toLowerCase());
    case "externalid":
      return all.filter((t) => t.externalId === f.value);
    case "id":
      return all.filter((t) => t.oid === f.value);
    default:
      throw new ScimError(400, `unsupported filter attribute: ${f.attr}`, "invalidFilter");
  }
}

export async function getGroup(deps: Deps, id: string): Promise<ScimTeam> {
  const t = (await teamsById(deps)).get(id);
  if (!t) throw new ScimError(404, `Group ${id} not found`);
  return t;
}

async function putTeam(deps: Deps, t: ScimTeam, expectNew = false): Promise<void> {
  const op = bumpOrg(deps.store.kv.atomic());
  if (expectNew) op.check({ key: ["team", t.oid], versionstamp: null });
  if (!(await op.set(["team", t.oid], t).commit()).ok) {
    throw new ScimError(409, `Group ${t.oid} changed meanwhile: try again`);
  }
}

/** Sets whether each user is a member of the team (each user's write checked). */
async function setMembers(deps: Deps, teamOid: string, add: string[], remove: string[]) {
  for (const [ids, member] of [[add, true], [remove, false]] as const) {
    for (const id of ids) {
      await changeUser(deps, id, (u) => {
        const has = u.teams.includes(teamOid);
        if (member && !has && !hasLeft(u)) u.teams = [...u.teams, teamOid];
        if (!member && has) u.teams = u.teams.filter((t) => t !== teamOid);
        return { next: u };
      });
    }
  }
}

export async function createGroup(deps: Deps, body: unknown): Promise<ScimTeam> {
  const b = parse(GroupBody, body);
  if (
    (await listGroups(deps)).some((t) => t.teamName.toLowerCase() === b.displayName.toLowerCase())
  ) {
    throw new ScimError(409, `Group ${b.displayName} already exists`, "uniqueness");
  }
  const team: ScimTeam = {
    oid: crypto.randomUUID(),
    teamName: b.displayName,
    isVisible: true,
    ...(b.externalId ? { externalId: b.externalId } : {}),
  };
  await putTeam(deps, team, true);
  await setMembers(deps, team.oid, (b.members ?? []).map((m) => m.value), []);
  return team;
}

export async function replaceGroup(deps: Deps, id: string, body: unknown): Promise<ScimTeam> {
  const b = parse(GroupBody, body);
  const t = await getGroup(deps, id);
  const next = {
    ...t,
    teamName: b.displayName,
    ...(b.externalId ? { externalId: b.externalId } : {}),
  };
  await putTeam(deps, next);
  if (b.members) {
    const want = new Set(b.members.map((m) => m.value));
    const have = (await membersOf(deps, id)).map((u) => u.oid);
    await setMembers(
      deps,
      id,
      [...want].filter((x) => !have.includes(x)),
      have.filter((x) => !want.has(x)),
    );
  }
  return next;
}

/** The member ids of a PATCH value (`[{value}]`) or path (`members[value eq "id"]`). */
function memberIds(path: string | undefined, value: unknown): string[] {
  const m = path && /^members\[\s*value\s+eq\s+"([^"]+)"\s*\]$/i.exec(path);
  if (m) return [m[1]];
  if (value === undefined) return [];
  const r = z.array(Member).safeParse(value);
  if (!r.success) throw new ScimError(400, "members must be a list of {value}", "invalidValue");
  return r.data.map((x) => x.value);
}

/** PATCH /Groups/{id}: members added or removed, the name replaced (Okta's and Entra's forms). */
export async function patchGroup(deps: Deps, id: string, body: unknown): Promise<ScimTeam> {
  const p = parse(PatchBody, body);
  let t = await getGroup(deps, id);
  for (const o of p.Operations) {
    const path = o.path?.toLowerCase();
    if (path?.startsWith("members")) {
      const ids = memberIds(o.path, o.value);
      if (o.op === "add") await setMembers(deps, id, ids, []);
      else if (o.op === "remove") {
        await setMembers(
          deps,
          id,
          [],
          ids.length ? ids : (await membersOf(deps, id)).map((u) => u.oid),
        );
      } else {
        const have = (await membersOf(deps, id)).map((u) => u.oid);
        await setMembers(
          deps,
          id,
          ids.filter((x) => !have.includes(x)),
          have.filter((x) => !ids.includes(x)),
        );
      }
      continue;
    }
    const value = path === "displayname" ? { displayName: o.value } : o.value;
    if (o.op !== "remove" && value && typeof value === "object") {
      const name = (value as Record<string, unknown>).displayName;
      if (typeof name === "string" && name.trim()) {
        t = { ...t, teamName: name.trim() };
        await putTeam(deps, t);
      }
      const members = (value as Record<string, unknown>).members;
      if (members !== undefined) await setMembers(deps, id, memberIds(undefined, members), []);
    }
  }
  return t;
}

/**
 * DELETE /Groups/{id}: nobody is a member any more; the team is archived while an open approval
 * names it (read by key, no longer listed), else removed.
 */
export async function deleteGroup(deps: Deps, id: string): Promise<void> {
  const t = await getGroup(deps, id);
  await setMembers(deps, id, [], (await membersOf(deps, id)).map((u) => u.oid));
  const open = (await deps.store.approvals.openByTeams([id])).length > 0;
  const op = bumpOrg(deps.store.kv.atomic()).delete(["team", id]);
  if (open) op.set([ARCHIVED, "team", id], t);
  await op.commit();
}
