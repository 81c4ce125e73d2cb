/**
 * Users' lists kept in memory (server/store/list_cache.ts): a copy is answered only while the
 * list's version key is unchanged, so a write through another store on the same KV (another
 * process: the CLI, another isolate) is seen at the next read.
 */
import assert from "node:assert/strict";
import { createStore } from "../../server/store/mod.ts";
import { transactionRecord } from "./transaction_records.ts";

Deno.test("[store] cached lists follow every write, also from another store on the same KV", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const a = createStore(kv);
    const b = createStore(kv);
    const one = transactionRecord("u1");
    assert.ok((await a.transactions.put(kv.atomic(), one).commit()).ok);
    const first = await a.transactions.byUser("u1");
    assert.equal(first.length, 1);
    assert.equal(await a.transactions.byUser("u1"), first, "unchanged: the same copy");
    assert.ok(Object.isFrozen(first[0]));
    // Written elsewhere: the version moved, the next read lists again.
    assert.ok((await b.transactions.put(kv.atomic(), transactionRecord("u1")).commit()).ok);
    const second = await a.transactions.byUser("u1");
    assert.equal(second.length, 2);
    assert.notEqual(second, first);
    // A change of a record is seen too; other users' lists are their own.
    const e = await b.transactions.get("u1", one.oid);
    await b.transactions.put(kv.atomic().check(e), { ...e.value!, nbReceipts: 3 }).commit();
    assert.equal((await a.transactions.byUser("u1")).find((t) => t.oid === one.oid)!.nbReceipts, 3);
    assert.deepEqual(await a.transactions.byUser("u2"), []);
    // Requests work the same way.
    assert.deepEqual(await a.requests.byUser("u1"), []);
  } finally {
    kv.close();
  }
});

Deno.test("[store] an empty list is kept too, and the first write elsewhere is seen", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const a = createStore(kv);
    const b = createStore(kv);
    const empty = await a.transactions.byUser("u1");
    assert.deepEqual(empty, []);
    // Kept: the same copy, not a store scan on every read (pwalists of a user with nothing).
    assert.equal(await a.transactions.byUser("u1"), empty);
    assert.equal(await a.requests.byUser("u1"), await a.requests.byUser("u1"));
    assert.ok((await b.transactions.put(kv.atomic(), transactionRecord("u1")).commit()).ok);
    assert.equal((await a.transactions.byUser("u1")).length, 1);
  } finally {
    kv.close();
  }
});
