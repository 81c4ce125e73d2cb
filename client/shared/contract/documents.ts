import * as z from "zod/mini";
import { endpoint } from "./endpoint.ts";
import { ArchiveParam } from "./requests.ts";

// Receipts and documents of card transactions (spec §2 Transaction detail,
// Receipts document panel and document panel, §3 Receipt, Receipt document, Document,
// Document list and delete responses, Upload form fields, §7 the calls below). Field names
// are spec §3's; shapes are ours. A receipt is a document of type 'receipt' on a
// transaction; any other type is a plain document. Files are served only to their owner.

const E = "/scmapi/expense";
const Oid = z.string().check(z.minLength(1), z.maxLength(64));

/** spec §9: receipt notes hold at most 200 characters. */
export const RECEIPT_NOTE_MAX = 200;
/** spec §9: previews are asked for at size 1024 (the long side, in pixels). */
export const PREVIEW_SIZE = 1024;
/** What `documenttype` says of an upload: a receipt of the transaction, or another document. */
export const DOCUMENT_TYPES = ["receipt", "document"] as const;

/**
 * What the phone read from a receipt and the person sent with it (docs/receipts.md): the fields
 * shown to them and not marked unsure, and what the phone said of it against the payment. Read
 * on the phone only; it travels once the person sends the receipt.
 */
export const ReceiptRead = z.object({
  total: z.nullable(z.number().check(z.gte(0), z.lte(1e9))),
  currency: z.nullable(z.string().check(z.regex(/^[A-Z]{3}$/))),
  date: z.nullable(z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/))),
  merchant: z.nullable(z.string().check(z.maxLength(100))),
  vat: z.array(
    z.object({
      rate: z.number().check(z.gte(0), z.lte(30)),
      amount: z.number().check(z.gte(0), z.lte(1e9)),
    }),
  ).check(z.maxLength(5)),
  match: z.enum(["match", "differs", "unknown"]),
});
export type ReceiptRead = z.infer<typeof ReceiptRead>;
/** The upload field carrying it (JSON): at most this long. */
export const READ_FIELD_MAX = 2000;

/** spec §3 Document (and what the panel needs to show it without another call). */
export const DocumentInfo = z.object({
  oid: z.string(),
  archive: z.boolean(),
  documentName: z.string(),
  documentDesc: z.string(),
  documentVersion: z.number(),
  /** 'receipt' or 'document'. */
  documentType: z.string(),
  /** Kept by the separate document service; deleted through it (spec §7 remote delete). */
  advancedSecurity: z.boolean(),
  /** spec §3: 1 = deletable by this user now. */
  canBeDeleted: z.union([z.literal(0), z.literal(1)]),
  /** Bytes. */
  size: z.number(),
  /** What its magic bytes say it is: image/jpeg, image/png or application/pdf. */
  mimeType: z.string(),
  /** ISO 8601 of the upload. */
  createdDate: z.string(),
  /** A preview image exists (pwapreview answers it). */
  hasPreview: z.boolean(),
});
export type DocumentInfo = z.infer<typeof DocumentInfo>;

/**
 * spec §3 Receipt (oid, note) with its Receipt document (url, previewUrl, type, name): what
 * the viewer needs. `type` is spec §3's 'application/pdf' or 'application/octet-stream';
 * mimeType says which image it is. URLs are under /bonita and need the bearer token.
 */
export const Receipt = z.object({
  oid: z.string(),
  note: z.string(),
  url: z.string(),
  previewUrl: z.nullable(z.string()),
  type: z.enum(["application/pdf", "application/octet-stream"]),
  mimeType: z.string(),
  name: z.string(),
  size: z.number(),
  createdDate: z.string(),
  canBeDeleted: z.union([z.literal(0), z.literal(1)]),
  /** What the phone read from it, as sent with it (none for most receipts). */
  read: z.optional(z.nullable(ReceiptRead)),
});
export type Receipt = z.infer<typeof Receipt>;

/** spec §3 Document list response: entity and documents. */
export const DocumentEntity = z.object({
  /** Where this entity's uploads go (pwaauploaddocument). */
  entityUrl: z.string(),
  archive: z.boolean(),
  /** The transaction; entity2oid its expense; entity3oid its card's request. */
  entity1oid: z.string(),
  entity2oid: z.nullable(z.string()),
  entity3oid: z.nullable(z.string()),
});

/** What a change of receipts or documents leaves on the transaction (spec §3 counters). */
export const Counts = z.object({ nbReceipts: z.number(), nbDocuments: z.number() });

/**
 * spec §3 Upload form fields, as strings of a multipart form (the file itself is `file`).
 * `record` is the transaction's oid; record2/record3 may name its expense and card request
 * (checked when sent); `documentsecurity` '1'/'true' keeps the file in the document
 * service. `preview`: an optional JPEG or PNG preview made on the device (≤ 1024 px).
 */
export const UploadFields = z.object({
  documenttype: z.optional(z.enum(DOCUMENT_TYPES)),
  documentsecurity: z.optional(z.enum(["0", "1", "true", "false"])),
  record: Oid,
  record2: z.optional(z.string().check(z.maxLength(64))),
  record3: z.optional(z.string().check(z.maxLength(64))),
  archive: ArchiveParam,
  /** A receipt's ReceiptRead, as JSON. */
  read: z.optional(z.string().check(z.maxLength(READ_FIELD_MAX))),
});
export type UploadFields = z.infer<typeof UploadFields>;

/** pwaauploaddocument: the document made, its receipt view when a receipt, and the counts. */
export const UploadResponse = z.extend(Counts, {
  document: DocumentInfo,
  receipt: z.nullable(Receipt),
});
export type UploadResponse = z.infer<typeof UploadResponse>;

/** spec §7 pwaauploaddocument (multipart; optional ?app; the offline worker's bypass header). */
export const UPLOAD_PATH = `${E}/pwaauploaddocument`;
/** spec §7 pwadocumentcontent?record&archive&app: the file itself. */
export const CONTENT_PATH = `${E}/pwadocumentcontent`;
/** spec §7 pwapreview?record&archive&size=1024: the preview image. */
export const PREVIEW_PATH = `${E}/pwapreview`;

export const documents = {
  /** spec §7 pwaexpensereceipts?oid&archive: a transaction's receipts with notes. */
  receipts: endpoint({
    method: "GET",
    path: `${E}/pwaexpensereceipts`,
    auth: "bearer",
    query: z.object({ oid: Oid, archive: ArchiveParam }),
    response: z.object({ receipts: z.array(Receipt) }),
  }),
  /** spec §7 pwasaveReceiptNote {expenseReceipt}: note ≤ 200 characters. */
  saveNote: endpoint({
    method: "POST",
    path: `${E}/pwasaveReceiptNote`,
    auth: "bearer",
    body: z.object({
      expenseReceipt: z.object({
        oid: Oid,
        note: z.string().check(z.maxLength(RECEIPT_NOTE_MAX)),
      }),
    }),
    response: z.object({ expenseReceipt: Receipt }),
  }),
  /**
   * What the phone read from a receipt already sent (a file chosen with Add receipt goes up
   * while it is read): sent when the person taps "Send with the receipt" on the reading, kept
   * with the receipt as an upload's `read` field is. Refused once the transaction is reviewed.
   * An addition to spec §7 (docs/receipts.md).
   */
  saveRead: endpoint({
    method: "POST",
    path: `${E}/pwasaveReceiptRead`,
    auth: "bearer",
    body: z.object({ expenseReceipt: z.object({ oid: Oid, read: ReceiptRead }) }),
    response: z.object({ expenseReceipt: Receipt }),
  }),
  /** spec §7 pwaexpensereceiptdocuments?record&archive&cacherecord: entity and documents. */
  list: endpoint({
    method: "GET",
    path: `${E}/pwaexpensereceiptdocuments`,
    auth: "bearer",
    query: z.object({
      record: Oid,
      archive: ArchiveParam,
      cacherecord: z.optional(z.string().check(z.maxLength(64))),
    }),
    response: z.object({ entity: DocumentEntity, documents: z.array(DocumentInfo) }),
  }),
  /** spec §7/§5 pwacheckupload?extension: 'OK', or the allowed extensions (comma separated). */
  checkUpload: endpoint({
    method: "GET",
    path: `${E}/pwacheckupload`,
    auth: "bearer",
    query: z.object({ extension: z.string().check(z.maxLength(32)) }),
    response: z.object({ extension: z.string(), allowed: z.array(z.string()) }),
  }),
  /**
   * spec §7 pwacheckdocumentcontent (a read, GET): before sending a file, its name and first
   * bytes (base64, ≤ 64 bytes) are checked like the upload will check them (magic bytes), so a
   * renamed executable is refused before 10 MB of mobile data are spent.
   */
  checkContent: endpoint({
    method: "GET",
    path: `${E}/pwacheckdocumentcontent`,
    auth: "bearer",
    query: z.object({
      name: z.string().check(z.minLength(1), z.maxLength(255)),
      head: z.string().check(z.maxLength(128)),
      /** Bytes, in decimal. */
      size: z.optional(z.string().check(z.regex(/^\d{1,12}$/))),
    }),
    response: z.object({
      result: z.union([z.literal(0), z.literal(1)]),
      mimeType: z.nullable(z.string()),
      message: z.nullable(z.string()),
    }),
  }),
  /** spec §7 pwacheckadddocumentcontent?record&archive: may documents be added there now? */
  checkAdd: endpoint({
    method: "GET",
    path: `${E}/pwacheckadddocumentcontent`,
    auth: "bearer",
    query: z.object({
      record: Oid,
      archive: ArchiveParam,
      documenttype: z.optional(z.enum(DOCUMENT_TYPES)),
    }),
    response: z.object({
      result: z.union([z.literal(0), z.literal(1)]),
      message: z.nullable(z.string()),
    }),
  }),
  /**
   * spec §7 pwadeletedocument?record&archive (a change by GET): deletes a local document
   * at once (canDeleteLocal true); an advanced-security one answers canDeleteLocal false
   * with the document service's remoteUrl and a short-lived remoteToken, and the client
   * sends DELETE {remoteUrl}/proxy?token (spec §7, §8), then reloads.
   */
  remove: endpoint({
    method: "GET",
    path: `${E}/pwadeletedocument`,
    auth: "bearer",
    query: z.object({ record: Oid, archive: ArchiveParam }),
    response: z.extend(Counts, {
      canDeleteLocal: z.boolean(),
      remoteUrl: z.nullable(z.string()),
      remoteToken: z.nullable(z.string()),
    }),
  }),
} as const;

/** The document service's answer to DELETE {remoteUrl}/proxy?token. */
export const RemoteDeleteResponse = z.extend(Counts, { deleted: z.boolean() });
