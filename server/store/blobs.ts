/**
 * Files in Deno KV (engineering.md §5 KV limits: value ≤ 64 KiB, ≤ 1000 mutations and
 * ≤ 800 KiB per atomic operation). A blob is cut into CHUNK_SIZE chunks, written first in
 * batches while a *pending* marker names it, and becomes durable only when the caller's own
 * atomic operation (the one that writes the record naming it) runs `commit(op, blob)`, which
 * checks and deletes the marker. A failed or abandoned upload therefore leaves only a pending
 * blob, which `sweep` deletes once older than its TTL. Deleting is the mirror: the record's
 * delete and `doom(op, ref)` go in one operation, then `purge` removes the chunks; a crash in
 * between leaves a doomed marker that the sweep finishes.
 *
 * Keys under one prefix per instance (so the document service has its own, and a managed KV
 * can hold either):
 *   [...prefix, "c", id, i]        chunk i (Uint8Array ≤ CHUNK_SIZE)
 *   [...prefix, "pending", id]     {at, chunks}: written, not committed yet
 *   [...prefix, "doomed", id]      {at, chunks}: its record is gone, chunks to delete
 */

/** Bytes a chunk: under the 64 KiB value limit with room to spare. */
export const CHUNK_SIZE = 60_000;
/** Chunks an atomic write: 12 × 60,000 = 720,000 bytes, under the 800 KiB limit. */
const CHUNKS_PER_OP = 12;
/** Deletes an atomic operation (KV allows 1000 mutations). */
const DELETES_PER_OP = 500;

/** What a record keeps of its blob. */
export interface BlobRef {
  id: string;
  size: number;
  chunks: number;
}

/** A blob written but not committed: the marker's version is checked by commit(). */
export interface PendingBlob extends BlobRef {
  versionstamp: string;
}

interface Marker {
  at: number;
  chunks: number;
}

/** One batch of a pending blob: its marker moved from `versionstamp` (null: created), chunks. */
export interface BlobBatch {
  marker: { key: Deno.KvKey; versionstamp: string | null; value: unknown };
  chunks: [Deno.KvKey, Uint8Array][];
}

/**
 * A store that writes a pending blob's batch itself (the PostgreSQL store, pg_kv.ts): the same
 * effect as the checked atomic operation below — the marker moves on only from the version
 * given, and the chunks are written only if it did — without a serialisable read-check,
 * which independent uploads need not make against each other. Resolves with the marker's new
 * versionstamp, or null when it was not at `versionstamp` (swept; or, for null, taken).
 */
export interface BlobBatchWriter {
  writeBlobBatch(batch: BlobBatch): Promise<string | null>;
}

function batchWriterOf(kv: Deno.Kv): BlobBatchWriter | null {
  const w = kv as unknown as Partial<BlobBatchWriter>;
  return typeof w.writeBlobBatch === "function" ? w as BlobBatchWriter : null;
}

/** The small interface the domain sees (a managed or remote store can implement it). */
export interface BlobStore {
  readonly prefix: Deno.KvKey;
  /** Where the chunks are (tests count keys under it). */
  readonly chunkPrefix: Deno.KvKey;
  /** Writes a new blob's chunks; pending (invisible, swept after the TTL) until committed. */
  write(data: Uint8Array | ReadableStream<Uint8Array>, at: number): Promise<PendingBlob>;
  /** Adds to `op`: the pending marker must be unchanged, and is deleted (the blob is kept). */
  commit(op: Deno.AtomicOperation, blob: PendingBlob): Deno.AtomicOperation;
  /** The blob's bytes, read one chunk at a time as the consumer pulls. */
  read(ref: BlobRef): ReadableStream<Uint8Array>;
  /** Adds to `op`: marks the blob for deletion (in the op that drops its record). */
  doom(op: Deno.AtomicOperation, ref: BlobRef, at: number): Deno.AtomicOperation;
  /** Deletes a doomed or pending blob's chunks, then its marker. */
  purge(ref: BlobRef): Promise<void>;
  /** Deletes pending blobs older than `ttlMs` and every doomed one; what it removed. */
  sweep(now: number, ttlMs: number): Promise<{ pending: number; doomed: number }>;
}

/** The embedded blob store: chunks in Deno KV under `prefix`. */
export class KvBlobStore implements BlobStore {
  readonly chunkPrefix: Deno.KvKey;

  constructor(private kv: Deno.Kv, readonly prefix: Deno.KvKey) {
    this.chunkPrefix = [...prefix, "c"];
  }

  #marker(kind: "pending" | "doomed", id: string): Deno.KvKey {
    return [...this.prefix, kind, id];
  }

  #chunk(id: string, i: number): Deno.KvKey {
    return [...this.chunkPrefix, id, i];
  }

  /**
   * Moves the marker `key` from `versionstamp` to `value` and writes `chunks`, all or nothing;
   * the new versionstamp, or null when the marker was not at `versionstamp`.
   */
  async #batch(
    key: Deno.KvKey,
    versionstamp: string | null,
    value: Marker,
    chunks: [Deno.KvKey, Uint8Array][],
  ): Promise<string | null> {
    const writer = batchWriterOf(this.kv);
    if (writer) {
      return await writer.writeBlobBatch({ marker: { key, versionstamp, value }, chunks });
    }
    const op = this.kv.atomic().check({ key, versionstamp });
    for (const [k, c] of chunks) op.set(k, c);
    const r = await op.set(key, value).commit();
    return r.ok ? r.versionstamp : null;
  }

  async write(data: Uint8Array | ReadableStream<Uint8Array>, at: number): Promise<PendingBlob> {
    const id = crypto.randomUUID();
    const key = this.#marker("pending", id);
    // The marker first: whatever happens next, the sweep can find what was written.
    const first = await this.#batch(key, null, { at, chunks: 0 }, []);
    if (first === null) throw new Error("blob id collision");
    let versionstamp = first;
    let chunks = 0;
    let size = 0;
    let batch: Uint8Array[] = [];
    const flush = async () => {
      if (!batch.length) return;
      const entries = batch.map((c): [Deno.KvKey, Uint8Array] => [this.#chunk(id, chunks++), c]);
      // The marker counts the chunks written, so a purge knows every key without reading them;
      // its check stops a writer the sweep has given up on (no chunk outlives its marker).
      const r = await this.#batch(key, versionstamp, { at, chunks }, entries);
      if (r === null) throw new Error("pending blob was swept while being written");
      versionstamp = r;
      batch = [];
    };
    const push = async (c: Uint8Array) => {
      batch.push(c);
      size += c.length;
      if (batch.length === CHUNKS_PER_OP) await flush();
    };
    try {
      await this.#writeAll(data, push);
      await flush();
    } catch (err) {
      // The source failed (an upload broken off or too large) or the store did: what was
      // written goes now, as far as the store lets it (else the sweep finds the marker).
      await this.purge({ id, size, chunks }).catch(() => {});
      throw err;
    }
    return { id, size, chunks, versionstamp };
  }

  /** `data` to `push` in CHUNK_SIZE pieces (a stream's parts are gathered into them). */
  async #writeAll(
    data: Uint8Array | ReadableStream<Uint8Array>,
    push: (c: Uint8Array) => Promise<void>,
  ): Promise<void> {
    if (data instanceof Uint8Array) {
      for (let i = 0; i < data.length; i += CHUNK_SIZE) {
        await push(data.subarray(i, i + CHUNK_SIZE));
      }
    } else {
      let buf = new Uint8Array(CHUNK_SIZE);
      let fill = 0;
      for await (const part of data) {
        let at = 0;
        while (at < part.length) {
          const n = Math.min(CHUNK_SIZE - fill, part.length - at);
          buf.set(part.subarray(at, at + n), fill);
          fill += n;
          at += n;
          if (fill === CHUNK_SIZE) {
            await push(buf);
            buf = new Uint8Array(CHUNK_SIZE);
            fill = 0;
          }
        }
      }
      if (fill) await push(buf.subarray(0, fill));
    }
  }

  commit(op: Deno.AtomicOperation, blob: PendingBlob): Deno.AtomicOperation {
    const key = this.#marker("pending", blob.id);
    return op.check({ key, versionstamp: blob.versionstamp }).delete(key);
  }

  read(ref: BlobRef): ReadableStream<Uint8Array> {
    let i = 0;
    return new ReadableStream<Uint8Array>({
      pull: async (ctl) => {
        if (i >= ref.chunks) return ctl.close();
        const c = (await this.kv.get<Uint8Array>(this.#chunk(ref.id, i++))).value;
        if (!(c instanceof Uint8Array)) {
          ctl.error(new Error(`blob ${ref.id}: chunk ${i - 1} is missing`));
          return;
        }
        ctl.enqueue(c);
      },
    }, { highWaterMark: 1 });
  }

  doom(op: Deno.AtomicOperation, ref: BlobRef, at: number): Deno.AtomicOperation {
    return op.set(this.#marker("doomed", ref.id), { at, chunks: ref.chunks } satisfies Marker);
  }

  async purge(ref: BlobRef): Promise<void> {
    for (let i = 0; i < ref.chunks; i += DELETES_PER_OP) {
      const op = this.kv.atomic();
      for (let j = i; j < Math.min(ref.chunks, i + DELETES_PER_OP); j++) {
        op.delete(this.#chunk(ref.id, j));
      }
      await op.commit();
    }
    // Markers last: until they are gone, a crash here is finished by the next sweep.
    await this.kv.atomic().delete(this.#marker("doomed", ref.id))
      .delete(this.#marker("pending", ref.id)).commit();
  }

  async sweep(now: number, ttlMs: number): Promise<{ pending: number; doomed: number }> {
    let pending = 0;
    let doomed = 0;
    for await (const e of this.kv.list<Marker>({ prefix: [...this.prefix, "doomed"] })) {
      const id = e.key[e.key.length - 1] as string;
      await this.purge({ id, size: 0, chunks: e.value.chunks });
      doomed++;
    }
    for await (const e of this.kv.list<Marker>({ prefix: [...this.prefix, "pending"] })) {
      if (e.value.at > now - ttlMs) continue;
      // Drop the marker first (checked): a writer still at work fails its next batch, and
      // a commit racing us fails its check, so nothing is left that names these chunks.
      if (!(await this.kv.atomic().check(e).delete(e.key).commit()).ok) continue;
      const id = e.key[e.key.length - 1] as string;
      await this.purge({ id, size: 0, chunks: e.value.chunks });
      pending++;
    }
    return { pending, doomed };
  }
}
