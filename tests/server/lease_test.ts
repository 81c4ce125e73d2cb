/**
 * Leases in KV (scale out on one store, server/store/lease.ts): one holder among many by a checked
 * write, renewed by its holder, taken over once expired, released on stop; runLeased runs a job
 * only for the holder and keeps the lease while the job lasts.
 */
import assert from "node:assert/strict";
import { openTestKv } from "../helpers.ts";
import {
  acquire,
  currentLease,
  leaseKey,
  type LeaseRecord,
  release,
  releaseHeld,
  renew,
  runLeased,
} from "../../server/store/lease.ts";

async function withKv(fn: (kv: Deno.Kv) => Promise<void>) {
  const kv = await openTestKv();
  try {
    await fn(kv);
  } finally {
    await kv.close();
  }
}

Deno.test("[lease] 50 holders trying at once: exactly one holds it, the others are refused", () =>
  withKv(async (kv) => {
    const got = await Promise.all(
      Array.from({ length: 50 }, (_, i) => acquire(kv, "job", { ttlMs: 10_000, holder: `p${i}` })),
    );
    assert.equal(got.filter(Boolean).length, 1);
    const winner = `p${got.indexOf(true)}`;
    assert.equal((await currentLease(kv, "job"))?.holder, winner);
    // The holder renews (and counts a run); the others are still refused.
    assert.equal(await acquire(kv, "job", { ttlMs: 10_000, holder: winner }), true);
    assert.equal((await currentLease(kv, "job"))?.runs, 2);
    assert.equal(await acquire(kv, "job", { ttlMs: 10_000, holder: "other" }), false);
    assert.equal(await renew(kv, "job", { ttlMs: 10_000, holder: "other" }), false);
  }));

Deno.test("[lease] an expired lease is taken over; release frees it, only by its holder", () =>
  withKv(async (kv) => {
    let t = 1_000_000;
    const now = () => t;
    assert.ok(await acquire(kv, "job", { ttlMs: 1_000, holder: "a", now }));
    t += 999;
    assert.equal(await acquire(kv, "job", { ttlMs: 1_000, holder: "b", now }), false);
    t += 2;
    assert.ok(await acquire(kv, "job", { ttlMs: 1_000, holder: "b", now }), "a's time is up");
    assert.equal(await renew(kv, "job", { ttlMs: 1_000, holder: "a", now }), false);
    await release(kv, "job", "a");
    assert.equal((await kv.get<LeaseRecord>(leaseKey("job"))).value?.holder, "b");
    await release(kv, "job", "b");
    assert.equal((await kv.get(leaseKey("job"))).value, null);
    // releaseHeld drops every lease of one holder and leaves the others'.
    await acquire(kv, "x", { ttlMs: 60_000, holder: "a" });
    await acquire(kv, "y", { ttlMs: 60_000, holder: "a" });
    await acquire(kv, "z", { ttlMs: 60_000, holder: "b" });
    assert.equal(await releaseHeld(kv, "a"), 2);
    assert.equal(await currentLease(kv, "x"), null);
    assert.equal((await currentLease(kv, "z"))?.holder, "b");
  }));

Deno.test("[lease] runLeased: the job runs for the holder only, and the lease outlives its ttl while it runs", () =>
  withKv(async (kv) => {
    let ran = 0;
    const job = async () => {
      ran++;
      await new Promise((r) => setTimeout(r, 4000));
      return "done";
    };
    // ttl 1.5 s, a job of 4 s: the heartbeat (every third of the ttl) keeps it, so b, at
    // 2 s, never starts a second run. (Roomy: a stalled machine must not miss a beat.)
    const a = runLeased(kv, "sweep", 1500, job, { holder: "a" });
    await new Promise((r) => setTimeout(r, 2000));
    const b = await runLeased(kv, "sweep", 1500, job, { holder: "b" });
    assert.deepEqual(b, { ran: false });
    assert.deepEqual(await a, { ran: true, value: "done" });
    assert.equal(ran, 1);
  }));
