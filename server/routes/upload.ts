import { createHash } from "node:crypto";
import type { Hono } from "hono";
import {
  PREVIEW_SIZE,
  ReceiptRead,
  UPLOAD_PATH,
  UploadFields,
} from "../../client/shared/contract/documents.ts";
import type { AppEnv } from "../domain/env.ts";
import { badRequest, HttpError, issuesText } from "../errors.ts";
import { translate } from "../i18n.ts";
import { requireBearer } from "../middleware/auth.ts";
import { formFingerprint, inProgress, keyHeld, keyOf, once } from "../middleware/idempotency.ts";
import { docError, PREVIEW_MAX_BYTES } from "../domain/documents.ts";
import {
  type AttachPlan,
  type AttachTarget,
  finishAttach,
  formatSize,
  planAttach,
  uploadBodyLimit,
} from "../domain/uploads.ts";
import type { PendingBlob } from "../store/blobs.ts";
import {
  BodyError,
  boundaryOf,
  type FormPart,
  formParts,
  limitedBody,
  MultipartError,
  partBytes,
  partText,
} from "./multipart.ts";

/** A text field is at most this long (the form's are ids and flags). */
const MAX_FIELD = 64 * 1024;
/** The fields of spec §3's upload form: sent before the file, which is stored as it comes. */
const FORM_FIELDS = new Set(Object.keys(UploadFields.shape));
/** How many first bytes of the file are checked (type by magic bytes) before it is stored. */
const HEAD_BYTES = 64;

/**
 * spec §7 pwaauploaddocument: a multipart form (spec §3 Upload form fields, then `file` and an
 * optional `preview`) read as it arrives. The fields are checked, then the transaction and the
 * file's name and first bytes (planAttach), and the file goes to the blob store chunk by chunk
 * while it is received: the server holds a few chunks of an upload, never the whole body. The
 * preview (≤ 512 KB) is read whole. An Idempotency-Key is honoured here rather than in the
 * middleware, whose fingerprint needs the whole body: this one hashes the file on its way to
 * the store. A repeat of a request that ran under its key stores nothing and is answered from
 * the key. Any `x-bypass-*` header of the offline worker (spec §7) is accepted and ignored.
 */
export function uploadRoute(app: Hono<AppEnv>): void {
  app.post(UPLOAD_PATH, async (c) => {
    const { user } = await requireBearer(c);
    const deps = c.var.deps;
    const tr = await translate(user.locale);
    const maxFile = deps.config.UPLOAD_MAX_BYTES;
    const tooLarge = () => docError(413, tr, "doc.tooLarge", { max: formatSize(maxFile) });
    const declared = c.req.header("content-length");
    if (declared && Number(declared) > uploadBodyLimit(deps.config)) throw tooLarge();
    const key = keyOf(c);
    if (key instanceof Response) return key;
    const boundary = boundaryOf(c.req.header("content-type") ?? "");
    if (!boundary) throw badRequest("invalid_body", new MultipartError().message);
    const repeat = key ? await keyHeld(c, key) : false;
    const body = limitedBody(
      c.req.raw.body,
      uploadBodyLimit(deps.config),
      deps.config.UPLOAD_TIMEOUT_MS,
    );

    const fields: Record<string, string> = {};
    const files: [string, string, string][] = [];
    let plan: AttachPlan | null = null;
    let file: PendingBlob | null = null;
    let preview: Uint8Array | null = null;
    let committing = false;
    try {
      for await (const part of formParts(boundary, body)) {
        if (part.filename === undefined) {
          const text = await partText(part, MAX_FIELD);
          if (files.length && FORM_FIELDS.has(part.name)) {
            throw badRequest("invalid_body", `${part.name}: must come before the file`);
          }
          if (!(part.name in fields)) fields[part.name] = text;
          continue;
        }
        // The first part of a name counts; later ones are skipped.
        if (files.some(([name]) => name === part.name)) continue;
        if (part.name === "file") {
          const target = targetOf(fields);
          const head = await firstBytes(part, HEAD_BYTES);
          const name = part.filename || "document";
          if (!repeat) {
            plan = await planAttach(deps, user, target, { name, head: concat(head) });
          }
          const hash = createHash("sha256");
          let size = 0;
          const source = new ReadableStream<Uint8Array>({
            async pull(ctl) {
              const chunk = head.shift() ?? await part.read();
              if (!chunk) return ctl.close();
              size += chunk.length;
              if (size > maxFile) return ctl.error(tooLarge());
              hash.update(chunk);
              ctl.enqueue(chunk);
            },
          }, { highWaterMark: 0 });
          if (plan) file = await plan.blobs.write(source, deps.now());
          else for await (const _ of source) { /* hashed only: a repeat stores nothing */ }
          files.push(["file", part.filename, hash.digest("hex")]);
        } else if (part.name === "preview") {
          const tooBig = () => docError(413, tr, "doc.badPreview", { max: PREVIEW_SIZE });
          preview = await partBytes(part, PREVIEW_MAX_BYTES, tooBig);
          files.push(["preview", part.filename, sha256(preview)]);
        } else {
          files.push([part.name, part.filename, await hashOf(part)]);
        }
      }
      if (!files.some(([name]) => name === "file")) {
        targetOf(fields);
        throw docError(400, tr, "doc.noFile");
      }
      const finish = async () => {
        // A repeat whose first request was refused meanwhile (the key is free again): it has
        // no stored file, so it is sent again (the offline queue retries this answer).
        if (!plan || !file) return inProgress();
        committing = true;
        return c.json(await finishAttach(deps, user, plan, file, preview?.length ? preview : null));
      };
      if (!key) return await finish();
      const fp = await formFingerprint("POST", c.req.url, fields, files);
      return await once(c, key, fp, finish);
    } catch (err) {
      throw refusalOf(err, tooLarge);
    } finally {
      // Not committed (a refusal, a replay, a broken body): the stored file goes now.
      if (file && plan && !committing) await plan.blobs.purge(file).catch(() => {});
    }
  });
}

/** The upload form's fields, checked (400 naming what is wrong). */
function targetOf(fields: Record<string, string>): AttachTarget {
  const parsed = UploadFields.safeParse(fields);
  if (!parsed.success) {
    throw badRequest("invalid_body", issuesText(parsed.error));
  }
  const f = parsed.data;
  return {
    record: f.record,
    record2: f.record2 || undefined,
    record3: f.record3 || undefined,
    documentType: f.documenttype ?? "receipt",
    advanced: f.documentsecurity === "1" || f.documentsecurity === "true",
    read: f.read ? readOf(f.read) : null,
  };
}

/** The `read` field: what the phone read from the receipt, as JSON (400 when it is not that). */
function readOf(text: string): ReceiptRead {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest("invalid_body", "read: not JSON");
  }
  const parsed = ReceiptRead.safeParse(value);
  if (!parsed.success) {
    throw badRequest(
      "invalid_body",
      parsed.error.issues.map((i) => `read.${i.path.join(".")}: ${i.message}`).join("; "),
    );
  }
  return parsed.data;
}

/** The part's first chunks, at least `n` bytes of it (fewer only if it is shorter). */
async function firstBytes(part: FormPart, n: number): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  let size = 0;
  while (size < n) {
    const c = await part.read();
    if (!c) break;
    out.push(c);
    size += c.length;
  }
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), at += p.length);
  return out;
}

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

async function hashOf(part: FormPart): Promise<string> {
  const h = createHash("sha256");
  for (let c = await part.read(); c; c = await part.read()) h.update(c);
  return h.digest("hex");
}

/** A broken or oversized body as the answer it gets; any other error unchanged. */
function refusalOf(err: unknown, tooLarge: () => HttpError): unknown {
  if (err instanceof MultipartError) return badRequest("invalid_body", err.message);
  if (!(err instanceof BodyError)) return err;
  if (err.reason === "too_large") return tooLarge();
  if (err.reason === "timeout") {
    return new HttpError(408, "body_timeout", "The upload took too long");
  }
  return badRequest("body_unreadable", "The request body could not be read");
}
