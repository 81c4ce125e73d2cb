/**
 * The offline write queue (spec §1 offline): its storage on QCDB (under fake-indexeddb,
 * engineering.md §5), encrypted, ordered, files kept apart; and the replay's state machine and
 * backoff.
 */
import "fake-indexeddb/auto";
import assert from "node:assert/strict";
import { ApiError, NetworkError } from "../../client/api/http.ts";
import { closeQCDB, getCached, putCached, wipeQCDB } from "../../client/db/qcdb.ts";
import {
  addQueued,
  listQueued,
  type NewWrite,
  type QueuedWrite,
  readQueuedFiles,
  removeQueued,
  seqKey,
  updateQueued,
} from "../../client/offline/queue.ts";
import { backoffMs, drain, type DrainHooks, outcomeOf } from "../../client/actions/replay.ts";
import { encryptJson } from "../../client/crypto/device_key.ts";

const aesKey = () =>
  crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, ["encrypt", "decrypt"]);

const comment = (text: string, target = "tx1"): NewWrite => ({
  key: crypto.randomUUID(),
  kind: "comment",
  target,
  label: text,
  call: { ep: "transaction.addComment", body: { oid: target, comment: text } },
});

async function fresh(): Promise<void> {
  await wipeQCDB();
  await closeQCDB();
}

Deno.test("[outq] writes are stored encrypted under outq:<seq>, listed oldest first", async () => {
  await fresh();
  const key = await aesKey();
  const a = await addQueued(key, comment("first"));
  const b = await addQueued(key, comment("second"));
  const c = await addQueued(key, comment("third"));
  assert.deepEqual([a.seq, b.seq, c.seq], [1, 2, 3]);
  assert.equal(seqKey(2), "outq:000000000002");
  const list = await listQueued(key);
  assert.deepEqual(list.map((w) => w.label), ["first", "second", "third"]);
  assert.deepEqual(list.map((w) => w.state), ["pending", "pending", "pending"]);
  // Nothing in clear: the record holds only IV and ciphertext.
  const rec = await getCached("lists", seqKey(1));
  assert.ok(rec);
  assert.deepEqual(Object.keys(rec).sort(), ["ct", "id", "iv", "key", "savedAt"]);
  assert.ok(!JSON.stringify(rec).includes("first"));
  await closeQCDB();
});

Deno.test("[outq] numbers keep growing after removals; other cached lists are not the queue", async () => {
  await fresh();
  const key = await aesKey();
  await putCached("lists", "pwalists", await encryptJson(key, { any: 1 }));
  await putCached("lists", "outqf:unrelated", await encryptJson(key, { file: "" }));
  const a = await addQueued(key, comment("a"));
  const b = await addQueued(key, comment("b"));
  await removeQueued(b);
  await removeQueued(a);
  const c = await addQueued(key, comment("c"));
  assert.equal(c.seq, 1, "an empty queue starts again at 1");
  const d = await addQueued(key, comment("d"));
  await removeQueued(c);
  const e = await addQueued(key, comment("e"));
  assert.equal(e.seq, d.seq + 1);
  assert.deepEqual((await listQueued(key)).map((w) => w.label), ["d", "e"]);
  assert.ok(await getCached("lists", "pwalists"), "other cache entries untouched");
  await closeQCDB();
});

Deno.test("[outq] many writes added at once get distinct numbers in order", async () => {
  await fresh();
  const key = await aesKey();
  const added = await Promise.all(
    Array.from({ length: 20 }, (_, i) => addQueued(key, comment(`c${i}`))),
  );
  const seqs = added.map((w) => w.seq).sort((x, y) => x - y);
  assert.deepEqual(seqs, Array.from({ length: 20 }, (_, i) => i + 1));
  assert.equal((await listQueued(key)).length, 20);
  await closeQCDB();
});

Deno.test("[outq] state changes persist; another key cannot read the queue", async () => {
  await fresh();
  const key = await aesKey();
  const w = await addQueued(key, comment("refused"));
  await updateQueued(key, { ...w, state: "failed", attempts: 1, error: "Too late" });
  const [back] = await listQueued(key);
  assert.equal(back.state, "failed");
  assert.equal(back.error, "Too late");
  assert.equal(back.attempts, 1);
  assert.equal(back.key, w.key);
  assert.deepEqual(await listQueued(await aesKey()), [], "unreadable entries are skipped");
  assert.equal((await listQueued(key)).length, 1, "…and left in place");
  await closeQCDB();
});

Deno.test("[outq] a queued upload keeps its file and preview, encrypted, apart from the entry", async () => {
  await fresh();
  const key = await aesKey();
  const bytes = new Uint8Array(300_000).map((_, i) => (i * 7919) & 0xff);
  const w = await addQueued(key, {
    key: crypto.randomUUID(),
    kind: "receipt",
    target: "tx9",
    label: "taxi.jpg",
    call: { upload: { path: "/x", fields: { record: "tx9" }, name: "taxi.jpg" } },
  }, {
    file: new Blob([bytes], { type: "image/jpeg" }),
    preview: new Blob([new Uint8Array([1, 2, 3])], { type: "image/jpeg" }),
  });
  const files = await readQueuedFiles(key, w);
  assert.ok(files);
  assert.deepEqual(new Uint8Array(await files.file.arrayBuffer()), bytes);
  assert.equal(files.file.type, "image/jpeg");
  assert.deepEqual(new Uint8Array(await files.preview!.arrayBuffer()), new Uint8Array([1, 2, 3]));
  const stored = await getCached("lists", `outqf:${w.key}`);
  assert.ok(stored && stored.ct.length > 400_000);
  await removeQueued(w);
  assert.equal(await getCached("lists", `outqf:${w.key}`), undefined, "files go with the entry");
  assert.equal(await readQueuedFiles(key, w), null);
  await closeQCDB();
});

Deno.test("[outq] backoff: 1 s, 2 s, 4 s … at most 60 s", () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7, 8, 20].map(backoffMs),
    [1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000],
  );
  assert.equal(backoffMs(0), 1000);
});

Deno.test("[outq] outcome: refusals fail, no answer / 5xx / 'later' retry, 'done earlier' is sent", () => {
  assert.equal(outcomeOf(new NetworkError(new Error("x"))), "retry");
  assert.equal(outcomeOf(new ApiError(500, "internal", "x")), "retry");
  assert.equal(outcomeOf(new ApiError(503, "x", "x")), "retry");
  assert.equal(outcomeOf(new ApiError(422, "too_long", "Note too long")), "failed");
  assert.equal(outcomeOf(new ApiError(403, "forbidden", "x")), "failed");
  assert.equal(outcomeOf(new ApiError(404, "not_found", "x")), "failed");
  assert.equal(outcomeOf(new ApiError(409, "conflict", "x")), "failed");
  assert.equal(outcomeOf(new ApiError(409, "idempotency_in_progress", "x")), "retry");
  // Carried out earlier, its answer gone: done (the screen re-reads), never shown as failed.
  assert.equal(outcomeOf(new ApiError(409, "idempotency_replay_unavailable", "x")), "sent");
  assert.equal(outcomeOf(new ApiError(429, "rate_limited", "x")), "retry");
  assert.equal(outcomeOf(new ApiError(401, "unauthorized", "x")), "retry");
  assert.equal(outcomeOf(new ApiError(200, "bad_response", "x")), "sent");
  assert.equal(outcomeOf(new TypeError("bug")), "retry");
});

function write(seq: number, state: QueuedWrite["state"] = "pending"): QueuedWrite {
  return {
    seq,
    key: `k${seq}`,
    kind: "comment",
    target: "t",
    label: `w${seq}`,
    call: { ep: "transaction.addComment" },
    createdAt: 0,
    state,
    attempts: 0,
    error: null,
  };
}

function recorder() {
  const log: string[] = [];
  const hooks: DrainHooks = {
    sending: (w) => void log.push(`sending ${w.seq}`),
    sent: (w) => Promise.resolve(void log.push(`sent ${w.seq}`)),
    failed: (w) => Promise.resolve(void log.push(`failed ${w.seq}`)),
    retry: (w) => Promise.resolve(void log.push(`retry ${w.seq}`)),
  };
  return { log, hooks };
}

Deno.test("[outq] replay: in order; a refusal fails that write and the next goes on", async () => {
  const { log, hooks } = recorder();
  const sentOrder: number[] = [];
  const r = await drain([write(3), write(1), write(2, "failed"), write(4)], (w) => {
    sentOrder.push(w.seq);
    if (w.seq === 3) return Promise.reject(new ApiError(422, "note_too_long", "Too long"));
    return Promise.resolve({ ok: w.seq });
  }, hooks);
  assert.equal(r, "done");
  assert.deepEqual(sentOrder, [1, 3, 4], "oldest first; failed ones wait for the person");
  assert.deepEqual(log, ["sending 1", "sent 1", "sending 3", "failed 3", "sending 4", "sent 4"]);
});

Deno.test("[outq] replay: no network or a 5xx stops the run with the order kept", async () => {
  for (const err of [new NetworkError(new Error("off")), new ApiError(502, "bad_gateway", "x")]) {
    const { log, hooks } = recorder();
    const r = await drain([write(1), write(2), write(3)], (w) => {
      if (w.seq === 2) return Promise.reject(err);
      return Promise.resolve(null);
    }, hooks);
    assert.equal(r, "retry");
    assert.deepEqual(log, ["sending 1", "sent 1", "sending 2", "retry 2"], "3 is not tried");
  }
});
