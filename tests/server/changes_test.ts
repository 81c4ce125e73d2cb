/**
 * The change channel (docs/app.md): every change a user must see leaves a record in its own
 * commit (none when the commit fails), `pwachanges` answers what changed since a cursor, and the
 * stream sends each change as it commits — to the requester, to the approvers' teams, to every
 * device of the same user, again after a reconnection from the last cursor.
 */
import assert from "node:assert/strict";
import { DEMO, type TestApi, withApp } from "../helpers.ts";
import { recordDecision } from "../../server/domain/requests.ts";
import type { Change, ChangeBatch } from "../../client/shared/contract/changes.ts";
import { CHANGE_STREAM_PATH } from "../../client/shared/contract/changes.ts";
import { streamStats } from "../../server/routes/changes.ts";
import type { RequestRecord } from "../../server/store/requests.ts";
import { buy, defineSecure, newCard, submitted } from "./purchase_helpers.ts";
import { assertError, assertOk, bearer, getE, type Headers, login } from "./api.ts";

async function since(api: TestApi, h: Headers, cursor?: string): Promise<ChangeBatch> {
  const q = cursor === undefined ? "" : `?cursor=${encodeURIComponent(cursor)}`;
  const r = await getE(api, h, `pwachanges${q}`);
  assertOk(r);
  return r.json as unknown as ChangeBatch;
}

/** A second device of the demo employee (lost activation: the secret answer mails a code). */
async function secondDevice(api: TestApi) {
  const deviceId = api.newDeviceId();
  const E = "/scmapi/expense";
  const headers = { "device-id": deviceId };
  assertOk(
    await api.call("POST", `${E}/pwasecretanswer`, {
      body: { email: DEMO.employee, answer: "paris", questOid: "q-birth-city" },
      headers,
    }),
  );
  const verificationcode = await api.latestCode(DEMO.employee);
  assertOk(
    await api.call("POST", `${E}/pwacheckvalidation`, { body: { verificationcode }, headers }),
  );
  const p = await api.call("POST", `${E}/pwaconfirmpin`, {
    body: { verificationcode, pin: "135790" },
    headers,
  });
  assertOk(p);
  return { h: bearer(String(p.json.token)) };
}

const has = (cs: Change[], kind: string, id: string) =>
  cs.some((c) => c.kind === kind && c.id === id);

/** An open stream: its events one by one (parsed), and a way to end it. */
async function openStream(api: TestApi, h: Headers, cursor = "") {
  const ac = new AbortController();
  const q = cursor ? `?cursor=${encodeURIComponent(cursor)}` : "";
  const res = await api.app.request(`/bonita${CHANGE_STREAM_PATH}${q}`, {
    headers: h,
    signal: ac.signal,
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
  assert.equal(res.headers.get("cache-control"), "no-store");
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  return {
    /** The next data event within `ms`, or null. */
    async next(ms = 3000): Promise<ChangeBatch | null> {
      const until = Date.now() + ms;
      while (true) {
        const i = buf.indexOf("\n\n");
        if (i >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const data = block.split("\n").find((l) => l.startsWith("data: "));
          if (data) return JSON.parse(data.slice(6)) as ChangeBatch;
          continue;
        }
        const left = until - Date.now();
        if (left <= 0) return null;
        const timer = new Promise<null>((ok) => setTimeout(() => ok(null), left));
        const r = await Promise.race([reader.read(), timer]);
        if (r === null) return null;
        if (r.done) return null;
        buf += r.value;
      }
    },
    async close() {
      ac.abort();
      await reader.cancel().catch(() => {});
    },
  };
}

Deno.test(
  "[changes] a commit leaves its change record, a failed commit none",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    const start = await since(api, emp.h);
    assert.deepEqual(start.changes, [], "no cursor: the channel starts now");
    assert.equal(start.full, false);
    const { store } = api.deps;
    const { oid } = await submitted(api, emp.h);
    const rec = (await store.requests.get(emp.oid, oid)).value as RequestRecord;

    // A write whose check fails leaves nothing behind, its change record neither.
    const failed = store.requests.put(
      store.kv.atomic().check({ key: ["no-such"], versionstamp: "00000000000000010000" }),
      { ...rec, purpose: "never" },
    );
    assert.equal((await failed.commit()).ok, false);
    const a = await since(api, emp.h, start.cursor);
    assert.ok(has(a.changes, "request", oid), JSON.stringify(a.changes));
    const after = await since(api, emp.h, a.cursor);
    assert.deepEqual(after.changes, [], "nothing new after a failed commit");

    // One that commits always leaves one, at a version past the cursor.
    assert.ok((await store.requests.put(store.kv.atomic(), { ...rec, purpose: "x" }).commit()).ok);
    const b = await since(api, emp.h, a.cursor);
    assert.deepEqual(b.changes.map((c) => [c.kind, c.id]), [["request", oid]]);
    assert.ok(b.changes[0].version > "", "a version");
    assert.deepEqual((await since(api, emp.h, b.cursor)).changes, [], "none applied twice");
  }),
);

Deno.test(
  "[changes] the requester, the approvers' team and a card holder's purchase",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    const apr = await login(api, DEMO.approver);
    const [e0, a0] = [await since(api, emp.h), await since(api, apr.h)];
    const { oid, approvalOid } = await submitted(api, emp.h);
    const seen = await since(api, apr.h, a0.cursor);
    assert.ok(has(seen.changes, "approval", approvalOid), "the approver's team hears of it");
    assert.ok(!has(seen.changes, "request", oid), "not the requester's own record");
    assert.equal((await recordDecision(api.deps, approvalOid, "accepted"))?.status, "accepted");
    const mine = await since(api, emp.h, e0.cursor);
    assert.ok(has(mine.changes, "request", oid), "the requester hears of the decision");

    await defineSecure(api, emp.h);
    const card = await newCard(api, emp.h);
    const c0 = await since(api, emp.h, mine.cursor);
    const p = await buy(api, card);
    const c1 = await since(api, emp.h, c0.cursor);
    assert.ok(has(c1.changes, "transaction", p.transactionOid), JSON.stringify(c1.changes));
    const other = await since(api, apr.h, seen.cursor);
    assert.ok(!has(other.changes, "transaction", p.transactionOid), "nobody else's channel");
  }),
);

Deno.test(
  "[changes] the stream: at once, each change as it commits, to both devices; resumed from the cursor loses none",
  withApp(async (api) => {
    const emp = await login(api, DEMO.employee);
    const second = await secondDevice(api);
    const before = streamStats.watches;
    const s1 = await openStream(api, emp.h);
    for (let i = 0; i < 100 && streamStats.watches === before; i++) {
      await new Promise((ok) => setTimeout(ok, 10));
    }
    const one = streamStats.watches - before;
    const s2 = await openStream(api, second.h);
    assert.ok(one >= 1, "a stream watches its channels");
    assert.equal(streamStats.watches - before, one, "the user's second device shares the watches");
    const first = await s1.next();
    assert.ok(first, "a first event at once");
    assert.deepEqual(first.changes, []);
    assert.ok(await s2.next(), "the other device's first event");

    const t0 = performance.now();
    const { oid } = await submitted(api, emp.h);
    const got = await s1.next(2000);
    assert.ok(got && has(got.changes, "request", oid), JSON.stringify(got));
    assert.ok(performance.now() - t0 < 2000);
    let other = await s2.next(2000);
    while (other && !has(other.changes, "request", oid)) other = await s2.next(2000);
    assert.ok(other, "the same user's other device sees it too");
    const cursor = got!.cursor;
    await s1.close();

    // Changes while no stream is open (a dropped connection, a process killed in between)
    // come in the first event of the next stream from the last cursor.
    const { oid: later } = await submitted(api, emp.h);
    const s3 = await openStream(api, emp.h, cursor);
    const resumed = await s3.next();
    assert.ok(resumed && has(resumed.changes, "request", later), JSON.stringify(resumed));
    assert.ok(!has(resumed.changes, "request", oid) || resumed.changes.length > 1);
    await s3.close();
    await s2.close();
  }),
);

Deno.test(
  "[changes] no bearer, no stream; a bad cursor is refused or ignored, never a crash",
  withApp(async (api) => {
    const r = await api.app.request(`/bonita${CHANGE_STREAM_PATH}`);
    assert.equal(r.status, 401);
    await r.body?.cancel();
    const emp = await login(api, DEMO.employee);
    assertError(await getE(api, emp.h, `pwachanges?cursor=${"x".repeat(9000)}`), 400);
    const junk = await since(api, emp.h, "u:zz~nothex~1,garbage");
    assert.deepEqual(junk.changes, []);
  }),
);
