import { type Context, Hono } from "hono";
import * as z from "zod/mini";
import {
  CONTENT_PATH,
  documents,
  PREVIEW_PATH,
  UPLOAD_PATH,
  UploadFields,
} from "../../client/shared/contract/documents.ts";
import { ArchiveParam } from "../../client/shared/contract/requests.ts";
import type { AppEnv } from "../env.ts";
import { readLimited } from "../middleware/body.ts";
import { badRequest, HttpError } from "../errors.ts";
import { translate } from "../i18n.ts";
import { requireBearer } from "../middleware/auth.ts";
import { removeDocument } from "../domain/document_delete.ts";
import {
  blobsOf,
  checkAdd,
  docError,
  listDocuments,
  listReceipts,
  ownDocument,
  previewOf,
  saveNote,
} from "../domain/documents.ts";
import {
  attachDocument,
  checkContent,
  checkUpload,
  formatSize,
  uploadBodyLimit,
} from "../domain/uploads.ts";
import type { DocumentRecord } from "../store/documents.ts";
import type { BlobRef } from "../store/blobs.ts";
import { route } from "./define.ts";

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

  app.post(UPLOAD_PATH, async (c) => {
    const { user } = await requireBearer(c);
    const deps = c.var.deps;
    const tr = await translate(user.locale);
    // Any `x-bypass-*` header of the offline worker (spec §7) is accepted and ignored.
    const max = uploadBodyLimit(deps.config);
    const tooLarge = () =>
      docError(413, tr, "doc.tooLarge", { max: formatSize(deps.config.UPLOAD_MAX_BYTES) });
    const declared = c.req.header("content-length");
    if (declared && Number(declared) > max) throw tooLarge();
    const bytes = await readBody(c, max, deps.config.UPLOAD_TIMEOUT_MS, tooLarge);
    const form = parseMultipart(c.req.header("content-type") ?? "", bytes);
    if (!form) throw badRequest("invalid_body", "The body is not a multipart form");
    const parsed = UploadFields.safeParse(form.fields);
    if (!parsed.success) {
      throw badRequest("invalid_body", parsed.error.issues.map(describeIssue).join("; "));
    }
    const file = form.files.get("file");
    if (!file) throw docError(400, tr, "doc.noFile");
    const preview = form.files.get("preview");
    const f = parsed.data;
    const out = await attachDocument(deps, user, {
      record: f.record,
      record2: f.record2 || undefined,
      record3: f.record3 || undefined,
      documentType: f.documenttype ?? "receipt",
      advanced: f.documentsecurity === "1" || f.documentsecurity === "true",
      name: file.name || "document",
      data: file.data,
      preview: preview?.data.length ? preview.data : null,
    });
    return c.json(out);
  });

  const FileQuery = z.object({
    record: z.string().check(z.minLength(1), z.maxLength(64)),
    archive: ArchiveParam,
    app: z.optional(z.string().check(z.maxLength(64))),
    size: z.optional(z.string().check(z.regex(/^\d{1,5}$/))),
  });
  const fileQuery = (c: Context<AppEnv>) => {
    const q = FileQuery.safeParse(c.req.query());
    if (!q.success) throw badRequest("invalid_query", q.error.issues.map(describeIssue).join("; "));
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

function describeIssue(i: z.core.$ZodIssue): string {
  return `${i.path.length ? `${i.path.join(".")}: ` : ""}${i.message}`;
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

/** The upload's body, at most `max` bytes (else `tooLarge()`), within `timeoutMs` (else 408). */
async function readBody(
  c: Context<AppEnv>,
  max: number,
  timeoutMs: number,
  tooLarge: () => HttpError,
): Promise<Uint8Array<ArrayBuffer>> {
  const stream = c.req.raw.body;
  if (!stream) return new Uint8Array();
  const read = await readLimited(stream, max, timeoutMs);
  if (read.ok) return read.body;
  if (read.reason === "too_large") throw tooLarge();
  if (read.reason === "timeout") {
    throw new HttpError(408, "body_timeout", "The upload took too long");
  }
  throw badRequest("body_unreadable", "The request body could not be read");
}

const enc = new TextEncoder();

/** Where `needle` starts in `hay` at or after `from`, or -1. */
function indexOf(hay: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0];
  for (let i = hay.indexOf(first, from); i >= 0; i = hay.indexOf(first, i + 1)) {
    if (i + needle.length > hay.length) return -1;
    let j = 1;
    while (j < needle.length && hay[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

/**
 * multipart/form-data (RFC 7578) of a body already in memory: text fields, and files as views
 * on the body (no copy). Ours because Deno's Request.formData() takes ~100 ms for 10 MB (this
 * takes a few) and cuts a filename at ';'. Names are decoded as browsers encode them (UTF-8,
 * '"', CR and LF as %22, %0D, %0A). Null when the body is not such a form.
 */
export function parseMultipart(contentType: string, body: Uint8Array) {
  const m = /^multipart\/form-data\s*;.*\bboundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(
    contentType,
  );
  if (!m) return null;
  const boundary = m[1] ?? m[2];
  const delim = enc.encode(`\r\n--${boundary}`);
  const utf8 = new TextDecoder();
  const fields: Record<string, string> = {};
  const files = new Map<string, { name: string; data: Uint8Array }>();
  const start = indexOf(body, delim.subarray(2), 0);
  if (start < 0) return null;
  let at = start + delim.length - 2;
  for (;;) {
    if (body[at] === 0x2d && body[at + 1] === 0x2d) return { fields, files }; // "--": the end
    if (body[at] !== 0x0d || body[at + 1] !== 0x0a) return null;
    const headEnd = indexOf(body, enc.encode("\r\n\r\n"), at + 2);
    if (headEnd < 0) return null;
    const head = utf8.decode(body.subarray(at + 2, headEnd));
    const next = indexOf(body, delim, headEnd + 4);
    if (next < 0) return null;
    const data = body.subarray(headEnd + 4, next);
    const disposition = /^content-disposition:\s*form-data(.*)$/im.exec(head)?.[1] ?? "";
    const param = (key: string) => {
      const v = new RegExp(`;\\s*${key}="([^"]*)"`, "i").exec(disposition)?.[1];
      return v?.replace(/%22/g, '"').replace(/%0D/gi, "\r").replace(/%0A/gi, "\n");
    };
    const name = param("name");
    const filename = param("filename");
    if (name !== undefined && filename !== undefined) {
      if (!files.has(name)) files.set(name, { name: filename, data });
    } else if (name !== undefined && !(name in fields)) {
      fields[name] = utf8.decode(data);
    }
    at = next + delim.length;
  }
}
