import type { Context, Hono } from "hono";
import type { BodyOf, Endpoint, QueryOf, ResponseOf } from "../../client/shared/contract/mod.ts";
import { badRequest, issuesText, unauthorized } from "../errors.ts";
import { authenticate, requireBearer, requireDeviceId } from "../middleware/auth.ts";
import type { AppEnv, AuthContext } from "../domain/env.ts";
import { answerJson } from "../json.ts";

export interface Call<E> {
  c: Context<AppEnv>;
  query: QueryOf<E>;
  body: BodyOf<E>;
  /** Set for bearer calls (and bearer-or-device calls that sent a valid token). */
  auth: AuthContext | null;
  /** Set for device calls. */
  deviceId: string | null;
}

/** A request's JSON body ({} when empty), or 400 malformed_json. */
export async function readJson(c: Context<AppEnv>): Promise<unknown> {
  const text = await c.req.text();
  if (!text) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest("malformed_json", "The request body is not valid JSON");
  }
}

/**
 * Registers one contract endpoint: checks its auth, validates query and body with the
 * contract's schemas (400 with every problem named), runs the handler and answers JSON.
 * Responses are checked against the contract outside production, so drift shows in tests.
 */
export function route<E extends Endpoint>(
  app: Hono<AppEnv>,
  ep: E,
  handler: (call: Call<E>) => Promise<ResponseOf<E>> | ResponseOf<E>,
): void {
  const register = ep.method === "GET" ? app.get.bind(app) : app.post.bind(app);
  register(ep.path, async (c) => {
    let auth: AuthContext | null = null;
    let deviceId: string | null = null;
    if (ep.auth === "bearer") auth = await requireBearer(c);
    else if (ep.auth === "device") deviceId = requireDeviceId(c);
    else if (ep.auth === "bearer-or-device") {
      auth = await authenticate(c);
      if (!auth && !c.req.header("device-id")) throw unauthorized();
      if (!auth) deviceId = requireDeviceId(c);
    }
    let query: unknown = {};
    if (ep.query) {
      const r = ep.query.safeParse(c.req.query());
      if (!r.success) throw badRequest("invalid_query", issuesText(r.error));
      query = r.data;
    }
    let body: unknown = undefined;
    if (ep.body) {
      const r = ep.body.safeParse(await readJson(c));
      if (!r.success) throw badRequest("invalid_body", issuesText(r.error));
      body = r.data;
    }
    const out = await handler({
      c,
      query: query as QueryOf<E>,
      body: body as BodyOf<E>,
      auth,
      deviceId,
    });
    const { config } = c.var.deps;
    if (config.CHECK_RESPONSES ?? config.APP_ENV !== "production") {
      const r = ep.response.safeParse(out);
      if (!r.success) {
        throw new Error(`response of ${ep.path} breaks the contract: ${issuesText(r.error)}`);
      }
    }
    // Kept texts of unchanged lists are spliced in (json.ts); the same text as c.json's. Its
    // length declared: the compression middleware passes a small answer on without reading it.
    const bytes = answerJson(out);
    return c.body(bytes, 200, {
      "Content-Type": "application/json",
      "Content-Length": String(bytes.length),
    });
  });
}
