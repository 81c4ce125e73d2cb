/**
 * What the leaver tests share (leavers_test.ts, org_sync_test.ts): the manager with two devices,
 * an open card, a waiting request and a vote someone waits on, and what must hold once they left.
 */
import assert from "node:assert/strict";
import { DEMO, type TestApi } from "../helpers.ts";
import { sendActivation } from "../../server/domain/activation.ts";
import { approve, everyone, submitted } from "./approvals_fixture.ts";
import { bearer, getE } from "./api.ts";
import { buy, defineSecure, newCard } from "./purchase_helpers.ts";

/** The manager with two devices, an open card, a waiting request and a vote someone waits on. */
export async function leaverFixture(api: TestApi) {
  const all = await everyone(api);
  const { mgr, emp, fin, dir } = all;
  await sendActivation(api.deps, mgr.user);
  const activated = await api.activate(DEMO.manager);
  const second = bearer(activated.token);
  // That phone takes notifications.
  await api.deps.store.pushSubs.put(api.deps.store.kv.atomic(), {
    userOid: mgr.oid,
    deviceId: activated.deviceId,
    subscription: { endpoint: "https://push.example/x", keys: { p256dh: "p", auth: "a" } },
    isIOS: false,
    at: Date.now(),
  }).commit();
  await defineSecure(api, mgr.h, "612345670");
  const card = await newCard(api, mgr.h);
  assert.equal((await buy(api, card)).approved, true);
  const waiting = await submitted(api, mgr.h);
  // An employee's request whose second level (Management: manager, director) is open.
  const vote = await submitted(api, emp.h);
  assert.equal((await approve(api, fin.h, vote.oid)).status, 200);
  return { mgr, emp, fin, dir, second, card, waiting, vote };
}

/** What every leaver test checks once the manager has left and the card stop has run. */
export async function assertLeft(
  api: TestApi,
  f: Awaited<ReturnType<typeof leaverFixture>>,
) {
  for (const h of [f.mgr.h, f.second]) {
    assert.equal((await getE(api, h, "pwalists")).status, 401);
  }
  assert.deepEqual(await api.deps.store.devices.forUser(f.mgr.oid), []);
  assert.deepEqual(await api.deps.store.pushSubs.forUser(f.mgr.oid), []);
  // A leaver's activation mail is never sent again and an old code lets nobody in.
  const user = await api.deps.store.users.get(f.mgr.oid);
  assert.ok(user?.leftAt);
  assert.deepEqual([user.teams, user.isApprover, user.canRequest], [[], false, false]);
  // The card is closed at the issuer: a purchase is declined.
  const issued = await api.deps.issuer.getCard(
    (await api.deps.store.requests.get(f.mgr.oid, f.card.oid)).value!.card!.token,
  );
  assert.equal(issued?.status, "closed");
  assert.equal((await buy(api, f.card)).approved, false);
  // The waiting request is cancelled, with its history line; its approval with it.
  const w = (await api.deps.store.requests.get(f.mgr.oid, f.waiting.request.oid)).value!;
  assert.equal(w.status, "cancelled");
  const lines = await api.deps.store.comments.bySource(w.oid);
  assert.match(lines.at(-1)!.text, /left the organisation/);
  assert.equal((await api.deps.store.approvals.get(f.waiting.oid)).value?.statusCode, "cancelled");
  // The vote the manager owed is the director's now: one approval decides it.
  assert.equal((await approve(api, f.dir.h, f.vote.oid)).status, 200);
  assert.equal((await api.deps.store.approvals.get(f.vote.oid)).value?.statusCode, "approved");
  // History stays: the accepted request with its card and its transaction.
  const past = (await api.deps.store.requests.get(f.mgr.oid, f.card.oid)).value!;
  assert.equal(past.status, "accepted");
  assert.equal(past.cardStatusCode, "Closed");
  assert.ok((await api.deps.store.transactions.byUser(f.mgr.oid)).length >= 1);
}
