/**
 * The issuer's test mode: `/_issuer` (page, JSON API, plain form posts) beside
 * /_outbox — loopback only, absent in production — and `deno task issuer`.
 */
import assert from "node:assert/strict";
import { DEMO, type TestApi, withApp } from "../helpers.ts";
import { login } from "./api.ts";
import type { Card } from "../../client/shared/contract/cards.ts";
import { runIssuerCli } from "../../server/app/issuer_cli.ts";
import { buy, defineSecure, issuer, LOOPBACK, newCard, rows } from "./purchase_helpers.ts";

async function withCard(api: TestApi) {
  const emp = await login(api, DEMO.employee);
  await defineSecure(api, emp.h);
  const card = await newCard(api, emp.h);
  return { emp, card };
}

/** The card's number and CVC, read at the issuer as a merchant would have them. */
async function secretsOf(api: TestApi, card: Card) {
  const owner = await api.deps.store.requests.owner(card.oid);
  const token = (await api.deps.store.requests.get(owner!, card.oid)).value!.card!.token;
  const s = await api.deps.issuer.createRevealSession(token);
  return await api.deps.issuer.redeemRevealSession(s.sessionId);
}

Deno.test(
  "[issuer page] /_issuer answers loopback only, never a remote or proxied caller",
  withApp(async (api) => {
    const call = (addr: string, init: RequestInit = {}) =>
      api.app.request("/_issuer", init, { remoteAddr: { hostname: addr } });
    assert.equal((await call("127.0.0.1")).status, 200);
    assert.equal((await call("::1")).status, 200);
    for (const remote of ["203.0.113.5", "10.0.0.2", "fe80::1"]) {
      const r = await call(remote);
      assert.equal(r.status, 404, remote);
      await r.body?.cancel();
      const p = await api.app.request("/_issuer/purchase", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ card: "1234", amount: "1", merchantName: "x" }),
      }, { remoteAddr: { hostname: remote } });
      assert.equal(p.status, 404, remote);
      await p.body?.cancel();
    }
    const proxied = await call("127.0.0.1", { headers: { "x-forwarded-for": "203.0.113.5" } });
    assert.equal(proxied.status, 404);
    await proxied.body?.cancel();
  }),
);

Deno.test(
  "[issuer page] absent in production, even from loopback",
  withApp(async (api) => {
    for (const path of ["/_issuer", "/_issuer/purchase", "/_issuer/issuer.css"]) {
      const r = await api.app.request(
        path,
        { method: path.endsWith("e") ? "POST" : "GET" },
        LOOPBACK,
      );
      assert.equal(r.status, 404, path);
      await r.body?.cancel();
    }
  }, {
    APP_ENV: "production",
    MAIL_TRANSPORT: "smtp",
    SMTP_HOST: "127.0.0.1",
    SMTP_PORT: "9",
    DEMO_ORG: "false",
  }),
);

Deno.test(
  "[issuer page] masked cards, recent transactions, a form purchase answered by a redirect",
  withApp(async (api) => {
    const { emp, card } = await withCard(api);
    const secrets = await secretsOf(api, card);
    await buy(api, card, { amount: "7.25" });
    const form = new URLSearchParams({
      card: card.oid,
      amount: "3.10",
      currency: "",
      merchantName: "Boulangerie",
      merchantCity: "Lyon",
      merchantCountry: "fr",
      mcc: "5462",
      capture: "on",
      threeDSPassword: "",
    });
    const post = await api.app.request("/_issuer/purchase", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form.toString(),
    }, LOOPBACK);
    assert.equal(post.status, 303);
    const location = post.headers.get("location")!;
    assert.match(location, /^\/_issuer\?result=iauth_[a-z2-7]{26}$/);
    const res = await api.app.request(location, {}, LOOPBACK);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-security-policy")!, /script-src 'self'/);
    const html = await res.text();
    assert.match(html, /Approved \(closed\): Boulangerie, 3\.10 EUR/);
    assert.match(html, new RegExp(`•••• •••• •••• ${card.last4}`));
    assert.match(html, /7\.25 EUR/);
    assert.doesNotMatch(html, /<script/);
    assert.ok(!html.includes(secrets.pan), "no card number on the page");
    assert.equal((await rows(api, emp.h)).length, 2);
    // A refusal by the form comes back as a message on the page.
    form.set("amount", "abc");
    const bad = await api.app.request("/_issuer/purchase", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form.toString(),
    }, LOOPBACK);
    assert.equal(bad.status, 303);
    assert.match(bad.headers.get("location")!, /error=/);
    // JSON: cards, transactions, rates.
    const j = await (await api.app.request("/_issuer", {
      headers: { accept: "application/json" },
    }, LOOPBACK)).json();
    assert.equal(j.cards[0].cardNumber, `•••• •••• •••• ${card.last4}`);
    assert.equal(j.cards[0].available, 110.15);
    assert.equal(j.transactions.length, 2);
    assert.equal(j.rates.base, "EUR");
    assert.ok(!JSON.stringify(j).includes(secrets.pan));
    const css = await api.app.request("/_issuer/issuer.css", {}, LOOPBACK);
    assert.match(css.headers.get("content-type")!, /text\/css/);
    await css.body?.cancel();
  }),
);

Deno.test(
  "[issuer page] a merchant's pan + cvc + expiry find the card; a wrong CVC is declined 'CVC'",
  withApp(async (api) => {
    const { card } = await withCard(api);
    const s = await secretsOf(api, card);
    const expiry = `${String(s.expMonth).padStart(2, "0")}/${String(s.expYear).slice(2)}`;
    const base = { amount: "4", merchantName: "Web shop", mcc: "5734", capture: true };
    const ok = await issuer(api, "purchase", { ...base, pan: s.pan, cvc: s.cvc, expiry });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.json.status, "Captured");
    const wrong = s.cvc === "000" ? "001" : "000";
    const no = await issuer(api, "purchase", { ...base, pan: s.pan, cvc: wrong, expiry });
    assert.deepEqual([no.json.status, no.json.refusedReasonDecoded], ["Refused", "CVC"]);
    const exp = await issuer(api, "purchase", { ...base, pan: s.pan, cvc: s.cvc, expiry: "01/20" });
    assert.equal(exp.json.refusedReasonDecoded, "Verification");
    const unknown = await issuer(api, "purchase", { ...base, pan: "4242424242424241", cvc: "123" });
    assert.equal(unknown.status, 404);
    assert.equal((await issuer(api, "purchase", { ...base, card: "0000" })).status, 404);
    assert.equal((await issuer(api, "purchase", { ...base })).status, 400);
    // Nothing the merchant sent is echoed back.
    for (const r of [ok, no, exp, unknown]) {
      assert.ok(!r.text.includes(s.pan) && !r.text.includes(`"${s.cvc}"`), r.text);
    }
  }),
);

Deno.test(
  "[issuer cli] deno task issuer: purchase, capture, cards, transactions, rates",
  withApp(async (api) => {
    const { emp, card } = await withCard(api);
    const out: string[] = [];
    const run = (...args: string[]) => runIssuerCli(args, api.deps, (l) => out.push(l));
    const args = ["--card", card.last4, "--amount", "20", "--merchant", "Hotel Lyon"];
    assert.equal(await run("purchase", ...args, "--currency", "USD"), 0);
    assert.match(out.join("\n"), /^Authorised\n {2}20 USD = 18\.45 EUR at 0\.922509/);
    const oid = /transaction ([0-9a-f-]{36})/.exec(out.join("\n"))![1];
    out.length = 0;
    assert.equal(await run("capture", oid, "--amount", "5", "--final"), 0);
    assert.match(out[0], /^Captured/);
    out.length = 0;
    assert.equal(await run("purchase", ...args, "--mcc", "7995"), 1);
    assert.match(out[0], /^Refused — MCC: MCC blocked/);
    out.length = 0;
    assert.equal(await run("cards"), 0);
    assert.match(out[0], new RegExp(`•••• ${card.last4}.*${card.id}`));
    out.length = 0;
    assert.equal(await run("transactions"), 0);
    assert.equal(out.length, 2);
    out.length = 0;
    assert.equal(await run("rates"), 0);
    assert.match(out.join("\n"), /USD 1\.0840/);
    assert.equal(await run("bogus"), 2);
    assert.equal(await run("capture", "nope"), 1);
    const list = await rows(api, emp.h);
    assert.deepEqual(list.map((t) => t.transactionStatus).sort(), ["Captured", "Refused"]);
  }),
);

Deno.test(
  "[issuer page] a cross-site form cannot make a purchase; the page's own form still can",
  withApp(async (api) => {
    const { emp, card } = await withCard(api);
    const form = new URLSearchParams({
      card: card.oid,
      amount: "9.99",
      merchantName: "Evil",
      capture: "on",
    }).toString();
    const post = (headers: Record<string, string>, path = "/_issuer/purchase") =>
      api.app.request(path, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body: form,
      }, LOOPBACK);
    for (
      const headers of <Record<string, string>[]> [
        // A form on another site, posted by the developer's browser.
        { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
        { "sec-fetch-site": "cross-site" },
        { "sec-fetch-site": "same-site", origin: "http://localhost:3000" },
        // An older browser: no Sec-Fetch-Site, only the Origin.
        { origin: "https://evil.example" },
        { origin: "null" },
        // Same host, another port: another origin.
        { origin: "http://localhost:9999" },
      ]
    ) {
      for (const path of ["/_issuer/purchase", "/_issuer/refund", "/_outbox"]) {
        const r = await post(headers, path);
        assert.equal(r.status, 403, `${path} ${JSON.stringify(headers)}`);
        assert.equal((await r.json()).error, "cross_site");
      }
    }
    assert.equal((await rows(api, emp.h)).length, 0, "no purchase was made");
    // The page's own form (same origin), and tools that send no Origin: as before.
    const own = await post({ origin: "http://localhost", "sec-fetch-site": "same-origin" });
    assert.equal(own.status, 303);
    assert.match(own.headers.get("location")!, /^\/_issuer\?result=iauth_/);
    assert.equal((await post({})).status, 303);
    // Chromium's own form under Referrer-Policy: no-referrer: Origin null, same-origin.
    assert.equal((await post({ origin: "null", "sec-fetch-site": "same-origin" })).status, 303);
    assert.equal((await rows(api, emp.h)).length, 3);
  }),
);
