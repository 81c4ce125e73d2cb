/**
 * The same cases on Deno KV (`:memory:`) and on PostgreSQL (server/store/pg_kv.ts, on the
 * cluster tests/pg.ts provides): what each observes must agree, so the domain code behaves
 * the same on either store. Versionstamps differ between stores by nature (each has its own
 * counter): cases compare what they mean (present, absent, increasing, equal), not values.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { freshPgUrl, openTestPgKv } from "../pg.ts";
import { openPgKv } from "../../server/store/pg_kv.ts";
import { SCHEMA_VERSION } from "../../server/store/pg_schema.ts";

const STORES: [string, () => Promise<Deno.Kv>][] = [
  ["Deno KV", () => Deno.openKv(":memory:")],
  ["PostgreSQL", () => openTestPgKv(8)],
];

/** Runs `fn` on each store and asserts they observed the same; returns that observation. */
async function agree<T>(fn: (kv: Deno.Kv, store: string) => Promise<T>): Promise<T> {
  const seen: T[] = [];
  for (const [name, open] of STORES) {
    const kv = await open();
    try {
      seen.push(await fn(kv, name));
    } finally {
      await kv.close();
    }
  }
  assert.deepEqual(seen[1], seen[0], "PostgreSQL differs from Deno KV");
  return seen[0];
}

async function keys(it: Deno.KvListIterator<unknown>): Promise<Deno.KvKey[]> {
  const out: Deno.KvKey[] = [];
  for await (const e of it) out.push(e.key);
  return out;
}

const PARTS: Deno.KvKeyPart[] = [
  new Uint8Array([1]),
  new Uint8Array([]),
  new Uint8Array([0, 1]),
  new Uint8Array([0]),
  "",
  "a",
  "a\0b",
  "ab",
  "é",
  "Z",
  -(2n ** 70n),
  -256n,
  -1n,
  0n,
  1n,
  255n,
  256n,
  2n ** 64n,
  2n ** 70n,
  -Infinity,
  -1.5,
  -0,
  0,
  1e-300,
  1,
  2.5,
  Infinity,
  NaN,
  false,
  true,
];

Deno.test("[store] keys of every type sort as on Deno KV, type first, prefixes first", async () => {
  const got = await agree(async (kv) => {
    for (const p of PARTS) {
      await kv.set(["k", p], 1);
      await kv.set(["k", p, "child"], 2);
    }
    await kv.set(["k"], 0); // the prefix itself is not listed under it
    return {
      forward: await keys(kv.list({ prefix: ["k"] })),
      reverse: await keys(kv.list({ prefix: ["k"] }, { reverse: true })),
    };
  });
  assert.equal(got.forward.length, PARTS.length * 2);
  // Uint8Array < string < bigint < number < boolean, each key just before its children.
  const types = got.forward.filter((k) => k.length === 2).map((k) => typeof k[1]);
  assert.deepEqual([...new Set(types)], ["object", "string", "bigint", "number", "boolean"]);
  assert.deepEqual(got.forward[1], [...got.forward[0], "child"]);
  assert.deepEqual(got.reverse, [...got.forward].reverse());
});

Deno.test("[store] prefix, start and end ranges, limits and reverse agree", async () => {
  await agree(async (kv) => {
    for (let i = 0; i < 12; i++) {
      await kv.set(["a", i], i);
      await kv.set(["a", i, "x"], -i);
    }
    await kv.set(["b", 1], "b");
    await kv.set(["a"], "prefix");
    const sels: [Deno.KvListSelector, Deno.KvListOptions][] = [
      [{ prefix: ["a"] }, {}],
      [{ prefix: ["a"] }, { limit: 5 }],
      [{ prefix: ["a"] }, { reverse: true, limit: 5 }],
      [{ prefix: ["a"], start: ["a", 3] }, {}],
      [{ prefix: ["a"], end: ["a", 3] }, { reverse: true }],
      [{ start: ["a", 2], end: ["a", 5] }, {}],
      [{ start: ["a", 2], end: ["b", 2] }, { reverse: true, limit: 4 }],
      [{ prefix: ["a", 4] }, {}],
      [{ prefix: ["none"] }, {}],
      [{ prefix: [] }, { batchSize: 2 }],
    ];
    const out = [];
    for (const [sel, opts] of sels) {
      const rows = [];
      for await (const e of kv.list(sel, opts)) rows.push([e.key, e.value]);
      out.push(rows);
    }
    return out;
  });
});

Deno.test("[store] cursors resume a listing page by page, forward and reverse", async () => {
  await agree(async (kv) => {
    for (let i = 0; i < 10; i++) await kv.set(["c", `k${i}`], i);
    const out: unknown[] = [];
    for (const reverse of [false, true]) {
      let cursor: string | undefined;
      for (;;) {
        const it = kv.list({ prefix: ["c"] }, { limit: 3, reverse, cursor });
        const page = await keys(it);
        out.push(page, it.cursor);
        if (page.length < 3) break;
        cursor = it.cursor;
      }
      const range = kv.list({ start: ["c", "k2"], end: ["c", "k8"] }, { limit: 2, reverse });
      const first = await keys(range);
      const rest = await keys(kv.list({ start: ["c", "k2"], end: ["c", "k8"] }, {
        reverse,
        cursor: range.cursor,
      }));
      out.push(first, rest);
    }
    return out;
  });
});

Deno.test("[store] checks: stale or absent versionstamps fail and write nothing", async () => {
  await agree(async (kv) => {
    const a = await kv.set(["x"], 1);
    assert.match(a.versionstamp, /^[0-9a-f]{20}$/);
    const b = await kv.set(["x"], 2);
    assert.ok(b.versionstamp > a.versionstamp, "versionstamps increase");
    const out = [];
    out.push(
      await kv.atomic().check({ key: ["x"], versionstamp: a.versionstamp })
        .set(["x"], "stale").set(["y"], "also").commit().then((r) => r.ok),
    );
    out.push(
      await kv.atomic().check({ key: ["x"], versionstamp: null }).set(["x"], "null")
        .commit().then((r) => r.ok),
    );
    out.push(
      await kv.atomic().check({ key: ["absent"], versionstamp: b.versionstamp })
        .set(["absent"], 1).commit().then((r) => r.ok),
    );
    out.push((await kv.getMany([["x"], ["y"], ["absent"]])).map((e) => e.value));
    const ok = await kv.atomic().check({ key: ["x"], versionstamp: b.versionstamp })
      .check({ key: ["new"], versionstamp: null }).set(["x"], 3).set(["new"], 4).delete(["x"])
      .commit();
    out.push(ok.ok, (await kv.getMany([["x"], ["new"]])).map((e) => e.value));
    const e = await kv.get(["new"]);
    out.push(ok.ok && e.versionstamp === ok.versionstamp);
    await kv.delete(["new"]);
    out.push(await kv.get(["new"]).then((e) => [e.value, e.versionstamp]));
    return out;
  });
});

Deno.test("[store] 50 concurrent checked writes on one key: exactly one wins", async () => {
  await agree(async (kv) => {
    const absent = await Promise.all(
      Array.from(
        { length: 50 },
        (_, i) =>
          kv.atomic().check({ key: ["once"], versionstamp: null }).set(["once"], i)
            .sum(["wins"], 1n).commit(),
      ),
    );
    const cur = await kv.get(["once"]);
    const present = await Promise.all(
      Array.from(
        { length: 50 },
        (_, i) => kv.atomic().check(cur).set(["once"], 100 + i).sum(["wins"], 1n).commit(),
      ),
    );
    const wins = (await kv.get<Deno.KvU64>(["wins"])).value?.value;
    return {
      absentWinners: absent.filter((r) => r.ok).length,
      presentWinners: present.filter((r) => r.ok).length,
      wins,
    };
  }).then((r) => assert.deepEqual(r, { absentWinners: 1, presentWinners: 1, wins: 2n }));
});

Deno.test("[store] PostgreSQL, one connection: a refused, a failed and a pipelined commit each end their transaction", async () => {
  // BEGIN travels with the reads and COMMIT behind the write (pg_kv.ts transaction()): after
  // every commit, whatever its end, the connection is back to idle, not inside a transaction
  // (one left open would fold the next commit into it). A pool of one: always that connection.
  const { url, drop } = await freshPgUrl();
  const kv = await openPgKv(url, { poolSize: 1 });
  const admin = postgres(url, { max: 1, onnotice: () => {}, fetch_types: false });
  try {
    const [{ pid }] = await (kv as unknown as { sql: postgres.Sql })
      .sql<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
    const state = async () =>
      (await admin<{ state: string }[]>`SELECT state FROM pg_stat_activity WHERE pid = ${pid}`)[0]
        ?.state;
    await kv.set(["text"], "not a number");
    const first = await kv.get(["text"]);
    await kv.set(["text"], "changed");
    assert.equal(await state(), "idle");
    // A failed check: nothing written, rolled back.
    const stale = await kv.atomic().check(first).set(["text"], "stale").commit();
    assert.equal(stale.ok, false);
    assert.equal(await state(), "idle", "after a failed check");
    // An error after the read (a sum on a string): refused, rolled back.
    await assert.rejects(() => kv.atomic().sum(["text"], 1n).set(["other"], 1).commit());
    assert.equal(await state(), "idle", "after a refused commit");
    assert.equal((await kv.get(["other"])).value, null);
    // 30 writes at once through the one connection, each checked against the key's absence:
    // exactly one wins; then 20 checked increments one after another all commit.
    const once = await Promise.all(
      Array.from(
        { length: 30 },
        (_, i) =>
          kv.atomic().check({ key: ["once"], versionstamp: null }).set(["once"], i).commit(),
      ),
    );
    assert.equal(once.filter((r) => r.ok).length, 1);
    for (let i = 0; i < 20; i++) {
      const cur = await kv.get<number>(["n"]);
      const r = await kv.atomic().check(cur).set(["n"], (cur.value ?? 0) + 1).commit();
      assert.ok(r.ok, `increment ${i}`);
    }
    assert.equal((await kv.get(["n"])).value, 20);
    assert.equal((await kv.get(["text"])).value, "changed");
    assert.equal(await state(), "idle");
  } finally {
    await admin.end({ timeout: 5 });
    await kv.close();
    await drop();
  }
});

Deno.test("[store] sums, min and max on U64 values, wrapping at 2^64", async () => {
  await agree(async (kv) => {
    const u = (k: string) => kv.get<Deno.KvU64>([k]).then((e) => e.value?.value);
    await kv.atomic().sum(["s"], 5n).sum(["s"], 7n).commit();
    await kv.atomic().sum(["w"], 2n ** 64n - 1n).commit();
    await kv.atomic().sum(["w"], 3n).commit();
    await kv.atomic().min(["m"], 9n).min(["m"], 4n).max(["M"], 4n).max(["M"], 9n).commit();
    const parallel = await Promise.all(
      Array.from({ length: 30 }, () => kv.atomic().sum(["p"], 1n).commit()),
    );
    await kv.set(["text"], "not a number");
    const wrong = await kv.atomic().sum(["text"], 1n).commit().then(() => "ok", () => "refused");
    return {
      s: await u("s"),
      w: await u("w"),
      m: await u("m"),
      M: await u("M"),
      p: await u("p"),
      all: parallel.every((r) => r.ok),
      wrong,
      text: (await kv.get(["text"])).value,
    };
  }).then((r) =>
    assert.deepEqual(r, {
      s: 12n,
      w: 2n,
      m: 4n,
      M: 9n,
      p: 30n,
      all: true,
      wrong: "refused",
      text: "not a number",
    })
  );
});

Deno.test("[store] values round-trip: bytes, dates, bigints, U64, nested objects", async () => {
  await agree(async (kv) => {
    const values: unknown[] = [
      new Uint8Array([0, 1, 255]),
      new Date(1_700_000_000_000),
      12345678901234567890n,
      new Deno.KvU64(42n),
      { a: [1, "two", null, { b: new Uint8Array([7]), d: new Date(5) }], c: undefined },
      "text",
      3.25,
      true,
      null,
      new Map([["k", 1]]),
      [],
    ];
    for (const [i, v] of values.entries()) await kv.set(["v", i], v);
    const got = await Array.fromAsync(kv.list({ prefix: ["v"] }));
    return got.map((e) => {
      const v = e.value;
      return v instanceof Deno.KvU64 ? { u64: v.value } : v;
    });
  });
});

Deno.test("[store] expireIn: there until it expires, then invisible on PostgreSQL", async () => {
  await agree(async (kv, store) => {
    await kv.set(["t", "short"], 1, { expireIn: 300 });
    await kv.set(["t", "long"], 2, { expireIn: 60_000 });
    await kv.atomic().set(["t", "atomic"], 3, { expireIn: 60_000 }).commit();
    const before = (await kv.getMany([["t", "short"], ["t", "long"], ["t", "atomic"]]))
      .map((e) => e.value);
    if (store === "PostgreSQL") {
      // Deno KV deletes expired keys at some point after (its sweep); PostgreSQL hides them
      // as soon as they expire, which keeps the same promise.
      await new Promise((ok) => setTimeout(ok, 400));
      assert.equal((await kv.get(["t", "short"])).value, null);
      assert.deepEqual(await keys(kv.list({ prefix: ["t"] })), [["t", "atomic"], ["t", "long"]]);
      const again = await kv.atomic().check({ key: ["t", "short"], versionstamp: null })
        .set(["t", "short"], 4).commit();
      assert.ok(again.ok, "an expired key counts as absent for checks");
    }
    return before;
  });
});

Deno.test("[store] PostgreSQL schema: created once and versioned, by processes starting together", async () => {
  const { url, drop } = await freshPgUrl();
  try {
    // Five stores open the empty schema at once: one migrates, the others find it done.
    const kvs = await Promise.all(Array.from({ length: 5 }, () => openPgKv(url, { poolSize: 2 })));
    await kvs[0].set(["k"], "v");
    assert.equal((await kvs[4].get(["k"])).value, "v");
    await Promise.all(kvs.map((kv) => kv.close()));
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      const rows = await sql`SELECT id, version FROM qcard_schema`;
      assert.deepEqual(rows.map((r) => [r.id, r.version]), [[1, SCHEMA_VERSION]]);
      // A store a newer QCard migrated is refused rather than misread.
      await sql`UPDATE qcard_schema SET version = ${SCHEMA_VERSION + 1}`;
      await assert.rejects(openPgKv(url), /schema version .* run a newer QCard/);
    } finally {
      await sql.end();
    }
  } finally {
    await drop();
  }
});
