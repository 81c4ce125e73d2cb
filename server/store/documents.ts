import { noteChange, userChannel } from "./changes.ts";
import type { BlobRef } from "./blobs.ts";
import type { ReceiptRead } from "../../client/shared/contract/documents.ts";

/**
 * A receipt or document of a card transaction (spec §3 Document, Receipt). Kept
 * under the user and the issuer's authorization id, not the transaction's oid: a flip copies
 * the transaction to a new oid with the same authorization (and counts), so its documents
 * follow it without being rewritten.
 */
export interface DocumentRecord {
  v: 1;
  oid: string;
  userOid: string;
  authorizationId: string;
  /** The transaction it was attached to (the live one may be a flip's copy since). */
  transactionOid: string;
  documentType: "receipt" | "document";
  /** The file name the device gave (shown and offered on download). */
  name: string;
  /** What its magic bytes say: application/pdf, image/png or image/jpeg. */
  mimeType: string;
  size: number;
  blob: BlobRef;
  /** The device-made preview (JPEG or PNG, ≤ 1024 px), in the same blob store. */
  preview: (BlobRef & { mimeType: string }) | null;
  /** Kept by the document service (server/docservice/), its blob in that store. */
  advancedSecurity: boolean;
  /** spec §3 Receipt note (≤ 200 characters). */
  note: string;
  createdAt: number;
  updatedAt: number;
  archive: boolean;
  /** What the phone read from a receipt, as the person sent it (absent on older records). */
  read?: ReceiptRead | null;
}

/** Where a document is, by its oid (calls that name the document, not the transaction). */
export interface DocumentRef {
  userOid: string;
  authorizationId: string;
}

/**
 * Documents under ["document", user, authorizationId, oid] (a transaction's list is one
 * prefix scan, at most 20 entries) and ["document_ref", oid] → owner and transaction,
 * written and deleted in the same atomic operations.
 */
export class DocumentRepo {
  constructor(private kv: Deno.Kv) {}

  key(userOid: string, authorizationId: string, oid: string): Deno.KvKey {
    return ["document", userOid, authorizationId, oid];
  }

  async get(ref: DocumentRef, oid: string): Promise<Deno.KvEntryMaybe<DocumentRecord>> {
    return await this.kv.get<DocumentRecord>(this.key(ref.userOid, ref.authorizationId, oid));
  }

  async ref(oid: string): Promise<DocumentRef | null> {
    return (await this.kv.get<DocumentRef>(["document_ref", oid])).value;
  }

  /** A transaction's documents, oldest first. */
  async byTransaction(userOid: string, authorizationId: string): Promise<DocumentRecord[]> {
    const out: DocumentRecord[] = [];
    const it = this.kv.list<DocumentRecord>({ prefix: ["document", userOid, authorizationId] });
    for await (const e of it) out.push(e.value);
    return out.sort((a, b) => a.createdAt - b.createdAt || (a.oid < b.oid ? -1 : 1));
  }

  put(op: Deno.AtomicOperation, d: DocumentRecord): Deno.AtomicOperation {
    noteChange(op, [userChannel(d.userOid)], "receipt", d.transactionOid);
    return op.set(this.key(d.userOid, d.authorizationId, d.oid), d)
      .set(["document_ref", d.oid], { userOid: d.userOid, authorizationId: d.authorizationId });
  }

  remove(op: Deno.AtomicOperation, d: DocumentRecord): Deno.AtomicOperation {
    noteChange(op, [userChannel(d.userOid)], "receipt", d.transactionOid);
    return op.delete(this.key(d.userOid, d.authorizationId, d.oid)).delete(["document_ref", d.oid]);
  }
}
