/**
 * Several processes on one KV file (docs/stores.md "Scale out"): opening the file while another
 * process holds its write lock waits for the lock, as every later call on the handle does,
 * instead of failing at start-up with "database is locked" (seen when two main.ts started
 * together on one file).
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { openKv } from "../../server/store/kv.ts";

Deno.test("[store] a KV file whose write lock another process holds is opened once the lock goes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "qcard-kv-open-" });
  const path = `${dir}/qcard.kv`;
  try {
    // Another process is creating the file and holds it: an exclusive SQLite transaction on a
    // new database, as a process setting the store up or mid-commit. Opening needs the lock
    // to set the file up (journal mode, tables).
    const other = new DatabaseSync(path);
    other.exec("CREATE TABLE early (x)");
    other.exec("BEGIN EXCLUSIVE");
    other.exec("INSERT INTO early VALUES (1)");
    const released = new Promise<void>((resolve) =>
      setTimeout(() => {
        other.exec("COMMIT");
        other.close();
        resolve();
      }, 800)
    );
    const kv = await openKv(path, false);
    try {
      await kv.set(["a"], 1);
      assert.equal((await kv.get<number>(["a"])).value, 1);
    } finally {
      kv.close();
      await released;
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
