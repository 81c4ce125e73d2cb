/**
 * Reconciliation with the issuer, end to end: main.ts on a KV file, a burst of purchases
 * through the issuer's test mode (/_issuer, loopback), the process killed with SIGKILL in the
 * middle of it (some purchases then have the issuer's record and no transaction), a new
 * process on the same file: every approved authorization gets its transaction, exactly one.
 */
import assert from "node:assert/strict";
import { localEnv, type Proc, startMain } from "./main_process.ts";

interface AuthLike {
  id: string;
  approved: boolean;
  cardMetadata: Record<string, string>;
}

/** Approved authorizations of the app's cards, and those with no transaction linked. */
async function census(kvPath: string) {
  const kv = await Deno.openKv(kvPath);
  try {
    let approved = 0;
    const missing: string[] = [];
    const counts = new Map<string, number>();
    for await (const e of kv.list<{ authorizationId: string }>({ prefix: ["transaction"] })) {
      const id = e.value?.authorizationId;
      if (typeof id === "string") counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    for await (const e of kv.list<AuthLike>({ prefix: ["issuer", "auth"] })) {
      const a = e.value;
      if (!a.approved || !a.cardMetadata.requestOid) continue;
      approved++;
      if (!(await kv.get(["transaction_auth", a.id])).value) missing.push(a.id);
    }
    const twice = [...counts.values()].filter((n) => n > 1).length;
    return { approved, missing, twice };
  } finally {
    kv.close();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test({
  name:
    "[reconcile] kill -9 during a purchase burst, restart: every approved authorization has its transaction",
  ignore: Deno.build.os === "windows",
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "qcard-reconcile-" });
    // The demo history gives employee@ an active card with 800 EUR on it.
    const env = { ...localEnv(dir), DEMO_HISTORY: "true" };
    let p: Proc | null = await startMain(env);
    try {
      const base = `http://127.0.0.1:${p.port}`;
      const view = await (await fetch(`${base}/_issuer`, {
        headers: { accept: "application/json" },
      })).json() as { cards: { oid: string | null; status: string; available: number }[] };
      const card = view.cards.find((c) => c.oid && c.status === "active" && c.available >= 50);
      assert.ok(card, "the demo's active card");
      let answered = 0;
      let stop = false;
      const worker = async () => {
        while (!stop) {
          try {
            const r = await fetch(`${base}/_issuer/purchase`, {
              method: "POST",
              headers: { "content-type": "application/json", accept: "application/json" },
              body: JSON.stringify({ card: card.oid, amount: "0.10", merchantName: "Burst" }),
            });
            await r.body?.cancel();
            answered++;
          } catch {
            return; // the process is gone
          }
        }
      };
      const workers = Array.from({ length: 8 }, worker);
      for (let i = 0; answered < 40 && i < 1500; i++) await sleep(10);
      p.child.kill("SIGKILL");
      await p.status;
      stop = true;
      await Promise.allSettled(workers);
      p = null;
      const crashed = await census(env.KV_PATH);
      assert.ok(crashed.approved >= 40, `purchases made: ${crashed.approved}`);

      p = await startMain(env);
      let now = crashed;
      for (let i = 0; i < 75 && now.missing.length > 0; i++) {
        await sleep(200);
        now = await census(env.KV_PATH);
      }
      console.log(
        `[reconcile] ${crashed.approved} approved, ${crashed.missing.length} without a ` +
          `transaction after the kill, ${now.missing.length} after the restart`,
      );
      assert.deepEqual(now.missing, [], "every approved authorization has its transaction");
      assert.equal(now.twice, 0, "no authorization has two transactions");
      assert.ok(now.approved >= crashed.approved);
    } finally {
      if (p) {
        p.child.kill("SIGKILL");
        await p.status;
      }
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
