import { Hono } from "hono";
import type { AppEnv } from "../domain/env.ts";
import { notFound } from "../errors.ts";
import { deleteDocument } from "../domain/document_delete.ts";
import { docError } from "../domain/documents.ts";
import { pickLocale, translate } from "../i18n.ts";
import { redeemToken } from "../domain/document_tokens.ts";

/**
 * The document service (spec §7 remote document delete): advanced-security
 * documents are kept in its own blob store (store.secureBlobs, its own KV prefix) and
 * deleted only through it, with its own short-lived single-use token instead of the bearer:
 * DELETE /docservice/documents/<oid>/proxy?token=… answers RemoteDeleteResponse. Mounted
 * outside /bonita (app.ts), so a separate deployment can take it over by path.
 */
export function docServiceRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", async (c, next) => {
    await next();
    c.header("Cache-Control", "no-store");
  });
  app.delete("/documents/:oid/proxy", async (c) => {
    const deps = c.var.deps;
    const oid = c.req.param("oid");
    const token = c.req.query("token") ?? "";
    const tr = await translate(pickLocale(c.req.header("accept-language")));
    if (!(await redeemToken(deps.store.kv, token, oid, "delete", deps.now()))) {
      throw docError(403, tr, "doc.tokenExpired");
    }
    const ref = await deps.store.documents.ref(oid);
    if (!ref) throw notFound();
    const counts = await deleteDocument(deps, ref.userOid, oid, tr);
    return c.json({ deleted: true, ...counts });
  });
  return app;
}
