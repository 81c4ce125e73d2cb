/**
 * SCIM 2.0 provisioning (RFC 7643 resources, RFC 7644 operations) for identity providers (Okta,
 * Microsoft Entra ID): Users are the organisation's people, Groups its teams. A user
 * made inactive, or deleted, goes through the leaver path (leavers.ts); a new active user gets
 * their activation mail once. Free of HTTP: server/routes/scim.ts translates.
 */
import * as z from "zod";
import type { Deps } from "./env.ts";
import type { Team } from "../store/org.ts";
import type { User } from "../store/users.ts";
import { sendActivation } from "./activation.ts";
import { hasLeft, leaveUser } from "./leavers.ts";
import { hashSecret } from "../secrets.ts";

export const SCHEMA = {
  user: "urn:ietf:params:scim:schemas:core:2.0:User",
  group: "urn:ietf:params:scim:schemas:core:2.0:Group",
  list: "urn:ietf:params:scim:api:messages:2.0:ListResponse",
  patch: "urn:ietf:params:scim:api:messages:2.0:PatchOp",
  error: "urn:ietf:params:scim:api:messages:2.0:Error",
} as const;

/** RFC 7644 §3.12: an error answer, with its scimType where the RFC names one. */
export class ScimError extends Error {
  constructor(
    readonly status: 400 | 401 | 404 | 409 | 500,
    message: string,
    readonly scimType?:
      | "invalidSyntax"
      | "invalidValue"
      | "invalidFilter"
      | "uniqueness"
      | "noTarget"
      | "invalidPath",
  ) {
    super(message);
  }
}

/** Entra ID sends booleans as "True"/"False" in PATCH values (its documented quirk). */
const scimBool = z.union([
  z.boolean(),
  z.string().regex(/^(true|false)$/i).transform((s) => s.toLowerCase() === "true"),
]);

const UserBody = z.object({
  userName: z.string().trim().min(1).max(320),
  externalId: z.string().max(500).optional(),
  name: z.object({
    givenName: z.string().max(200).optional(),
    familyName: z.string().max(200).optional(),
    formatted: z.string().max(400).optional(),
  }).optional(),
  displayName: z.string().max(400).optional(),
  emails: z.array(z.object({
    value: z.string().max(320),
    primary: scimBool.optional(),
    type: z.string().optional(),
  })).optional(),
  active: scimBool.optional(),
  preferredLanguage: z.string().max(35).optional(),
  locale: z.string().max(35).optional(),
});
type UserBody = z.infer<typeof UserBody>;

export const Member = z.object({ value: z.string().min(1), display: z.string().optional() });
export const GroupBody = z.object({
  displayName: z.string().trim().min(1).max(200),
  externalId: z.string().max(500).optional(),
  members: z.array(Member).optional(),
});

export const PatchBody = z.object({
  schemas: z.array(z.string()).optional(),
  Operations: z.array(z.object({
    op: z.string().transform((s) => s.toLowerCase()).pipe(z.enum(["add", "remove", "replace"])),
    path: z.string().optional(),
    value: z.unknown().optional(),
  })).min(1),
});

export function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const r = schema.safeParse(body);
  if (!r.success) {
    const i = r.error.issues[0];
    throw new ScimError(400, `${i.path.join(".") || "body"}: ${i.message}`, "invalidSyntax");
  }
  return r.data;
}

const EMAIL = z.email();
const LOCALES = ["en", "fr", "de", "es"];

/** The address a SCIM user signs in with: the primary e-mail, else the userName. */
function emailOf(b: Pick<UserBody, "userName" | "emails">): string {
  const primary = b.emails?.find((e) => e.primary) ?? b.emails?.[0];
  for (const c of [primary?.value, b.userName]) {
    const v = c?.trim().toLowerCase();
    if (v && EMAIL.safeParse(v).success) return v;
  }
  throw new ScimError(
    400,
    "userName or a primary e-mail must be an e-mail address",
    "invalidValue",
  );
}

function namesOf(b: UserBody, email: string): { fname: string; lname: string } {
  const parts = (b.name?.formatted ?? b.displayName ?? "").trim().split(/\s+/).filter(Boolean);
  return {
    fname: b.name?.givenName?.trim() || parts[0] || email.split("@")[0],
    lname: b.name?.familyName?.trim() || parts.slice(1).join(" ") || "",
  };
}

// ---------------------------------------------------------------------------------------------
// Representations (RFC 7643 §4.1, §4.2)

export function userResource(u: User, teams: ReadonlyMap<string, Team>, base: string) {
  return {
    schemas: [SCHEMA.user],
    id: u.oid,
    ...(u.externalId ? { externalId: u.externalId } : {}),
    userName: u.email,
    name: { givenName: u.fname, familyName: u.lname, formatted: `${u.fname} ${u.lname}`.trim() },
    displayName: `${u.fname} ${u.lname}`.trim(),
    emails: [{ value: u.email, primary: true, type: "work" }],
    preferredLanguage: u.locale,
    active: !hasLeft(u),
    groups: u.teams.map((t) => ({
      value: t,
      display: teams.get(t)?.teamName ?? t,
      $ref: `${base}/Groups/${t}`,
    })),
    meta: { resourceType: "User", location: `${base}/Users/${u.oid}` },
  };
}

export function groupResource(t: Team & { externalId?: string }, members: User[], base: string) {
  return {
    schemas: [SCHEMA.group],
    id: t.oid,
    ...(t.externalId ? { externalId: t.externalId } : {}),
    displayName: t.teamName,
    members: members.map((u) => ({
      value: u.oid,
      display: `${u.fname} ${u.lname}`.trim(),
      $ref: `${base}/Users/${u.oid}`,
    })),
    meta: { resourceType: "Group", location: `${base}/Groups/${t.oid}` },
  };
}

/** RFC 7644 §3.4.2.2: the one filter form providers send, `attribute eq "value"`. */
export function parseFilter(filter: string | undefined): { attr: string; value: string } | null {
  if (!filter) return null;
  const m = /^\s*([A-Za-z][\w.]*)\s+eq\s+"((?:[^"\\]|\\.)*)"\s*$/i.exec(filter);
  if (!m) throw new ScimError(400, `unsupported filter: ${filter}`, "invalidFilter");
  return { attr: m[1].toLowerCase(), value: m[2].replace(/\\(.)/g, "$1") };
}

// ---------------------------------------------------------------------------------------------
// Users

export async function listUsers(deps: Deps, filter?: string): Promise<User[]> {
  const f = parseFilter(filter);
  const all = (await deps.store.users.all()).sort((a, b) => a.email.localeCompare(b.email));
  if (!f) return all;
  const v = f.value.toLowerCase();
  switch (f.attr) {
    case "username":
    case "emails.value":
    case "emails":
      return all.filter((u) => u.email === v);
    case "externalid":
      return all.filter((u) => u.externalId === f.value);
    case "id":
      return all.filter((u) => u.oid === f.value);
    default:
      throw new ScimError(400, `unsupported filter attribute: ${f.attr}`, "invalidFilter");
  }
}

export async function getUser(deps: Deps, id: string): Promise<User> {
  const u = await deps.store.users.get(id);
  if (!u) throw new ScimError(404, `User ${id} not found`);
  return u;
}

/** POST /Users: a joiner, with their activation mail (once) when active. */
export async function createUser(deps: Deps, body: unknown): Promise<User> {
  const b = parse(UserBody, body);
  const email = emailOf(b);
  const { store } = deps;
  const { kv } = store;
  const idx = await kv.get<string>(["user_by_email", email]);
  if (idx.value) throw new ScimError(409, `User ${email} already exists`, "uniqueness");
  const questions = await store.org.secretQuestions();
  if (!questions.length) throw new ScimError(500, "the organisation has no secret questions");
  const user: User = {
    oid: crypto.randomUUID(),
    email,
    ...namesOf(b, email),
    locale: localeOf(b) ?? (await store.org.meta())?.organisation.defaultLocale ?? "en",
    canRequest: true,
    isApprover: false,
    teams: [],
    // No answer is known: lost activation cannot be used until an operator's file sets one.
    secret: {
      questionOid: questions[0].oid,
      answer: await hashSecret(crypto.randomUUID(), deps.config.PIN_HASH_ITERATIONS),
    },
    ...(b.externalId ? { externalId: b.externalId } : {}),
    ...(b.active === false ? { leftAt: deps.now() } : {}),
  };
  const ok = await store.users.put(kv.atomic().check(idx), user).commit();
  if (!ok.ok) throw new ScimError(409, `User ${email} already exists`, "uniqueness");
  if (!hasLeft(user)) await sendActivation(deps, user);
  return user;
}

function localeOf(b: Partial<UserBody>): string | undefined {
  const l = (b.preferredLanguage ?? b.locale)?.slice(0, 2).toLowerCase();
  return l && LOCALES.includes(l) ? l : undefined;
}

/** Writes a user's new attributes (checked); `active` false → the leaver path, true → back. */
export async function changeUser(
  deps: Deps,
  id: string,
  change: (u: User) => { next: User; active?: boolean },
): Promise<User> {
  const { store } = deps;
  for (let i = 0; i < 8; i++) {
    const entry = await store.kv.get<User>(["user", id]);
    if (!entry.value) throw new ScimError(404, `User ${id} not found`);
    const cur = entry.value;
    const { next, active } = change(structuredClone(cur));
    const op = store.kv.atomic().check(entry);
    if (next.email !== cur.email) {
      const taken = await store.kv.get<string>(["user_by_email", next.email]);
      if (taken.value && taken.value !== id) {
        throw new ScimError(409, `User ${next.email} already exists`, "uniqueness");
      }
      op.check(taken).delete(["user_by_email", cur.email]);
    }
    const rejoin = active === true && hasLeft(cur);
    if (rejoin) delete next.leftAt;
    if (rejoin) next.canRequest = true;
    if (!(await store.users.put(op, next).commit()).ok) continue;
    if (active === false && !hasLeft(cur)) await leaveUser(deps, id);
    if (rejoin) await sendActivation(deps, next);
    return (await store.users.get(id))!;
  }
  throw new ScimError(409, `User ${id} changed meanwhile: try again`);
}

/** PUT /Users/{id}: the attributes QCard keeps, replaced. */
export async function replaceUser(deps: Deps, id: string, body: unknown): Promise<User> {
  const b = parse(UserBody, body);
  const email = emailOf(b);
  return await changeUser(deps, id, (u) => ({
    next: {
      ...u,
      email,
      ...namesOf(b, email),
      locale: localeOf(b) ?? u.locale,
      ...(b.externalId ? { externalId: b.externalId } : {}),
    },
    active: b.active,
  }));
}

/**
 * PATCH /Users/{id} (RFC 7644 §3.5.2), as Okta (`{op: "replace", value: {active: false}}`) and
 * Entra ID (`{op: "Replace", path: "active", value: "False"}`) send it. Attributes QCard does not
 * keep are ignored, as both providers expect.
 */
export async function patchUser(deps: Deps, id: string, body: unknown): Promise<User> {
  const p = parse(PatchBody, body);
  return await changeUser(deps, id, (u) => {
    let active: boolean | undefined;
    const set = (path: string, value: unknown) => {
      const key = path.toLowerCase();
      const str = () => {
        if (typeof value !== "string") {
          throw new ScimError(400, `${path} must be a string`, "invalidValue");
        }
        return value.trim();
      };
      if (key === "active") {
        const r = scimBool.safeParse(value);
        if (!r.success) throw new ScimError(400, "active must be a boolean", "invalidValue");
        active = r.data;
      } else if (key === "name.givenname") u.fname = str();
      else if (key === "name.familyname") u.lname = str();
      else if (key === "externalid") u.externalId = str();
      else if (key === "preferredlanguage") {
        u.locale = localeOf({ preferredLanguage: str() }) ?? u.locale;
      } else if (key === "username" || /^emails(\[.*\])?(\.value)?$/.test(key)) {
        const v = str().toLowerCase();
        if (EMAIL.safeParse(v).success) u.email = v;
      } else if (key === "name" && value && typeof value === "object") {
        for (const [k, v] of Object.entries(value)) set(`name.${k}`, v);
      }
    };
    for (const o of p.Operations) {
      if (o.op === "remove") continue; // nothing QCard keeps may be emptied
      if (o.path) set(o.path, o.value);
      else if (o.value && typeof o.value === "object" && !Array.isArray(o.value)) {
        for (const [k, v] of Object.entries(o.value)) set(k, v);
      } else {throw new ScimError(
          400,
          "an operation without path needs an object value",
          "invalidValue",
        );}
    }
    return { next: u, active };
  });
}

/** DELETE /Users/{id}: the leaver path; the record stays for history, shown inactive. */
export async function deleteUser(deps: Deps, id: string): Promise<void> {
  await getUser(deps, id);
  await leaveUser(deps, id);
}
