/**
 * SCIM 2.0 endpoints (RFC 7644) at /scim/v2: Users and Groups for identity providers, behind the
 * SCIM_TOKEN bearer (compared by hash, in constant time). Mounted only when SCIM_TOKEN is set and
 * the server is not a relay (app.ts); the work is server/domain/scim.ts's.
 */
import { type Context, Hono } from "hono";
import type { AppEnv } from "../domain/env.ts";
import { sha256 } from "../secrets.ts";
import {
  createUser,
  deleteUser,
  getUser,
  groupResource,
  listUsers,
  patchUser,
  replaceUser,
  SCHEMA,
  ScimError,
  userResource,
} from "../domain/scim.ts";
import {
  createGroup,
  deleteGroup,
  getGroup,
  listGroups,
  membersOf,
  patchGroup,
  replaceGroup,
  teamsById,
} from "../domain/scim_groups.ts";

const SCIM_JSON = "application/scim+json";

function scimJson(c: Context<AppEnv>, body: unknown, status: 200 | 201 = 200): Response {
  return c.newResponse(JSON.stringify(body), status, { "content-type": SCIM_JSON });
}

function scimError(err: ScimError): Response {
  return new Response(
    JSON.stringify({
      schemas: [SCHEMA.error],
      status: String(err.status),
      ...(err.scimType ? { scimType: err.scimType } : {}),
      detail: err.message,
    }),
    {
      status: err.status,
      headers: {
        "content-type": SCIM_JSON,
        ...(err.status === 401 ? { "www-authenticate": 'Bearer realm="scim"' } : {}),
      },
    },
  );
}

/** Equal strings in time that does not depend on where they differ. */
function sameBytes(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return d === 0;
}

/** A JSON body, or SCIM's 400 invalidSyntax. */
async function body(c: Context<AppEnv>): Promise<unknown> {
  try {
    return JSON.parse(await c.req.text());
  } catch {
    throw new ScimError(400, "the body is not JSON", "invalidSyntax");
  }
}

/** RFC 7644 §3.4.2.4: 1-based startIndex and count, clamped. */
function page<T>(c: Context<AppEnv>, all: T[]) {
  const start = Math.max(1, Number.parseInt(c.req.query("startIndex") ?? "1") || 1);
  const raw = Number.parseInt(c.req.query("count") ?? "100");
  const count = Math.min(200, Math.max(0, Number.isNaN(raw) ? 100 : raw));
  return { items: all.slice(start - 1, start - 1 + count), start };
}

export function scimRoutes(token: string): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const expected = sha256(token);
  app.onError((err) => {
    if (err instanceof ScimError) return scimError(err);
    throw err;
  });
  app.use("*", async (c, next) => {
    const m = /^Bearer (.+)$/i.exec(c.req.header("authorization") ?? "");
    if (!m || !sameBytes(await sha256(m[1].trim()), await expected)) {
      return scimError(new ScimError(401, "A valid SCIM bearer token is required"));
    }
    await next();
  });
  const base = (c: Context<AppEnv>) => `${new URL(c.req.url).origin}/scim/v2`;
  const user = async (c: Context<AppEnv>, u: Awaited<ReturnType<typeof getUser>>) =>
    userResource(u, await teamsById(c.var.deps), base(c));
  const group = async (c: Context<AppEnv>, t: Awaited<ReturnType<typeof getGroup>>) =>
    groupResource(t, await membersOf(c.var.deps, t.oid), base(c));
  const list = (c: Context<AppEnv>, total: number, start: number, resources: unknown[]) =>
    scimJson(c, {
      schemas: [SCHEMA.list],
      totalResults: total,
      startIndex: start,
      itemsPerPage: resources.length,
      Resources: resources,
    });

  app.get("/Users", async (c) => {
    const all = await listUsers(c.var.deps, c.req.query("filter"));
    const { items, start } = page(c, all);
    return list(c, all.length, start, await Promise.all(items.map((u) => user(c, u))));
  });
  app.get(
    "/Users/:id",
    async (c) => scimJson(c, await user(c, await getUser(c.var.deps, c.req.param("id")))),
  );
  app.post(
    "/Users",
    async (c) => scimJson(c, await user(c, await createUser(c.var.deps, await body(c))), 201),
  );
  app.put(
    "/Users/:id",
    async (c) =>
      scimJson(c, await user(c, await replaceUser(c.var.deps, c.req.param("id"), await body(c)))),
  );
  app.patch(
    "/Users/:id",
    async (c) =>
      scimJson(c, await user(c, await patchUser(c.var.deps, c.req.param("id"), await body(c)))),
  );
  app.delete("/Users/:id", async (c) => {
    await deleteUser(c.var.deps, c.req.param("id"));
    return c.body(null, 204);
  });

  app.get("/Groups", async (c) => {
    const all = await listGroups(c.var.deps, c.req.query("filter"));
    const { items, start } = page(c, all);
    const noMembers = /\bmembers\b/i.test(c.req.query("excludedAttributes") ?? "");
    const resources = await Promise.all(items.map(async (t) => {
      const g = await group(c, t);
      if (!noMembers) return g;
      const { members: _, ...rest } = g;
      return rest;
    }));
    return list(c, all.length, start, resources);
  });
  app.get(
    "/Groups/:id",
    async (c) => scimJson(c, await group(c, await getGroup(c.var.deps, c.req.param("id")))),
  );
  app.post(
    "/Groups",
    async (c) => scimJson(c, await group(c, await createGroup(c.var.deps, await body(c))), 201),
  );
  app.put(
    "/Groups/:id",
    async (c) =>
      scimJson(c, await group(c, await replaceGroup(c.var.deps, c.req.param("id"), await body(c)))),
  );
  app.patch(
    "/Groups/:id",
    async (c) =>
      scimJson(c, await group(c, await patchGroup(c.var.deps, c.req.param("id"), await body(c)))),
  );
  app.delete("/Groups/:id", async (c) => {
    await deleteGroup(c.var.deps, c.req.param("id"));
    return c.body(null, 204);
  });
  app.all("*", () => scimError(new ScimError(404, "No such SCIM resource")));
  return app;
}
