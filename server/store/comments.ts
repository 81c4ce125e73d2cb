import { noteChange, userChannel } from "./changes.ts";
/** A comment on a request (later also on approvals and transactions): spec §3. */
export interface CommentRecord {
  oid: string;
  /** The commented entity (spec: sourceEntityOid). */
  sourceOid: string;
  authorOid: string;
  fName: string;
  lName: string;
  text: string;
  createdAt: number;
  archive: boolean;
}

/** Comments under ["comment", sourceOid, oid], with an index from a comment's oid to its source. */
export class CommentRepo {
  constructor(private kv: Deno.Kv) {}

  async bySource(sourceOid: string): Promise<CommentRecord[]> {
    const out: CommentRecord[] = [];
    for await (const e of this.kv.list<CommentRecord>({ prefix: ["comment", sourceOid] })) {
      out.push(e.value);
    }
    return out.sort((a, b) => a.createdAt - b.createdAt || a.oid.localeCompare(b.oid));
  }

  async get(oid: string): Promise<Deno.KvEntryMaybe<CommentRecord> | null> {
    const src = await this.kv.get<string>(["comment_source", oid]);
    if (!src.value) return null;
    return await this.kv.get<CommentRecord>(["comment", src.value, oid]);
  }

  /**
   * `readers`: the channels that show the comment (changes.ts) besides its author's; an
   * approval's comments are its teams'.
   */
  put(op: Deno.AtomicOperation, c: CommentRecord, readers: string[] = []): Deno.AtomicOperation {
    noteChange(op, [userChannel(c.authorOid), ...readers], "comment", c.sourceOid);
    return op.set(["comment", c.sourceOid, c.oid], c).set(["comment_source", c.oid], c.sourceOid);
  }

  delete(op: Deno.AtomicOperation, c: CommentRecord): Deno.AtomicOperation {
    noteChange(op, [userChannel(c.authorOid)], "comment", c.sourceOid);
    return op.delete(["comment", c.sourceOid, c.oid]).delete(["comment_source", c.oid]);
  }
}
