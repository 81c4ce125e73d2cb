/**
 * This file: keys, bodies, concurrency, callers, refusals, 5xx, uploads, expiry (the same subject
 * goes on in idempotency_lost_test.ts).
 *
 * Idempotency keys (engineering.md §5): a write carrying `Idempotency-Key` is carried out
 * once per caller, its first answer replayed for 24 h; the same key with another body is
 * refused (422); concurrent repeats never write twice; 5xx answers are not kept.
 */
import assert from "node:assert/strict";
import { DEMO, withApp } from "../helpers.ts";
import { assertError, assertOk } from "./api.ts";
import { makePng } from "../fixtures/files.ts";
import { E } from "./purchase_helpers.ts";
import { IDEMPOTENCY_TTL_MS } from "../../server/middleware/idempotency.ts";
import {
  comment,
  commentCount,
  idemRecords,
  keyed,
  receiptCount,
  setUp,
  upload,
} from "./idempotency_helpers.ts";

Deno.test(
  "[idempotency] the same key twice: one comment, the same answer, marked replayed",
  withApp(async (api) => {
    const { emp, tx } = await setUp(api);
    const h = keyed(emp.h, crypto.randomUUID());
    const a = await comment(api, h, tx, "Taxi to the client");
    assertOk(a);
    assert.equal(a.res.headers.get("idempotent-replayed"), null);
    const b = await comment(api, h, tx, "Taxi to the client");
    assertOk(b);
    assert.equal(b.text, a.text);
    assert.equal(b.res.headers.get("idempotent-replayed"), "true");
    assert.match(b.res.headers.get("content-type") ?? "", /application\/json/);
    assert.equal(await commentCount(api, emp.h, tx), 1);
    // Without a key every call is a write of its own, as before.
    assertOk(await comment(api, emp.h, tx, "Taxi to the client"));
    assertOk(await comment(api, emp.h, tx, "Taxi to the client"));
    assert.equal(await commentCount(api, emp.h, tx), 3);
  }),
);

Deno.test(
  "[idempotency] the same key with another body → 422 idempotency_mismatch, nothing written",
  withApp(async (api) => {
    const { emp, tx } = await setUp(api);
    const h = keyed(emp.h, crypto.randomUUID());
    assertOk(await comment(api, h, tx, "first"));
    assertError(await comment(api, h, tx, "second"), 422, "idempotency_mismatch");
    // Another path with the same key is another request too.
    const other = await api.call("POST", `${E}/pwaaddcomment`, {
      body: { oid: tx, comment: "first" },
      headers: h,
    });
    assertError(other, 422, "idempotency_mismatch");
    assert.equal(await commentCount(api, emp.h, tx), 1);
  }),
);

Deno.test(
  "[idempotency] a malformed key → 400; a GET write (pwasetreceiptdotax) is never kept, keyed or not",
  withApp(async (api) => {
    const { emp, tx } = await setUp(api);
    assertError(await comment(api, keyed(emp.h, "short"), tx, "x"), 400, "invalid_idempotency_key");
    assertError(
      await comment(api, keyed(emp.h, "a".repeat(129)), tx, "x"),
      400,
      "invalid_idempotency_key",
    );
    assertError(await comment(api, keyed(emp.h, "bad key!"), tx, "x"), 400);
    assert.equal(await commentCount(api, emp.h, tx), 0);
    // engineering.md §6 (Stripe): keys apply to POST only. The VAT flag is set by a GET (spec §7)
    // and is safe to send again as it is (it sets a value); each one runs, none is replayed.
    const h = keyed(emp.h, "dotax-key-1");
    const a = await api.call("GET", `${E}/pwasetreceiptdotax?oid=${tx}&dotax=true`, { headers: h });
    assertOk(a);
    const b = await api.call("GET", `${E}/pwasetreceiptdotax?dotax=true&oid=${tx}`, { headers: h });
    assertOk(b);
    assert.equal(b.res.headers.get("idempotent-replayed"), null);
    const c = await api.call("GET", `${E}/pwasetreceiptdotax?oid=${tx}&dotax=false`, {
      headers: h,
    });
    assertOk(c);
    assert.equal(
      (c.json.transaction as { collectVatFlag: unknown }).collectVatFlag,
      false,
      "the later GET ran",
    );
    assert.equal(await idemRecords(api), 0);
  }),
);

Deno.test(
  "[idempotency] concurrent requests with one key: one write, every answer the first one's",
  withApp(async (api) => {
    const { emp, tx } = await setUp(api);
    const h = keyed(emp.h, crypto.randomUUID());
    const all = await Promise.all(
      Array.from({ length: 8 }, () => comment(api, h, tx, "only once")),
    );
    for (const r of all) {
      if (r.status === 409) assertError(r, 409, "idempotency_in_progress");
      else {
        assertOk(r);
        assert.equal(r.text, all.find((x) => x.status === 200)!.text);
      }
    }
    assert.equal(all.filter((r) => r.status === 200).length >= 1, true);
    assert.equal(await commentCount(api, emp.h, tx), 1);
  }),
);

Deno.test(
  "[idempotency] keys are per caller: two users with one key each write once",
  withApp(async (api) => {
    const a = await setUp(api, DEMO.employee);
    const b = await setUp(api, DEMO.manager);
    const key = crypto.randomUUID();
    assertOk(await comment(api, keyed(a.emp.h, key), a.tx, "mine"));
    const other = await comment(api, keyed(b.emp.h, key), b.tx, "mine too");
    assertOk(other);
    assert.equal(other.res.headers.get("idempotent-replayed"), null);
    assert.equal(await commentCount(api, a.emp.h, a.tx), 1);
    assert.equal(await commentCount(api, b.emp.h, b.tx), 1);
  }),
);

Deno.test(
  "[idempotency] a refusal (4xx) is not kept: the repeat is evaluated again, the key stays free",
  withApp(async (api) => {
    const { emp, tx } = await setUp(api);
    const h = keyed(emp.h, crypto.randomUUID());
    const a = await comment(api, h, "no-such-transaction", "x");
    assertError(a, 404);
    assert.equal(await idemRecords(api), 0, "a 4xx left a record");
    const b = await comment(api, h, "no-such-transaction", "x");
    assertError(b, 404);
    assert.equal(b.res.headers.get("idempotent-replayed"), null);
    // The same key then serves the request that can succeed (engineering.md §6: no 4xx is kept).
    assertOk(await comment(api, h, tx, "x"));
    assert.equal(await commentCount(api, emp.h, tx), 1);
  }),
);

Deno.test(
  "[idempotency] a 5xx is not kept: the retry with the same key runs again",
  withApp(async (api) => {
    const { emp, tx } = await setUp(api);
    const h = keyed(emp.h, crypto.randomUUID());
    const png = makePng(56, 56);
    api.deps.faults = {
      beforeCommit: (what) => {
        if (what === "document") throw new Error("injected");
      },
    };
    const a = await upload(api, h, tx, png);
    assert.equal(a.status, 500);
    await a.body?.cancel();
    api.deps.faults = undefined;
    const b = await upload(api, h, tx, png);
    assert.equal(b.status, 200, await b.text());
    assert.equal(b.headers.get("idempotent-replayed"), null);
    assert.equal(await receiptCount(api, emp.h, tx), 1);
    const c = await upload(api, h, tx, png);
    await c.body?.cancel();
    assert.equal(c.headers.get("idempotent-replayed"), "true");
    assert.equal(await receiptCount(api, emp.h, tx), 1);
  }),
);

Deno.test(
  "[idempotency] an upload with one key twice: one receipt, even with a new multipart boundary",
  withApp(async (api) => {
    const { emp, tx } = await setUp(api);
    const png = makePng(64, 64);
    const h = keyed(emp.h, crypto.randomUUID());
    const a = await upload(api, h, tx, png);
    const at = await a.text();
    assert.equal(a.status, 200, at);
    const b = await upload(api, h, tx, png);
    assert.equal(b.status, 200);
    assert.equal(await b.text(), at);
    assert.equal(b.headers.get("idempotent-replayed"), "true");
    assert.equal(await receiptCount(api, emp.h, tx), 1);
    // Another file under the same key is another request.
    const c = await upload(api, h, tx, makePng(32, 32));
    assert.equal(c.status, 422);
    assert.equal((await c.json()).error, "idempotency_mismatch");
    assert.equal(await receiptCount(api, emp.h, tx), 1);
  }),
);

Deno.test(
  "[idempotency] answers are kept 24 h: after that the key is free again",
  withApp(async (api) => {
    const { emp, tx } = await setUp(api);
    const h = keyed(emp.h, crypto.randomUUID());
    const start = Date.now();
    const real = api.deps.now;
    try {
      api.deps.now = () => start;
      assertOk(await comment(api, h, tx, "day one"));
      api.deps.now = () => start + IDEMPOTENCY_TTL_MS - 60_000;
      const b = await comment(api, h, tx, "day one");
      assert.equal(b.res.headers.get("idempotent-replayed"), "true");
      api.deps.now = () => start + IDEMPOTENCY_TTL_MS + 1;
      const c = await comment(api, h, tx, "day two");
      assertOk(c);
      assert.equal(c.res.headers.get("idempotent-replayed"), null);
      assert.equal(await commentCount(api, emp.h, tx), 2);
    } finally {
      api.deps.now = real;
    }
    // The KV entry itself carries the 24 h expiry, so KV drops it on its own.
    const scoped = api.kv.list({ prefix: ["idem"] });
    let n = 0;
    for await (const _ of scoped) n++;
    assert.equal(n, 1);
  }),
);
