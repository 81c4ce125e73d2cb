/**
 * This file: every call as the upstream answers, headers, per-address limits (the same subject
 * goes on in relay_edge_test.ts, relay_streams_test.ts, relay_paths_test.ts).
 *
 * Relay mode (docs/relay.md): an edge with UPSTREAM_URL in front of a real QCard upstream
 * (relay_fixture.ts). Every §7 call answers through the edge as the upstream answers it;
 * bodies stream both ways; a slow or absent upstream gives 504/502 JSON in the caller's
 * language; the edge's own headers win; translations are kept per locale; push keys and
 * registrations are the edge's.
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import { contract, DEVICE_ID_HEADER, type Endpoint } from "../../client/shared/contract/mod.ts";
import { addressKey } from "../../server/middleware/peer.ts";
import { vapidKeys } from "../../server/push/keys.ts";
import { parseConfig } from "../../server/config.ts";
import { upstreamRequestHeaders } from "../../server/relay/headers.ts";
import { upstreamUrl } from "../../server/relay/relay.ts";
import type { AppEnv, Deps } from "../../server/domain/env.ts";
import { newIssuerKeyText } from "../../server/issuer/mod.ts";
import { DEMO } from "../helpers.ts";
import { login } from "./api.ts";
import { buy, defineSecure, newCard } from "./purchase_helpers.ts";
import { relayed } from "./relay_fixture.ts";
import { answer, opts } from "./relay_helpers.ts";

const endpoints = () =>
  Object.values(contract).flatMap((group) => Object.entries(group)) as [string, Endpoint][];

Deno.test({
  name: "[relay] every §7 call through the edge answers as the upstream does (status and JSON)",
  ...opts,
  fn: async () => {
    const r = await relayed();
    try {
      const emp = await login(r.api, DEMO.employee);
      const { deviceId } = await r.api.activate(DEMO.approver);
      const vapid = (await vapidKeys(r.edge.config, r.edge.store.kv))!.publicKey;
      let compared = 0;
      for (const [name, ep] of endpoints()) {
        // Calls that end the caller's session are compared last, on their own token.
        if (/logout|unregister/i.test(name)) continue;
        const variants: Record<string, string>[] = [
          {},
          { ...emp.h },
          { [DEVICE_ID_HEADER]: deviceId },
        ];
        for (const headers of variants) {
          const init = (): RequestInit => ({
            method: ep.method,
            headers: { ...headers, "accept-language": "fr", "content-type": "application/json" },
            body: ep.method === "POST" ? "{}" : undefined,
          });
          const path = `/bonita${ep.path}`;
          const via = await answer(r.edgeUrl, path, init());
          const direct = await answer(r.upstreamUrl, path, init());
          if (name === "initialize") {
            assert.equal((via.json as { vapidPublicKey: string }).vapidPublicKey, vapid);
            (via.json as { vapidPublicKey: string | null }).vapidPublicKey =
              (direct.json as { vapidPublicKey: string | null }).vapidPublicKey;
          }
          // Passkey options carry a fresh one-time challenge each time (random by design).
          const viaOptions = (via.json as { options?: { challenge?: string } } | null)?.options;
          const directOptions = (direct.json as { options?: { challenge?: string } } | null)
            ?.options;
          if (viaOptions?.challenge && directOptions?.challenge) {
            viaOptions.challenge = directOptions.challenge;
          }
          const what = `${ep.method} ${ep.path} with ${
            Object.keys(headers).join("+") || "nothing"
          }`;
          assert.equal(via.status, direct.status, what);
          assert.deepEqual(via.json, direct.json, what);
          assert.equal(via.headers.get("cache-control"), "no-store", what);
          compared++;
        }
      }
      // The lists of a user with a history, in full, through both.
      await defineSecure(r.api, emp.h);
      const card = await newCard(r.api, emp.h);
      await buy(r.api, card, { amount: "12.34" });
      for (const p of ["pwalists", "pwaexpensereceipts", "pwacards"]) {
        const via = await answer(r.edgeUrl, `/bonita/scmapi/expense/${p}`, { headers: emp.h });
        const direct = await answer(r.upstreamUrl, `/bonita/scmapi/expense/${p}`, {
          headers: emp.h,
        });
        assert.equal(via.status, direct.status, p);
        assert.deepEqual(via.json, direct.json, p);
      }
      // Log out through the edge: the token is refused afterwards, through both.
      const out = endpoints().find(([n]) => /logout/i.test(n));
      if (out) {
        const via = await answer(r.edgeUrl, `/bonita${out[1].path}`, {
          method: out[1].method,
          headers: { ...emp.h, "content-type": "application/json" },
          body: out[1].method === "POST" ? "{}" : undefined,
        });
        assert.ok(via.status < 500, JSON.stringify(via.json));
      }
      console.log(`${compared} answers compared (${endpoints().length} calls × 3 callers)`);
      assert.ok(compared >= 3 * 60, `only ${compared}`);
    } finally {
      await r.close();
    }
  },
});

Deno.test({
  name: "[relay] headers: credentials and the spec's headers cross, hop-by-hop do not, " +
    "X-Forwarded-* are set, the edge's security headers and no-store win",
  ...opts,
  fn: async () => {
    const r = await relayed();
    try {
      const emp = await login(r.api, DEMO.employee);
      const res = await fetch(`${r.edgeUrl}/bonita/scmapi/expense/pwalists?x=1`, {
        headers: {
          ...emp.h,
          [DEVICE_ID_HEADER]: "device-12345678",
          "idempotency-key": "key-12345678",
          "x-forwarded-for": "198.51.100.7",
          "keep-alive": "timeout=5",
          "x-hop": "secret",
          "connection": "x-hop",
          "x-request-id": "req-abc-123",
        },
      });
      assert.equal(res.status, 200, await res.clone().text());
      await res.body?.cancel();
      const h = r.seen!.headers;
      assert.equal(r.seen!.path, "/bonita/scmapi/expense/pwalists");
      assert.equal(h.get("authorization"), emp.h.authorization);
      assert.equal(h.get(DEVICE_ID_HEADER), "device-12345678");
      assert.equal(h.get("idempotency-key"), "key-12345678");
      assert.equal(h.get("x-request-id"), "req-abc-123");
      // The client's own entry is kept, the edge's peer appended: only the last is believed.
      assert.equal(h.get("x-forwarded-for"), "198.51.100.7, 127.0.0.1");
      assert.equal(h.get("x-forwarded-proto"), "http");
      assert.equal(h.get("x-forwarded-host"), new URL(r.edgeUrl).host);
      assert.equal(h.get("keep-alive"), null);
      assert.equal(h.get("x-hop"), null, "a header named by Connection is hop-by-hop");
      // Deno's fetch inflates anything not asked as identity: the client's codings go aside.
      assert.equal(h.get("accept-encoding"), "identity");
      assert.equal(h.get("x-qcard-accept-encoding"), "gzip,br");
      // The answer: the edge's headers.
      assert.equal(res.headers.get("cache-control"), "no-store");
      assert.match(res.headers.get("content-security-policy") ?? "", /default-src 'self'/);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      assert.equal(res.headers.get("x-request-id"), "req-abc-123");

      // A redirect is passed on, never followed; the upstream's cache and security headers lose.
      r.intercept = (req) =>
        new URL(req.url).pathname.endsWith("/pwalists")
          ? new Response(null, {
            status: 302,
            headers: {
              location: "/bonita/elsewhere",
              "cache-control": "public, max-age=3600",
              "content-security-policy": "default-src *",
              "x-frame-options": "ALLOWALL",
            },
          })
          : null;
      const before = r.count;
      const moved = await fetch(`${r.edgeUrl}/bonita/scmapi/expense/pwalists`, {
        headers: emp.h,
        redirect: "manual",
      });
      await moved.body?.cancel();
      assert.equal(moved.status, 302);
      assert.equal(moved.headers.get("location"), "/bonita/elsewhere");
      assert.equal(r.count - before, 1, "the edge did not follow the redirect");
      assert.equal(moved.headers.get("cache-control"), "no-store");
      assert.match(moved.headers.get("content-security-policy") ?? "", /default-src 'self'/);
      assert.equal(moved.headers.get("x-frame-options"), "DENY");
      r.intercept = null;

      // Unit: the rules themselves, whatever a client sends.
      const out = upstreamRequestHeaders(
        new Headers({
          host: "edge.example",
          "content-length": "5",
          "transfer-encoding": "chunked",
          te: "trailers",
          upgrade: "websocket",
          "proxy-authorization": "Basic x",
          forwarded: "for=1.2.3.4",
          "x-forwarded-proto": "ftp",
        }),
        { peer: "203.0.113.9", proto: "https", host: "edge.example" },
      );
      assert.deepEqual([...out.keys()].sort(), [
        "accept-encoding",
        "x-forwarded-for",
        "x-forwarded-host",
        "x-forwarded-proto",
      ]);
      assert.equal(out.get("x-forwarded-proto"), "https");
      assert.equal(out.get("x-forwarded-for"), "203.0.113.9");
      assert.equal(
        upstreamUrl("https://backend.example/base/", "/bonita/a?b=1"),
        "https://backend.example/base/bonita/a?b=1",
      );
    } finally {
      await r.close();
    }
  },
});

Deno.test("[relay] behind a trusted edge, per-address limits count the client's address", async () => {
  const key = async (trusted: string, peer: string, xff?: string) => {
    const config = parseConfig({ TRUSTED_PROXIES: trusted, ISSUER_KEY: newIssuerKeyText() });
    const app = new Hono<AppEnv>();
    app.use("*", (c, next) => (c.set("deps", { config } as Deps), next()));
    app.get("/", (c) => c.text(addressKey(c)));
    const res = await app.request("/", { headers: xff ? { "x-forwarded-for": xff } : {} }, {
      remoteAddr: { hostname: peer },
    });
    return await res.text();
  };
  assert.equal(await key("127.0.0.1", "127.0.0.1", "6.6.6.6, 203.0.113.5"), "203.0.113.5");
  assert.equal(await key("127.0.0.1", "::ffff:127.0.0.1", "203.0.113.5"), "203.0.113.5");
  // An untrusted peer's header is never believed; nor is junk from a trusted one.
  assert.equal(await key("127.0.0.1", "198.51.100.1", "203.0.113.5"), "198.51.100.1");
  assert.equal(await key("", "127.0.0.1", "203.0.113.5"), "127.0.0.1");
  assert.equal(await key("127.0.0.1", "127.0.0.1", "<script>"), "127.0.0.1");
  assert.equal(await key("127.0.0.1", "127.0.0.1"), "127.0.0.1");
});
