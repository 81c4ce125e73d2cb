import { type Context, Hono } from "hono";
import * as z from "zod/mini";
import { CONTENT_PATH, documents, PREVIEW_PATH } from "../../client/shared/contract/documents.ts";
import { ArchiveParam } from "../../client/shared/contract/requests.ts";
import type { AppEnv } from "../domain/env.ts";
import { badRequest, HttpError, issuesText } from "../errors.ts";
import { requireBearer } from "../middleware/auth.ts";
import { removeDocument } from "../domain/document_delete.ts";
import {
  blobsOf,
  checkAdd,
  listDocuments,
  listReceipts,
  ownDocument,
  previewOf,
  saveNote,
  saveRead,
} from "../domain/documents.ts";
import { checkContent, checkUpload } from "../domain/uploads.ts";
import type { DocumentRecord } from "../store/documents.ts";
import type { BlobRef } from "../store/blobs.ts";
import { route } from "./define.ts";
import { uploadRoute } from "./upload.ts";

/**
 * Receipts and documents (embedded backend): the JSON calls of the contract
 * through route(), and the three file calls by hand (multipart upload, download, preview),
 * still bearer-checked and answering JSON errors through onError.
 */
export function documentRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  route(app, documents.receipts, async ({ c, query, auth }) => ({
    receipts: await listReceipts(c.var.deps, auth!.user, query.oid),
  }));
  route(app, documents.saveNote, async ({ c, body, auth }) => ({
    expenseReceipt: await saveNote(
      c.var.deps,
      auth!.user,
      body.expenseReceipt.oid,
      body.expenseReceipt.note,
    ),
  }));
  route(app, documents.saveRead, async ({ c, body, auth }) => ({
    expenseReceipt: await saveRead(
      c.var.deps,
      auth!.user,
      body.expenseReceipt.oid,
      body.expenseReceipt.read,
    ),
  }));
  route(
    app,
    documents.list,
    async ({ c, query, auth }) => await listDocuments(c.var.deps, auth!.user, query.record),
  );
  route(app, documents.checkUpload, ({ c, query }) => checkUpload(c.var.deps, query.extension));
  route(
    app,
    documents.checkContent,
    async ({ c, query, auth }) =>
      await checkContent(c.var.deps, auth!.user, {
        name: query.name,
        head: query.head,
        size: query.size === undefined ? undefined : Number(query.size),
      }),
  );
  route(
    app,
    documents.checkAdd,
    async ({ c, query, auth }) => await checkAdd(c.var.deps, auth!.user, query.record),
  );
  route(
    app,
    documents.remove,
    async ({ c, query, auth }) => await removeDocument(c.var.deps, auth!.user, query.record),
  );

  uploadRoute(app);

  const FileQuery = z.object({
    record: z.string().check(z.minLength(1), z.maxLength(64)),
    archive: ArchiveParam,
    app: z.optional(z.string().check(z.maxLength(64))),
    size: z.optional(z.string().check(z.regex(/^\d{1,5}$/))),
  });
  const fileQuery = (c: Context<AppEnv>) => {
    const q = FileQuery.safeParse(c.req.query());
    if (!q.success) throw badRequest("invalid_query", issuesText(q.error));
    return q.data;
  };

  // spec §7 pwadocumentcontent: the file itself, streamed chunk by chunk, to its owner only.
  app.get(CONTENT_PATH, async (c) => {
    const { user } = await requireBearer(c);
    const q = fileQuery(c);
    const { doc } = await ownDocument(c.var.deps, user.oid, q.record);
    const d = doc.value;
    return serveBlob(c, d, d.blob, d.mimeType, d.name, q.app !== undefined);
  });

  // spec §7 pwapreview: a bounded image only (≤ 1024 px, ≤ 512 KB) — the preview made on
  // the device, or a small image that is its own. A large image or a PDF without one has
  // none (404): the viewer offers the original on demand.
  app.get(PREVIEW_PATH, async (c) => {
    const { user } = await requireBearer(c);
    const q = fileQuery(c);
    const { doc } = await ownDocument(c.var.deps, user.oid, q.record);
    const d = doc.value;
    const pv = await previewOf(c.var.deps, d);
    if (!pv) throw new HttpError(404, "no_preview", "This document has no preview");
    return serveBlob(c, d, pv.ref, pv.mimeType, pv.own ? d.name : `preview-${d.name}`, true);
  });
  return app;
}

/**
 * A file answer: its type, length and a safe Content-Disposition (attachment unless
 * `inline`), nosniff and never cached by anyone else (the api sets no-store).
 */
function serveBlob(
  c: Context<AppEnv>,
  d: DocumentRecord,
  ref: BlobRef,
  type: string,
  name: string,
  inline: boolean,
): Response {
  const body = blobsOf(c.var.deps, d).read(ref);
  return new Response(body, {
    headers: {
      "content-type": type,
      "content-length": String(ref.size),
      "content-disposition": contentDisposition(inline ? "inline" : "attachment", name),
      "x-content-type-options": "nosniff",
      "cache-control": "private, no-store",
    },
  });
}

/**
 * RFC 6266: an ASCII fallback (quotes, backslashes, semicolons, control characters and
 * non-ASCII removed) and the exact name as RFC 8187 `filename*`.
 */
export function contentDisposition(kind: "inline" | "attachment", name: string): string {
  const ascii = name.normalize("NFKD").replace(/[^\x20-\x7e]/g, "").replace(/["\\;%]/g, "")
    .replace(/\s+/g, " ").trim() || "document";
  const exact = encodeURIComponent(name).replace(
    /['()*]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${exact}`;
}
