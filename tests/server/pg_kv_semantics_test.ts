/**
 * The PostgreSQL store is a Deno KV (issue 33): what Deno KV refuses it refuses before anything
 * is written (a value over 64 KiB: the store unchanged, atomically); every value Deno KV
 * round-trips round-trips here (Blob, File, CryptoKey, DOMException); whatever it holds exports
 * and imports into a KV file, every record counted; close() settles what is in flight and
 * refuses what follows; watch() sees another connection's commits; no password in an
 * inspection or an error. Deno's own KV suite runs too (tests/kv_suite/).
 */
import assert from "node:assert/strict";
import { openPgKv } from "../../server/store/pg_kv.ts";
import { main } from "../../server/app/store_copy_cli.ts";
import { freshPgUrl } from "../pg.ts";

const opts = { sanitizeResources: false, sanitizeOps: false };

async function all(kv: Deno.Kv) {
  const out = [];
  for await (const e of kv.list({ prefix: [] })) out.push(e);
  return out;
}

async function withPg(fn: (kv: Deno.Kv, url: string) => Promise<void>) {
  const pg = await freshPgUrl();
  const kv = await openPgKv(pg.url, { poolSize: 2 });
  try {
    await fn(kv, pg.url);
  } finally {
    await (kv.close() as unknown as Promise<void>);
    await pg.drop();
  }
}

Deno.test({
  name: "[pg kv] a value over 64 KiB is refused as Deno KV refuses it; nothing is written",
  ...opts,
  fn: () =>
    withPg(async (kv) => {
      await kv.set(["keep"], "before");
      const before = await all(kv);
      const big = new Uint8Array(65_537);
      await assert.rejects(kv.set(["big"], big), (e) =>
        e instanceof TypeError && /Value too large \(max 65536 bytes\)/.test(e.message));
      // In one atomic operation with a valid write: neither is written.
      await assert.rejects(
        kv.atomic().set(["keep"], "after").set(["big"], { s: "x".repeat(70_000) }).commit(),
        TypeError,
      );
      assert.deepEqual(await all(kv), before, "the store is unchanged");
      // The largest value Deno KV takes is taken.
      assert.ok((await kv.set(["max"], new Uint8Array(65_536))).ok);
    }),
});

Deno.test({
  name:
    "[pg kv] Blob, File, CryptoKey and DOMException round-trip as on Deno KV; an export imports into a KV file",
  ...opts,
  fn: () =>
    withPg(async (kv, url) => {
      const key = await crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, [
        "encrypt",
      ]);
      await kv.atomic()
        .set(["blob"], new Blob(["hello"], { type: "text/plain" }))
        .set(["file"], new File(["x"], "r.pdf", { type: "application/pdf", lastModified: 7 }))
        .set(["key"], key)
        .set(["err"], new DOMException("oops", "DataCloneError"))
        .set(["nested"], { at: new Date(0), bytes: new Uint8Array([1, 2]), n: 10n })
        .set(["u64"], new Deno.KvU64(42n))
        .set(["max"], new Uint8Array(65_536))
        .set(["soon"], "expires", { expireIn: 3_600_000 })
        .commit();
      // Each as Deno KV itself gives it back in this runtime (the control): Deno 2.9 returns a
      // Blob, a File, a CryptoKey, a DOMException; Deno Deploy's 2.5 plain objects for some.
      const control = await Deno.openKv(":memory:");
      try {
        for (const k of ["blob", "file", "key", "err", "nested"]) {
          const mine = (await kv.get([k])).value as Record<string, unknown>;
          await control.set([k], (await kv.get([k])).value);
          const theirs = (await control.get([k])).value as Record<string, unknown>;
          assert.equal(mine?.constructor?.name, theirs?.constructor?.name, k);
          if (theirs instanceof Blob) {
            assert.ok(mine instanceof Blob);
            assert.equal(await mine.text(), await theirs.text(), k);
            assert.equal(mine.type, theirs.type, k);
          } else if (theirs instanceof CryptoKey) {
            assert.deepEqual(
              [(mine as unknown as CryptoKey).algorithm, (mine as unknown as CryptoKey).type],
              [theirs.algorithm, theirs.type],
            );
          } else if (!(theirs instanceof DOMException)) assert.deepEqual(mine, theirs, k);
        }
      } finally {
        control.close();
      }
      if (typeof (Deno as unknown as { version: { deno: string } }).version.deno === "string") {
        const blob = (await kv.get<Blob>(["blob"])).value!;
        if (blob instanceof Blob) assert.equal(await blob.text(), "hello");
      }

      // Every record out to a file and into a new KV file, counted and compared. Not the Blob
      // and the File: Deno KV's own serialisation of one refers to its data in the process
      // that wrote it (another process reads "Blob part not found", from a KV file too).
      await kv.atomic().delete(["blob"]).delete(["file"]).commit();
      const dir = await Deno.makeTempDir({ prefix: "qcard-pgkv-" });
      try {
        const said: string[] = [];
        const say = (l: string) => said.push(l);
        assert.equal(await main(["export", `${dir}/s.jsonl`, "--store", url], say), 0, said.join());
        assert.equal(
          await main(["import", `${dir}/s.jsonl`, "--store", `${dir}/copy.kv`], say),
          0,
          said.join("\n"),
        );
        assert.match(said.join("\n"), /Exported 6 records \(1 with an expiry\)/);
        assert.match(said.join("\n"), /6 equal, 0 missing, 0 different/);
        const file = await Deno.openKv(`${dir}/copy.kv`);
        try {
          // Deno KV itself keeps a Blob's data only in the process that wrote it (its V8
          // serialisation for storage refers to the process's blob parts): the copy holds a
          // Blob of the same type and size, as a KV file would.
          const e = (await file.get<DOMException>(["err"])).value!;
          // (Deno 2.5's serialiser keeps a DOMException as a plain Error: so does Deno KV.)
          if (e instanceof DOMException) assert.equal(e.message, "oops");
          assert.equal(((await file.get<Deno.KvU64>(["u64"])).value!).value, 42n);
          assert.equal((await file.get<Uint8Array>(["max"])).value!.length, 65_536);
        } finally {
          file.close();
        }
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    }),
});

Deno.test({
  name: "[pg kv] close(): what is in flight settles, what follows is BadResource, twice throws",
  ...opts,
  async fn() {
    const pg = await freshPgUrl();
    const kv = await openPgKv(pg.url, { poolSize: 2 });
    const inflight = kv.set(["a"], 1);
    const closed = kv.close() as unknown as Promise<void>;
    assert.ok((await inflight).ok, "the write in flight committed");
    await assert.rejects(kv.set(["b"], 2), Deno.errors.BadResource);
    await assert.rejects(kv.get(["a"]), Deno.errors.BadResource);
    assert.throws(() => kv.close(), Deno.errors.BadResource);
    await closed; // the pool ended: nothing hangs
    const again = await openPgKv(pg.url, { poolSize: 1 });
    try {
      assert.equal((await again.get(["a"])).value, 1);
      assert.equal((await again.get(["b"])).value, null, "the write after close never ran");
    } finally {
      await (again.close() as unknown as Promise<void>);
      await pg.drop();
    }
  },
});

Deno.test({
  name: "[pg kv] watch() sees a commit made through another connection within a second",
  ...opts,
  fn: () =>
    withPg(async (kv, url) => {
      const other = await openPgKv(url, { poolSize: 1 });
      try {
        const reader = kv.watch([["w"]]).getReader();
        const first = await reader.read();
        assert.deepEqual(first.value, [{ key: ["w"], value: null, versionstamp: null }]);
        const started = performance.now();
        const { versionstamp } = await other.set(["w"], "seen");
        const next = await reader.read();
        assert.deepEqual(next.value, [{ key: ["w"], value: "seen", versionstamp }]);
        assert.ok(performance.now() - started < 1_000, "within a second");
        await reader.cancel();
      } finally {
        await (other.close() as unknown as Promise<void>);
      }
    }),
});

Deno.test({
  name: "[pg kv] no password in Deno.inspect of the store, its operations, or its errors",
  ...opts,
  async fn() {
    const pg = await freshPgUrl();
    const u = new URL(pg.url);
    u.username = "postgres";
    u.password = "pw-must-not-leak-3141";
    const kv = await openPgKv(u.toString(), { poolSize: 1 }).catch((e) => e);
    const seen: string[] = [];
    if (kv instanceof Error) seen.push(String(kv), Deno.inspect(kv));
    else {
      assert.equal(Deno.inspect(kv), "Kv {}");
      seen.push(Deno.inspect(kv.atomic().set(["a"], 1)));
      seen.push(Deno.inspect(kv, { depth: 10, showHidden: true }));
      await kv.set(["a"], new Uint8Array(70_000)).catch((e: Error) => seen.push(Deno.inspect(e)));
      await (kv.close() as unknown as Promise<void>);
      await kv.get(["a"]).catch((e: Error) => seen.push(Deno.inspect(e)));
    }
    // A database that does not answer: the connection error names no password either.
    const dead = new URL(u);
    dead.port = "1";
    await openPgKv(dead.toString(), { poolSize: 1 }).then(
      (k) => (k.close() as unknown as Promise<void>),
      (e) => seen.push(String(e), Deno.inspect(e)),
    );
    await pg.drop();
    assert.ok(seen.length >= 2);
    for (const s of seen) assert.ok(!s.includes("pw-must-not-leak-3141"), s);
  },
});
