/**
 * This file: 504/502, kept translations, the push key and registrations (the same subject goes on
 * in relay_test.ts, relay_streams_test.ts, relay_paths_test.ts).
 *
 * Relay mode (docs/relay.md): an edge with UPSTREAM_URL in front of a real QCard upstream
 * (relay_fixture.ts). Every §7 call answers through the edge as the upstream answers it;
 * bodies stream both ways; a slow or absent upstream gives 504/502 JSON in the caller's
 * language; the edge's own headers win; translations are kept per locale; push keys and
 * registrations are the edge's.
 */
import assert from "node:assert/strict";
import { vapidKeys } from "../../server/push/keys.ts";
import { DEMO } from "../helpers.ts";
import { bearer, login } from "./api.ts";
import { startReceiver } from "./push_receiver.ts";
import { relayed } from "./relay_fixture.ts";
import { answer, opts } from "./relay_helpers.ts";

Deno.test({
  name: "[relay] the edge answers 504 past UPSTREAM_TIMEOUT_MS and 502 when the upstream " +
    "cannot be reached, as JSON in the caller's language; healthz says so",
  ...opts,
  fn: async () => {
    const r = await relayed({}, { UPSTREAM_TIMEOUT_MS: "300" });
    try {
      const emp = await login(r.api, DEMO.employee);
      r.hold = { pattern: /pwalists$/, ms: 1200 };
      const t0 = performance.now();
      const slow = await answer(r.edgeUrl, "/bonita/scmapi/expense/pwalists", {
        headers: { ...emp.h, "accept-language": "fr-FR,fr;q=0.9" },
      });
      const took = performance.now() - t0;
      assert.equal(slow.status, 504);
      assert.deepEqual(slow.json, {
        error: "upstream_timeout",
        message: "Le serveur a mis trop de temps à répondre. Veuillez réessayer.",
      });
      assert.ok(took < 1100, `answered after ${took.toFixed(0)} ms`);
      assert.equal(slow.headers.get("cache-control"), "no-store");
      r.hold = null;
      const ok = await answer(r.edgeUrl, "/healthz", {});
      assert.equal(ok.status, 200);
      assert.equal((ok.json as { upstream: string }).upstream, "ok");
    } finally {
      await r.close();
    }
    // An upstream that is not there: a port that was just closed.
    const gone = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (gone.addr as Deno.NetAddr).port;
    gone.close();
    const r2 = await relayed({}, { UPSTREAM_URL: `http://127.0.0.1:${port}` });
    try {
      const down = await answer(r2.edgeUrl, "/bonita/scmapi/expense/pwalists", {
        headers: { authorization: "Bearer abcdefghijklmnopqrstuvwxyz", "accept-language": "de" },
      });
      assert.equal(down.status, 502);
      assert.deepEqual(down.json, {
        error: "upstream_unreachable",
        message: "Der Server ist gerade nicht erreichbar. Bitte versuchen Sie es später erneut.",
      });
      assert.match(down.headers.get("content-security-policy") ?? "", /default-src/);
      const health = await answer(r2.edgeUrl, "/healthz", {});
      assert.equal(health.status, 503);
      assert.equal((health.json as { upstream: string }).upstream, "unreachable");
      // The client itself is the edge's: served whatever the upstream's state.
      const page = await fetch(`${r2.edgeUrl}/`);
      assert.equal(page.status, 200);
      await page.body?.cancel();
    } finally {
      await r2.close();
    }
  },
});

Deno.test({
  name: "[relay] pwatranslation is kept per locale: the kept answer is served when the " +
    "upstream is slow or down, and the call still reaches it",
  ...opts,
  fn: async () => {
    const r = await relayed();
    try {
      const emp = await login(r.api, DEMO.employee);
      const path = "/bonita/scmapi/expense/pwatranslation?entity=expense&locale=de";
      const first = await answer(r.edgeUrl, path, { headers: emp.h });
      assert.equal(first.status, 200);
      const de = first.json as { locale: string; translation: Record<string, string> };
      assert.equal(de.locale, "de");
      assert.equal(de.translation["common.back"], "Zurück");
      // Slow upstream: the kept German after FRESH_WAIT_MS, and the upstream still records it.
      r.hold = { pattern: /pwatranslation$/, ms: 2500 };
      const user = await r.api.deps.store.users.byEmail(DEMO.employee);
      await r.api.deps.store.users.put(r.api.kv.atomic(), { ...user!, locale: "en" }).commit()
        .catch(() => {});
      const t0 = performance.now();
      const kept = await fetch(`${r.edgeUrl}${path}`, { headers: emp.h });
      const took = performance.now() - t0;
      assert.equal(kept.status, 200);
      assert.equal(kept.headers.get("x-qcard-cache"), "stale");
      assert.equal(kept.headers.get("cache-control"), "no-store");
      assert.deepEqual(await kept.json(), de);
      assert.ok(took < 2400, `kept answer after ${took.toFixed(0)} ms`);
      // A bad token is the client's problem: 401 passed on, never the kept answer.
      r.hold = null;
      const bad = await answer(r.edgeUrl, path, {
        headers: { authorization: "Bearer abcdefghijklmnopqrstuvwxyz" },
      });
      assert.equal(bad.status, 401);
    } finally {
      await r.close();
    }
  },
});

Deno.test({
  name: "[relay] initialize carries the edge's VAPID key; a push registration is relayed to " +
    "the upstream and recorded at the edge",
  ...opts,
  fn: async () => {
    const rx = startReceiver({ subject: "mailto:ops@qcard.example" });
    const r = await relayed({ PUSH_HOSTS: rx.origin }, {
      PUSH_HOSTS: rx.origin,
      PUSH_RELAY_SECRET: "s".repeat(40),
      VAPID_SUBJECT: "mailto:ops@qcard.example",
    });
    try {
      const init = await answer(r.edgeUrl, "/bonita/qtservlet/initialize", {});
      const edgeKey = (await vapidKeys(r.edge.config, r.edge.store.kv))!.publicKey;
      const upKey = (await vapidKeys(r.api.deps.config, r.api.deps.store.kv))?.publicKey;
      assert.equal((init.json as { vapidPublicKey: string }).vapidPublicKey, edgeKey);
      assert.notEqual(edgeKey, upKey);
      const { token, deviceId } = await r.api.activate(DEMO.employee);
      const sub = await rx.subscribe("phone");
      const reg = await answer(r.edgeUrl, "/bonita/scmapi/expense/pwaregisterpushtoken", {
        method: "POST",
        headers: { ...bearer(token), "content-type": "application/json" },
        body: JSON.stringify({ pushToken: sub.token, deviceId, isIOS: false }),
      });
      assert.equal(reg.status, 200, JSON.stringify(reg.json));
      const user = await r.api.deps.store.users.byEmail(DEMO.employee);
      const subs = await r.api.deps.store.pushSubs.forUser(user!.oid);
      assert.equal(subs.length, 1, "the upstream has the subscription");
      let recorded = 0;
      for await (const e of r.edge.store.kv.list({ prefix: ["edge_push"] })) recorded += e ? 1 : 0;
      assert.equal(recorded, 1, "the edge recorded the endpoint");
    } finally {
      await r.close();
      await rx.close();
    }
  },
});
