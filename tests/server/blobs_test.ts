/**
 * The blob store (engineering.md §5 KV limits): files in KV chunks under 64 KiB, written
 * pending, committed by the caller's atomic write, read as a stream, deleted to the last
 * chunk, and swept when an upload is abandoned or a deletion interrupted.
 */
import assert from "node:assert/strict";
import { openTestKv } from "../helpers.ts";
import { CHUNK_SIZE, KvBlobStore } from "../../server/store/blobs.ts";

const MIN = 60_000;

function random(n: number, seed = 1): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    out[i] = seed >>> 24;
  }
  return out;
}

async function keys(kv: Deno.Kv, prefix: Deno.KvKey): Promise<Deno.KvKey[]> {
  const out: Deno.KvKey[] = [];
  for await (const e of kv.list({ prefix })) out.push(e.key);
  return out;
}

async function readAll(
  s: ReadableStream<Uint8Array>,
): Promise<{ bytes: Uint8Array; parts: number }> {
  const parts: Uint8Array[] = [];
  for await (const p of s) parts.push(p);
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) (bytes.set(p, at), at += p.length);
  return { bytes, parts: parts.length };
}

function withKv(fn: (kv: Deno.Kv, blobs: KvBlobStore) => Promise<void>) {
  return async () => {
    const kv = await openTestKv();
    try {
      await fn(kv, new KvBlobStore(kv, ["blob"]));
    } finally {
      await kv.close();
    }
  };
}

Deno.test(
  "[blobs] bytes and streams are cut into chunks under 64 KiB and read back identical, chunk by chunk",
  withKv(async (kv, blobs) => {
    const data = random(2 * 1024 * 1024 + 777);
    const a = await blobs.write(data, 0);
    assert.equal(a.size, data.length);
    assert.equal(a.chunks, Math.ceil(data.length / CHUNK_SIZE));
    const chunkKeys = await keys(kv, [...blobs.chunkPrefix, a.id]);
    assert.equal(chunkKeys.length, a.chunks);
    for await (const e of kv.list<Uint8Array>({ prefix: [...blobs.chunkPrefix, a.id] })) {
      assert.ok(e.value.length <= CHUNK_SIZE && CHUNK_SIZE < 64 * 1024);
    }
    const r = await readAll(blobs.read(a));
    assert.equal(r.parts, a.chunks, "one chunk per pull: never the whole file at once");
    assert.deepEqual(r.bytes, data);

    // A stream in odd-sized parts gives the same blob.
    let at = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(ctl) {
        if (at >= data.length) return ctl.close();
        const n = 1 + (at % 70_001);
        ctl.enqueue(data.slice(at, at + n));
        at += n;
      },
    });
    const b = await blobs.write(stream, 0);
    assert.equal(b.chunks, a.chunks);
    assert.deepEqual((await readAll(blobs.read(b))).bytes, data);
    // An empty file is a blob of no chunks.
    const e = await blobs.write(new Uint8Array(), 0);
    assert.equal(e.chunks, 0);
    assert.equal((await readAll(blobs.read(e))).bytes.length, 0);
  }),
);

Deno.test(
  "[blobs] a pending blob is swept after its TTL, not before; a committed one never",
  withKv(async (kv, blobs) => {
    const t0 = 1_000_000;
    const kept = await blobs.write(random(200_000, 2), t0);
    const op = kv.atomic().set(["record"], { blob: kept.id });
    assert.ok((await blobs.commit(op, kept).commit()).ok);
    const lost = await blobs.write(random(300_000, 3), t0);
    assert.deepEqual(await blobs.sweep(t0 + 15 * MIN - 1, 15 * MIN), { pending: 0, doomed: 0 });
    assert.equal((await keys(kv, [...blobs.chunkPrefix, lost.id])).length, lost.chunks);
    assert.deepEqual(await blobs.sweep(t0 + 15 * MIN, 15 * MIN), { pending: 1, doomed: 0 });
    assert.equal((await keys(kv, [...blobs.chunkPrefix, lost.id])).length, 0);
    assert.equal((await keys(kv, [...blobs.prefix, "pending"])).length, 0);
    // The committed blob is untouched, and a commit of the swept one fails.
    assert.equal((await keys(kv, blobs.chunkPrefix)).length, kept.chunks);
    assert.equal((await blobs.commit(kv.atomic(), lost).commit()).ok, false);
  }),
);

Deno.test(
  "[blobs] doom + purge deletes every chunk; a deletion interrupted after doom is finished by the sweep",
  withKv(async (kv, blobs) => {
    const a = await blobs.write(random(500_000, 4), 0);
    const b = await blobs.write(random(130_000, 5), 0);
    await blobs.commit(blobs.commit(kv.atomic(), a), b).commit();
    assert.ok((await blobs.doom(kv.atomic(), a, 1).commit()).ok);
    await blobs.purge(a);
    assert.equal((await keys(kv, [...blobs.chunkPrefix, a.id])).length, 0);
    // b: the record's delete and doom committed, then the process died before purge.
    assert.ok((await blobs.doom(kv.atomic(), b, 1).commit()).ok);
    assert.equal((await keys(kv, [...blobs.chunkPrefix, b.id])).length, b.chunks);
    assert.deepEqual(await blobs.sweep(2, 15 * MIN), { pending: 0, doomed: 1 });
    assert.deepEqual(await keys(kv, ["blob"]), []);
  }),
);

Deno.test(
  "[blobs] a writer whose pending blob was swept meanwhile fails and leaves nothing",
  withKv(async (kv, blobs) => {
    let release!: () => void;
    const gate = new Promise<void>((r) => release = r);
    let sent = 0;
    const slow = new ReadableStream<Uint8Array>({
      async pull(ctl) {
        if (sent === 13) await gate; // after the first batch of 12 chunks is written
        if (sent === 20) return ctl.close();
        ctl.enqueue(random(CHUNK_SIZE, sent++));
      },
    });
    const writing = blobs.write(slow, 0);
    while ((await keys(kv, blobs.chunkPrefix)).length < 12) {
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.deepEqual(await blobs.sweep(16 * MIN, 15 * MIN), { pending: 1, doomed: 0 });
    release();
    await assert.rejects(writing, /swept/);
    assert.deepEqual(await keys(kv, ["blob"]), []);
  }),
);

Deno.test(
  "[blobs] two instances on one KV keep to their own prefixes",
  withKv(async (kv, blobs) => {
    const other = new KvBlobStore(kv, ["docsvc", "blob"]);
    const a = await blobs.write(random(100_000, 6), 0);
    const b = await other.write(random(100_000, 7), 0);
    assert.equal((await keys(kv, blobs.chunkPrefix)).length, a.chunks);
    assert.equal((await keys(kv, other.chunkPrefix)).length, b.chunks);
    assert.deepEqual(await other.sweep(16 * MIN, 15 * MIN), { pending: 1, doomed: 0 });
    assert.equal((await keys(kv, blobs.chunkPrefix)).length, a.chunks);
    assert.equal((await keys(kv, other.chunkPrefix)).length, 0);
  }),
);
