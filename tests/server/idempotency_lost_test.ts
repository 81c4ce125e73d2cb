/**
 * This file: lost answers, the fingerprint, calls never kept, bearers, anonymous uploads (the same
 * subject goes on in idempotency_test.ts).
 *
 * Idempotency keys (engineering.md §5): a write carrying `Idempotency-Key` is carried out
 * once per caller, its first answer replayed for 24 h; the same key with another body is
 * refused (422); concurrent repeats never write twice; 5xx answers are not kept.
 */
import assert from "node:assert/strict";
import { DEMO, type TestApi, withApp } from "../helpers.ts";
import { assertError, assertOk, bearer, login } from "./api.ts";
import { BODY_BYTES, measureAnonymousUploads } from "./anonymous_load.ts";
import { newRevealKey } from "../../client/shared/reveal_cipher.ts";
import { UPLOAD_PATH } from "../../client/shared/contract/documents.ts";
import { makePng } from "../fixtures/files.ts";
import { accepted, defineSecure, E, get, post } from "./purchase_helpers.ts";
import { fingerprint, LEASE_MS } from "../../server/middleware/idempotency.ts";
import type { IdemRecord } from "../../server/store/idempotency.ts";
import {
  comment,
  commentCount,
  idemRecords,
  keyed,
  receiptCount,
  setUp,
  upload,
} from "./idempotency_helpers.ts";

/** The one idempotency record in the store (the test's only key). */
async function theRecord(api: TestApi): Promise<Deno.KvEntry<IdemRecord>> {
  const all = await Array.fromAsync(api.kv.list<IdemRecord>({ prefix: ["idem"] }));
  assert.equal(all.length, 1, `${all.length} idempotency records`);
  return all[0];
}

Deno.test(
  "[idempotency] the write done, its answer lost with the server: the repeat writes nothing and is told it was carried out",
  withApp(async (api) => {
    const { emp, tx } = await setUp(api);
    const h = keyed(emp.h, crypto.randomUUID());
    // The server stops after the comment is written, before its answer is kept.
    let atCrash: Deno.KvEntry<IdemRecord> | null = null;
    api.deps.faults = {
      beforeCommit: async (what) => {
        if (what !== "idempotency.answer") return;
        atCrash = await theRecord(api);
        throw new Error("injected: the process ends here");
      },
    };
    const a = await comment(api, h, tx, "Parking at the airport");
    api.deps.faults = undefined;
    assert.equal(a.status, 500, a.text);
    // What a crash at that point leaves: the key marked committed in the comment's own write.
    const left = atCrash! as Deno.KvEntry<IdemRecord>;
    assert.equal(left.value.state, "committed");
    assert.equal(await commentCount(api, emp.h, tx), 1);
    // Here the 500 was answered after the write, so the key says so at once.
    const b = await comment(api, h, tx, "Parking at the airport");
    assertError(b, 409, "idempotency_replay_unavailable", /already carried out/);
    // After a real crash no tidy-up runs: the record is as the write left it. Once its lease
    // is over, the repeat is told the write was carried out, and nothing is written.
    await api.kv.set(left.key, left.value);
    const real = api.deps.now;
    try {
      api.deps.now = () => real() + LEASE_MS + 1;
      const c = await comment(api, h, tx, "Parking at the airport");
      assertError(c, 409, "idempotency_replay_unavailable", /already carried out/);
    } finally {
      api.deps.now = real;
    }
    assert.equal(await commentCount(api, emp.h, tx), 1);
    // The same key for another body is still refused as such.
    assertError(await comment(api, h, tx, "Something else"), 422, "idempotency_mismatch");
  }),
);

Deno.test(
  "[idempotency] an upload whose answer was lost is not stored twice; a failure before the write frees the key",
  withApp(async (api) => {
    const { emp, tx } = await setUp(api);
    const png = makePng(48, 48);
    const h = keyed(emp.h, crypto.randomUUID());
    api.deps.faults = {
      beforeCommit: (what) => {
        if (what === "idempotency.answer") throw new Error("injected");
      },
    };
    const a = await upload(api, h, tx, png);
    api.deps.faults = undefined;
    assert.equal(a.status, 500);
    await a.body?.cancel();
    const b = await upload(api, h, tx, png);
    assert.equal(b.status, 409);
    assert.equal((await b.json()).error, "idempotency_replay_unavailable");
    assert.equal(await receiptCount(api, emp.h, tx), 1);
    // A failure before the write: nothing stands, so the key is free and the repeat runs.
    const h2 = keyed(emp.h, crypto.randomUUID());
    api.deps.faults = {
      beforeCommit: (what) => {
        if (what === "document") throw new Error("injected");
      },
    };
    const c = await upload(api, h2, tx, makePng(40, 40));
    api.deps.faults = undefined;
    assert.equal(c.status, 500);
    await c.body?.cancel();
    const d = await upload(api, h2, tx, makePng(40, 40));
    assert.equal(d.status, 200, await d.text());
    assert.equal(await receiptCount(api, emp.h, tx), 2);
  }),
);

Deno.test(
  "[idempotency] a first request that lost its key to a repeat cannot write any more",
  withApp(async (api) => {
    const { emp, tx } = await setUp(api);
    const h = keyed(emp.h, crypto.randomUUID());
    // While the upload runs, its key is taken over (as a repeat does once a lease ran out).
    let taken = false;
    api.deps.faults = {
      beforeCommit: async (what) => {
        if (what !== "document" || taken) return;
        taken = true;
        const mine = await theRecord(api);
        assert.equal(mine.value.state, "pending");
        await api.kv.set(mine.key, { ...mine.value, until: Date.now() + LEASE_MS });
      },
    };
    const a = await upload(api, h, tx, makePng(64, 64));
    api.deps.faults = undefined;
    assert.equal(a.status, 409, await a.text());
    assert.equal(await receiptCount(api, emp.h, tx), 0);
    // Without a key the same upload goes through: only the fenced write was refused.
    const b = await upload(api, emp.h, tx, makePng(64, 64));
    assert.equal(b.status, 200, await b.text());
    assert.equal(await receiptCount(api, emp.h, tx), 1);
  }),
);

Deno.test("[idempotency] fingerprint: method, path, sorted query and body", async () => {
  const body = new TextEncoder().encode('{"a":1}');
  const a = await fingerprint("POST", "http://h/x?b=2&a=1", body);
  assert.equal(a, await fingerprint("post", "http://other/x?a=1&b=2", body));
  assert.notEqual(a, await fingerprint("POST", "http://h/y?a=1&b=2", body));
  assert.notEqual(a, await fingerprint("GET", "http://h/x?a=1&b=2", body));
  assert.notEqual(
    a,
    await fingerprint("POST", "http://h/x?a=1&b=2", new Uint8Array([1])),
  );
});

// ---- Scope (engineering.md §6: keys belong to an authenticated caller, POST only, nothing secret)
// ----

Deno.test(
  "[idempotency] a keyed card reveal is never replayed: after a freeze the repeat is refused, no PAN",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    await defineSecure(api, emp.h);
    const oid = await accepted(api, emp.h);
    assertOk(await post(api, emp.h, "pwanewqcard", { oid }));
    const h = keyed(emp.h, crypto.randomUUID());
    const path = `pwaexpensecardreveal?oid=${oid}&key=${newRevealKey()}`;
    assertOk(await get(api, h, path));
    assertOk(await post(api, emp.h, "pwafreezecard", { oid }));
    const again = await get(api, h, path);
    assert.equal(again.res.headers.get("idempotent-replayed"), null);
    assert.ok(again.status >= 400, `a frozen card revealed: ${again.status}`);
    assert.equal(again.json.encryptedresult, undefined);
    assert.equal(await idemRecords(api), 0);
  }),
);

Deno.test(
  "[idempotency] a keyed unlock (pwacheckpinvalid) is never kept: no record, the new token nowhere in KV",
  withApp(async (api) => {
    const { token, deviceId } = await api.activate(DEMO.employee);
    const h = { "device-id": deviceId, "idempotency-key": crypto.randomUUID() };
    const r = await api.call("POST", `${E}/pwacheckpinvalid`, {
      body: { token, pin: "135790" },
      headers: h,
    });
    assertOk(r);
    const fresh = String(r.json.token);
    assert.ok(fresh.length > 20);
    assert.equal(await idemRecords(api), 0);
    for await (const e of api.kv.list({ prefix: [] })) {
      assert.ok(!JSON.stringify(e.value ?? null).includes(fresh), `token in clear at ${e.key}`);
    }
    // The repeat is evaluated again (it answers as an unlock with the old token does).
    const again = await api.call("POST", `${E}/pwacheckpinvalid`, {
      body: { token, pin: "135790" },
      headers: h,
    });
    assert.equal(again.res.headers.get("idempotent-replayed"), null);
  }),
);

Deno.test(
  "[idempotency] a key with only a device-id is not kept (the offline queue replays no device call)",
  withApp(async (api) => {
    const h = { "device-id": api.newDeviceId(), "idempotency-key": crypto.randomUUID() };
    const a = await api.call("POST", `${E}/pwaactivationemail`, {
      body: { email: "nobody@demo.example" },
      headers: h,
    });
    assertOk(a);
    const b = await api.call("POST", `${E}/pwacheckregistered`, {
      body: { token: "x".repeat(43) },
      headers: h,
    });
    assert.equal(b.res.headers.get("idempotent-replayed"), null);
    assert.equal(await idemRecords(api), 0);
  }),
);

Deno.test(
  "[idempotency] keys of two bearers do not collide: one user's two devices, one key, two comments",
  withApp(async (api) => {
    const { emp, tx } = await setUp(api);
    // A second device of the same user (lost activation: the secret answer mails a code).
    const deviceId = api.newDeviceId();
    const sent = await api.call("POST", `${E}/pwasecretanswer`, {
      body: { email: DEMO.employee, answer: "paris", questOid: "q-birth-city" },
      headers: { "device-id": deviceId },
    });
    assertOk(sent);
    const code = await api.latestCode(DEMO.employee);
    assertOk(
      await api.call("POST", `${E}/pwacheckvalidation`, {
        body: { verificationcode: code },
        headers: { "device-id": deviceId },
      }),
    );
    const p = await api.call("POST", `${E}/pwaconfirmpin`, {
      body: { verificationcode: code, pin: "135790" },
      headers: { "device-id": deviceId },
    });
    assertOk(p);
    const second = bearer(String(p.json.token));
    const key = crypto.randomUUID();
    assertOk(await comment(api, keyed(emp.h, key), tx, "from the phone"));
    const b = await comment(api, keyed(second, key), tx, "from the phone");
    assertOk(b);
    assert.equal(b.res.headers.get("idempotent-replayed"), null);
    assert.equal(await commentCount(api, emp.h, tx), 2);
  }),
);

Deno.test(
  "[idempotency] a bearer call without a bearer is answered 401 before a byte of its body is read",
  withApp(async (api) => {
    for (const path of [`/bonita${UPLOAD_PATH}`, `/bonita${E}/pwaaddtransactioncomment`]) {
      let pulls = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(ctl) {
          pulls++;
          ctl.enqueue(new Uint8Array(64 * 1024));
        },
      }, { highWaterMark: 0 });
      const res = await api.app.request(path, {
        method: "POST",
        body,
        headers: {
          "device-id": api.newDeviceId(),
          "idempotency-key": crypto.randomUUID(),
          "content-type": "application/json",
        },
        duplex: "half",
      } as RequestInit);
      assert.equal(res.status, 401);
      assert.equal((await res.json()).error, "unauthorized");
      assert.equal(res.headers.get("connection"), "close");
      assert.equal(pulls, 0, `${path}: ${pulls} chunks read`);
    }
    assert.equal(await idemRecords(api), 0);
  }),
);

Deno.test({
  name:
    "[idempotency] 60 anonymous upload connections to main.ts: RSS growth under 50 MB, no record in KV",
  // A real server (main.ts behind its connection guard) and real sockets.
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const f = await measureAnonymousUploads(60);
    const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
    const what = `growth ${mb(f.rssGrowth)} (peak ${mb(f.rssPeakGrowth)}), ${f.idemRecords} ` +
      `records, ${JSON.stringify(f.statuses)}, ${mb(f.sent)} sent in ${f.ms.toFixed(0)} ms`;
    assert.equal(f.idemRecords, 0, what);
    assert.ok(f.rssGrowth < 50e6, what);
    assert.equal(f.statuses["401"] ?? 0, 60, what);
    // The bodies were not taken: a connection ends with its 401.
    assert.ok(f.sent < 60 * BODY_BYTES / 2, what);
  },
});

Deno.test(
  "[idempotency] a keyed 3-D Secure PIN check is never kept: each wrong PIN is counted",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    const s = await post(api, emp.h, "pwasetexpensedosecure", {
      record: { password: "Tr4in-2027!", countryPrefix: "+33", phoneNumber: "612345678" },
    });
    assertOk(s);
    const h = keyed(emp.h, crypto.randomUUID());
    const a = await post(api, h, "pwaexpensedosecurevalidatepin", { pin: "0000" });
    const b = await post(api, h, "pwaexpensedosecurevalidatepin", { pin: "0000" });
    assert.equal(b.res.headers.get("idempotent-replayed"), null);
    assert.notEqual(b.text, a.text, "the second attempt was not evaluated");
    assert.equal(await idemRecords(api), 0);
  }),
);
