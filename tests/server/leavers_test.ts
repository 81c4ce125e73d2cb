/**
 * Issue 34, leavers: a person who leaves loses every way in at once, their cards stop at the
 * issuer (retried through the card-stop job while the issuer fails), their requests not yet
 * approved are cancelled with a history line, and their pending votes pass to the rest of their
 * team; their history stays. Runs on Deno KV and on PostgreSQL (QCARD_TEST_STORE=postgres).
 */
import assert from "node:assert/strict";
import { DEMO, withApp } from "../helpers.ts";
import { sendActivation } from "../../server/domain/activation.ts";
import { leaveUser, pendingCardStops, runCardStops } from "../../server/domain/leavers.ts";
import { everyone, submitted } from "./approvals_fixture.ts";
import { getE } from "./api.ts";
import { buy } from "./purchase_helpers.ts";
import { assertLeft, leaverFixture } from "./leavers_fixture.ts";

Deno.test(
  "[leavers] leaving ends devices, cards, waiting requests and owed votes at once; history stays",
  withApp(async (api) => {
    const f = await leaverFixture(api);
    const report = await leaveUser(api.deps, f.mgr.oid);
    assert.ok(report);
    assert.equal(report.devices, 2);
    assert.deepEqual(report.cards, [f.card.oid]);
    assert.deepEqual(report.cancelled, [f.waiting.request.oid]);
    assert.deepEqual(report.rerouted, [f.vote.oid]);
    assert.deepEqual(report.stranded, []);
    assert.deepEqual(await pendingCardStops(api.deps), []);
    await assertLeft(api, f);
    // Twice is once.
    assert.equal(await leaveUser(api.deps, f.mgr.oid), null);
  }),
);

Deno.test(
  "[leavers] a leaver cannot activate again: old codes and new mails refused",
  withApp(async (api) => {
    const { mgr } = await everyone(api);
    await sendActivation(api.deps, mgr.user);
    const code = await api.latestCode(DEMO.manager);
    await leaveUser(api.deps, mgr.oid);
    const r = await api.call("POST", "/scmapi/expense/pwacheckvalidation", {
      body: { verificationcode: code },
      headers: { "device-id": api.newDeviceId() },
    });
    assert.equal(r.status, 400, r.text);
    const before = (await api.deps.outbox!.list({ to: DEMO.manager, limit: 100 })).length;
    await sendActivation(api.deps, (await api.deps.store.users.get(mgr.oid))!);
    assert.equal((await api.deps.outbox!.list({ to: DEMO.manager, limit: 100 })).length, before);
  }),
);

Deno.test(
  "[leavers] the issuer failing at first: the card is frozen, then closed once it recovers",
  withApp(async (api) => {
    const f = await leaverFixture(api);
    const issuer = api.deps.issuer;
    const close = issuer.close;
    issuer.close = () => Promise.reject(new Error("issuer unavailable"));
    try {
      await leaveUser(api.deps, f.mgr.oid);
    } finally {
      issuer.close = close;
    }
    const [job] = await pendingCardStops(api.deps);
    assert.equal(job.userOid, f.mgr.oid);
    assert.match(job.lastError ?? "", /issuer unavailable/);
    // Frozen meanwhile: no purchase goes through.
    assert.equal((await buy(api, f.card)).approved, false);
    // Not due yet: the retry waits for its backoff.
    assert.equal(await runCardStops(api.deps), 0);
    const now = api.deps.now;
    api.deps.now = () => now() + 3_600_000;
    try {
      assert.equal(await runCardStops(api.deps), 1);
    } finally {
      api.deps.now = now;
    }
    assert.deepEqual(await pendingCardStops(api.deps), []);
    await assertLeft(api, f);
  }),
);

Deno.test(
  "[leavers] a run stopped after marking the user left is finished by the next one",
  withApp(async (api) => {
    const { mgr } = await everyone(api);
    const waiting = await submitted(api, mgr.h);
    // As if the process died right after the first write, before the devices went.
    const u = (await api.deps.store.users.get(mgr.oid))!;
    await api.deps.store.users.put(api.deps.store.kv.atomic(), { ...u, leftAt: Date.now() })
      .commit();
    assert.equal((await api.deps.store.devices.forUser(mgr.oid)).length, 1);
    assert.equal(await leaveUser(api.deps, mgr.oid), null);
    assert.deepEqual(await api.deps.store.devices.forUser(mgr.oid), []);
    assert.equal((await getE(api, mgr.h, "pwalists")).status, 401);
    const r = (await api.deps.store.requests.get(mgr.oid, waiting.request.oid)).value!;
    assert.equal(r.status, "cancelled");
  }),
);
