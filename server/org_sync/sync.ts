import type { Deps } from "../domain/env.ts";
import { sendActivation } from "../domain/activation.ts";
import { hasLeft, type LeaveReport, leaveUser, planLeave } from "../domain/leavers.ts";
import { isClosed } from "../domain/request_flags.ts";
import { hashSecret, normaliseAnswer, verifySecret } from "../secrets.ts";
import type { ApprovalRecord } from "../store/approvals.ts";
import { listValues } from "../store/kv.ts";
import { ARCHIVED, META_KEY } from "../store/org.ts";
import { bumpOrg } from "../store/org_version.ts";
import type { RequestRecord } from "../store/requests.ts";
import type { User } from "../store/users.ts";
import type { Org, OrgUser } from "../org/schema.ts";

// The organisation file is the truth, applied as a difference. `diffOrg` compares the
// file with the store (read only: the dry run); `applyOrg` writes exactly that difference in
// checked writes and runs the leaver path for everyone who left. Applying the same file twice
// changes nothing the second time.

/** The reference collections of the file, each under its own prefix (store/org.ts). */
const COLLECTIONS = [
  { name: "teams", prefix: "team", items: (o: Org) => o.teams, key: (t: { oid: string }) => t.oid },
  { name: "accounts", prefix: "account", items: (o: Org) => o.accounts, key: byOid },
  { name: "request types", prefix: "rtype", items: (o: Org) => o.requestTypes, key: byOid },
  { name: "cost centers", prefix: "costcenter", items: (o: Org) => o.costCenters, key: byOid },
  { name: "GL codes", prefix: "ledger", items: (o: Org) => o.ledgers, key: byOid },
  { name: "project codes", prefix: "project", items: (o: Org) => o.projectCodes, key: byOid },
  {
    name: "currencies",
    prefix: "currency",
    items: (o: Org) => o.currencies,
    key: (c: { value: string }) => c.value,
  },
  {
    name: "countries",
    prefix: "country",
    items: (o: Org) => o.countries,
    key: (c: { id: string }) => c.id,
  },
  { name: "VAT codes", prefix: "vatcode", items: (o: Org) => o.vatCodes, key: byOid },
  {
    name: "receipt types",
    prefix: "receipttype",
    items: (o: Org) => o.receiptTypes,
    key: (c: { value: string }) => c.value,
  },
  {
    name: "accounting codes",
    prefix: "acccode",
    items: (o: Org) => o.accountingCodes,
    key: (c: { value: string }) => c.value,
  },
  { name: "secret questions", prefix: "secretq", items: (o: Org) => o.secretQuestions, key: byOid },
] as const;

function byOid(x: { oid: string }): string {
  return x.oid;
}

type Item = Record<string, unknown>;

export interface Removal {
  key: string;
  /** archived: still named by open requests (kept, shown on them, no longer offered). */
  fate: "archived" | "removed";
  /** The open requests (or approvals, for teams) that name it. */
  namedBy: string[];
  /** Already archived by an earlier import (then only a removal is news). */
  wasArchived: boolean;
}

export interface CollectionDiff {
  name: string;
  prefix: string;
  added: string[];
  changed: { key: string; fields: string[]; details: string[] }[];
  removed: Removal[];
}

export interface UserChange {
  email: string;
  fields: string[];
  details: string[];
}

export interface OrgDiff {
  organisation: string;
  metaChanged: boolean;
  users: { added: string[]; changed: UserChange[]; left: LeaveReport[] };
  collections: CollectionDiff[];
}

/** Top-level fields whose JSON differs (the `archived` wrapper and key order aside). */
function changedFields(before: Item, after: Item): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k])).sort();
}

/** A changed field as the operator reads it: `name: "old" → "new"` for short values. */
function detail(field: string, before: unknown, after: unknown): string {
  const show = (v: unknown) => {
    const j = JSON.stringify(v) ?? "none";
    return j.length <= 60 ? j : null;
  };
  const [b, a] = [show(before), show(after)];
  return b && a ? `${field} ${b} → ${a}` : field;
}

/** spec §4: a request still under way (not ended, its card not closed). */
const openRequest = (r: RequestRecord) =>
  (r.status === "new" || r.status === "requested" || r.status === "accepted") && !isClosed(r);

/** What names each reference record in open requests and approvals: prefix → key → names. */
async function references(deps: Deps): Promise<Map<string, Map<string, string[]>>> {
  const refs = new Map<string, Map<string, string[]>>();
  const add = (prefix: string, key: string | null, by: string) => {
    if (!key) return;
    const m = refs.get(prefix) ?? refs.set(prefix, new Map()).get(prefix)!;
    m.set(key, [...(m.get(key) ?? []), by]);
  };
  const { kv } = deps.store;
  for (const r of await listValues<RequestRecord>(kv, ["request"])) {
    if (!openRequest(r)) continue;
    add("rtype", r.typeOid, r.id);
    add("account", r.accountOid, r.id);
    add("costcenter", r.costCenterOid, r.id);
    add("ledger", r.GLOid, r.id);
    add("project", r.projectOid, r.id);
    add("currency", r.currency, r.id);
  }
  for (const a of await listValues<ApprovalRecord>(kv, ["approval"])) {
    if (a.statusCode !== "new") continue;
    for (const t of new Set(a.levels.flatMap((l) => l.teamOids))) add("team", t, a.id);
  }
  return refs;
}

/** The difference between the file and the store, read only (the dry run reads nothing else). */
export async function diffOrg(deps: Deps, org: Org): Promise<OrgDiff> {
  const { kv } = deps.store;
  const meta = (await kv.get(META_KEY)).value;
  const refs = await references(deps);
  const collections: CollectionDiff[] = [];
  for (const c of COLLECTIONS) {
    const file = new Map(
      (c.items(org) as Item[]).map((x) => [(c.key as (x: Item) => string)(x), x]),
    );
    const live = new Map(
      (await listValues<Item>(kv, [c.prefix])).map((x) => [(c.key as (x: Item) => string)(x), x]),
    );
    const archived = new Map(
      (await listValues<Item>(kv, [ARCHIVED, c.prefix])).map((
        x,
      ) => [(c.key as (x: Item) => string)(x), x]),
    );
    const d: CollectionDiff = {
      name: c.name,
      prefix: c.prefix,
      added: [],
      changed: [],
      removed: [],
    };
    for (const [key, item] of file) {
      const before = live.get(key);
      if (!before) d.added.push(key);
      else {
        const fields = changedFields(before, item);
        const details = fields.map((f) => detail(f, before[f], item[f]));
        if (fields.length) d.changed.push({ key, fields, details });
      }
    }
    for (
      const [key, wasArchived] of [
        ...[...live.keys()].map((k) => [k, false] as const),
        ...[...archived.keys()].filter((k) => !live.has(k)).map((k) => [k, true] as const),
      ]
    ) {
      if (file.has(key)) continue;
      const namedBy = refs.get(c.prefix)?.get(key) ?? [];
      const fate = namedBy.length ? "archived" : "removed";
      if (wasArchived && fate === "archived") continue; // nothing new
      d.removed.push({ key, fate, namedBy, wasArchived });
    }
    collections.push(d);
  }

  const users = await deps.store.users.all();
  const inFile = new Map(org.users.map((u) => [u.email, u]));
  const added: string[] = [];
  const changed: UserChange[] = [];
  for (const u of org.users) {
    const cur = users.find((x) => x.email === u.email);
    if (!cur || hasLeft(cur)) added.push(u.email);
    else {
      const fields = await userChanges(cur, u);
      const details = fields.map((f) =>
        f === "secret"
          ? "secret question or answer"
          : detail(f, cur[f as keyof User], u[f as keyof OrgUser])
      );
      if (fields.length) changed.push({ email: u.email, fields, details });
    }
  }
  const leaving = users.filter((u) => !hasLeft(u) && !inFile.has(u.email));
  const set = new Set(leaving.map((u) => u.oid));
  const left: LeaveReport[] = [];
  for (const u of leaving) left.push(await planLeave(deps, u, set));
  return {
    organisation: org.organisation.name,
    metaChanged: JSON.stringify(meta) !==
      JSON.stringify({ organisation: org.organisation, settings: org.settings }),
    users: { added, changed, left },
    collections,
  };
}

async function userChanges(cur: User, u: OrgUser): Promise<string[]> {
  const fields = (["fname", "lname", "locale", "canRequest", "isApprover"] as const)
    .filter((k) => cur[k] !== u[k]) as string[];
  if (JSON.stringify([...cur.teams].sort()) !== JSON.stringify([...u.teams].sort())) {
    fields.push("teams");
  }
  if (
    cur.secret.questionOid !== u.secret.questionOid ||
    !(await verifySecret(normaliseAnswer(u.secret.answer), cur.secret.answer))
  ) fields.push("secret");
  return fields;
}

/** KV's mutation bound per atomic operation, with room for the org version bump. */
const CHUNK = 200;

/**
 * Applies the file as a difference (what diffOrg reports, read again here so nothing is applied
 * from a stale plan): reference records added, changed, archived or removed; users added (their
 * activation mail queued once, in the write that adds them), changed (same oid and devices) and
 * left (the leaver path). Returns the difference it applied.
 */
export async function applyOrg(deps: Deps, org: Org): Promise<OrgDiff> {
  const diff = await diffOrg(deps, org);
  const { kv } = deps.store;
  const writes: ((op: Deno.AtomicOperation) => void)[] = [];
  if (diff.metaChanged) {
    writes.push((op) =>
      op.set(META_KEY, { organisation: org.organisation, settings: org.settings })
    );
  }
  for (const c of COLLECTIONS) {
    const d = diff.collections.find((x) => x.prefix === c.prefix)!;
    const key = c.key as (x: Item) => string;
    const touched = new Set([...d.added, ...d.changed.map((x) => x.key)]);
    for (const item of c.items(org) as Item[]) {
      const k = key(item);
      if (!touched.has(k)) continue;
      writes.push((op) => op.set([c.prefix, k], item).delete([ARCHIVED, c.prefix, k]));
    }
    for (const r of d.removed) {
      const live = (await kv.get<Item>([c.prefix, r.key])).value;
      writes.push((op) => {
        op.delete([c.prefix, r.key]);
        if (r.fate === "removed") op.delete([ARCHIVED, c.prefix, r.key]);
        else if (live) op.set([ARCHIVED, c.prefix, r.key], live);
      });
    }
  }
  for (let i = 0; i < writes.length; i += CHUNK) {
    const op = bumpOrg(kv.atomic());
    for (const w of writes.slice(i, i + CHUNK)) w(op);
    if (!(await op.commit()).ok) throw new Error("organisation import: a write failed");
  }

  const iterations = deps.config.PIN_HASH_ITERATIONS;
  const changed = new Set(diff.users.changed.map((c) => c.email));
  const added = new Set(diff.users.added);
  for (const u of org.users) {
    if (!changed.has(u.email) && !added.has(u.email)) continue;
    const entry = await kv.get<string>(["user_by_email", u.email]);
    const existing = entry.value ? await deps.store.users.get(entry.value) : null;
    const keep = existing && !added.has(u.email) &&
      existing.secret.questionOid === u.secret.questionOid &&
      await verifySecret(normaliseAnswer(u.secret.answer), existing.secret.answer);
    const user: User = {
      oid: existing?.oid ?? crypto.randomUUID(),
      email: u.email,
      fname: u.fname,
      lname: u.lname,
      locale: u.locale,
      canRequest: u.canRequest,
      isApprover: u.isApprover,
      teams: u.teams,
      secret: {
        questionOid: u.secret.questionOid,
        answer: keep
          ? existing.secret.answer
          : await hashSecret(normaliseAnswer(u.secret.answer), iterations),
      },
    };
    const op = kv.atomic().check(entry);
    if (existing) op.check(await kv.get(["user", existing.oid]));
    const ok = (await deps.store.users.put(op, user).commit()).ok;
    if (!ok) throw new Error(`organisation import: ${u.email} changed meanwhile, run it again`);
    // Joiners (and people who come back) get their activation mail, once: a second run finds
    // them present and unchanged.
    if (added.has(u.email)) await sendActivation(deps, user);
  }
  const leaving = new Set(diff.users.left.map((l) => l.userOid));
  const done: LeaveReport[] = [];
  for (const l of diff.users.left) {
    done.push((await leaveUser(deps, l.userOid, leaving, () => {})) ?? l);
  }
  diff.users.left = done;
  return diff;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The operator's summary (the CLI prints it for --dry-run and after applying). */
export function formatDiff(diff: OrgDiff, applied: boolean): string {
  const out: string[] = [
    `${diff.organisation}: ${applied ? "applied" : "dry run, nothing written"}`,
  ];
  if (diff.metaChanged) out.push("", "Organisation settings: changed");
  const u = diff.users;
  out.push("", "Users");
  for (const e of u.added) out.push(`  + added    ${e} (activation e-mail queued)`);
  for (const c of u.changed) out.push(`  ~ changed  ${c.email}: ${c.details.join(", ")}`);
  for (const l of u.left) {
    out.push(
      `  - left     ${l.email}: ${plural(l.devices, "device")} unregistered, ` +
        `${plural(l.cards.length, "card")} stopped at the issuer, ` +
        `${plural(l.cancelled.length, "request")} not yet approved cancelled, ` +
        `${plural(l.rerouted.length, "approval")} left to the rest of their teams`,
    );
    for (const s of l.stranded) {
      out.push(
        `      ! approval ${s.approvalOid}, level ${s.level}: nobody left to decide it ` +
          `(needs ${s.needed}, ${s.remaining} left): give the level's team an approver`,
      );
    }
  }
  if (!u.added.length && !u.changed.length && !u.left.length) out.push("  no change");
  for (const c of diff.collections) {
    if (!c.added.length && !c.changed.length && !c.removed.length) continue;
    out.push("", c.name[0].toUpperCase() + c.name.slice(1));
    for (const k of c.added) out.push(`  + added    ${k}`);
    for (const x of c.changed) out.push(`  ~ changed  ${x.key}: ${x.details.join(", ")}`);
    for (const r of c.removed) {
      out.push(
        r.fate === "archived"
          ? `  - archived ${r.key}: named by open ${
            r.namedBy.join(", ")
          }; kept on them, no longer offered`
          : `  - removed  ${r.key}${r.wasArchived ? " (was archived)" : ""}: named by nothing open`,
      );
    }
  }
  const n = diff.collections.reduce(
    (s, c) => ({
      added: s.added + c.added.length,
      changed: s.changed + c.changed.length,
      removed: s.removed + c.removed.length,
    }),
    { added: 0, changed: 0, removed: 0 },
  );
  out.push(
    "",
    `Summary: users ${u.added.length} added, ${u.changed.length} changed, ${u.left.length} left; ` +
      `reference data ${n.added} added, ${n.changed} changed, ${n.removed} removed or archived`,
  );
  return out.join("\n");
}

/** Whether applying would change nothing (a second run of the same file). */
export function isEmpty(diff: OrgDiff): boolean {
  return !diff.metaChanged && !diff.users.added.length && !diff.users.changed.length &&
    !diff.users.left.length &&
    diff.collections.every((c) => !c.added.length && !c.changed.length && !c.removed.length);
}
