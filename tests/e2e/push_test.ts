/**
 * Web push in the browser (spec §1 push notifications), both flavours, at 360×640.
 *
 * Headless Chromium has no push service, so pushes are delivered to the service worker through
 * the DevTools protocol (`ServiceWorker.deliverPushMessage`) and `registration.getNotifications()`
 * shows what it displayed. Nothing can click a system notification from DevTools: the test
 * dispatches a `notificationclick` event in the worker with the displayed notification. Such an
 * event is not trusted, and Chromium lets only a trusted click open or focus a window, so where
 * the worker would open a new window the test records the URL (`clients.openWindow` stubbed in
 * the worker) and opens it itself; where a window of the app is open, the real path runs (the
 * worker posts the link to it; its refused `focus()` does not stop that).
 *
 * The Options toggle subscribes through a stubbed `PushManager` (a fake subscription with the
 * keys a browser would give) on a page that says it is Android (spec §2: Android or iOS only).
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { pushLink, pushTag } from "../../client/shared/push_links.ts";
import { activate, click, dumpOnFailure, FLAVOURS, start, tapDigits, waitText } from "./harness.ts";
import { closeAll, named, opts, waitInTopPanel } from "./panels.ts";
import { bearerOf, cardFor, DAY, purchase } from "./transactions_setup.ts";
import { expectAccessible } from "./a11y.ts";
import {
  activateOn,
  androidPage,
  cookie,
  EMPLOYEE,
  FAKE_SUB,
  openPanels,
  openPushSwitch,
  PIN,
  serviceWorker,
  Stub,
  waitFor,
} from "./push_steps.ts";

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] push: the service worker shows a pushed notification and its click opens the item after the PIN; with the app open the push banner shows instead and opens the item; a click posts to an open window`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      let page: Page | null = null;
      try {
        page = await activate(env, EMPLOYEE);
        const first = page;
        const ctx = first.browserContext();
        await ctx.overridePermissions(env.url, ["notifications"]);
        const { tx, card } = await dumpOnFailure(first, async () => {
          await waitText(first, "No requests here");
          const h = await bearerOf(first, () => click(first, "Refresh"));
          const card = await cardFor(env, h);
          const bought = await purchase(env, {
            card: card.oid,
            amount: "42.50",
            merchantName: "Boulangerie Paul",
          });
          return { tx: bought.transactionOid, card };
        });
        const sw = await serviceWorker(env, ctx);
        const txPush = {
          title: "Card payment authorised",
          body: "€42.50 at Boulangerie Paul",
          url: pushLink("transaction", tx),
          tag: pushTag("transaction", tx),
        };

        // (1) No window of the app: the worker shows a notification.
        await first.close();
        page = null;
        // Delivered once the worker no longer sees the closed window (else it would hand the
        // push to that window instead of showing it).
        await waitFor("the closed window to leave", async () => (await sw.windows()) === 0);
        await sw.deliver(txPush);
        const [shown] = await waitFor("the notification", async () => {
          const l = await sw.notifications();
          return l.length ? l : null;
        });
        assert.equal(shown.title, "Card payment authorised");
        assert.equal(shown.body, "€42.50 at Boulangerie Paul");
        assert.equal(shown.tag, `transaction:${tx}`);
        assert.equal(shown.data.url, `${env.url}/?open=transaction:${tx}`);
        // Its click closes it and opens the app on that transaction, in a new window.
        assert.deepEqual(await sw.click(txPush.tag), [`${env.url}/?open=transaction:${tx}`]);
        assert.deepEqual(await sw.notifications(), []);
        page = await ctx.newPage();
        const p = page;
        await p.setViewport({ width: 360, height: 640, isMobile: true, hasTouch: true });
        await dumpOnFailure(p, async () => {
          await p.goto(`${env.url}/?open=transaction:${tx}`);
          await waitText(p, "Enter your PIN");
          // Never before the PIN: the pad alone, and the link has left the address bar.
          assert.equal(await openPanels(p), 0);
          assert.equal(p.url(), `${env.url}/`);
          await tapDigits(p, PIN);
          await waitInTopPanel(p, "Boulangerie Paul");
          assert.equal(await openPanels(p), 1);
          await closeAll(p);

          // (2) The app on screen: the in-app push banner instead of a notification.
          await sw.deliver({
            title: "Request approved",
            body: "Client visit in Lyon was approved",
            url: pushLink("request", card.oid),
            tag: pushTag("request", card.oid),
          });
          const banner = await p.waitForSelector(".push-banner");
          assert.match(
            await banner!.evaluate((e) => (e as HTMLElement).innerText),
            /Request approved/,
          );
          assert.match(
            await banner!.evaluate((e) => (e as HTMLElement).innerText),
            /Client visit in Lyon was approved/,
          );
          assert.deepEqual(await sw.notifications(), []);
          // It is dismissable…
          await p.locator("::-p-aria(Dismiss notification: Request approved)").click();
          await p.waitForSelector(".push-banner", { hidden: true });
          // …and tapping it opens the item.
          await sw.deliver({ ...txPush, title: "Card payment refused", body: "€20.00 refused" });
          await p.locator(".push-banner-open").click();
          await waitInTopPanel(p, "Boulangerie Paul");
          assert.equal(await p.$(".push-banner"), null);
          await closeAll(p);

          // (3) The app open but not on screen: a notification; its click reaches that window.
          await sw.holder.bringToFront();
          await p.waitForFunction(() => document.visibilityState === "hidden");
          await sw.deliver({
            title: "Request approved",
            body: "Client visit in Lyon was approved",
            url: pushLink("request", card.oid),
            tag: pushTag("request", card.oid),
          });
          await waitFor("the second notification", async () => (await sw.notifications()).length);
          assert.deepEqual(await sw.click(pushTag("request", card.oid)), []);
          await p.bringToFront();
          await waitInTopPanel(p, `Request ${card.id}`);
          assert.equal(await openPanels(p), 1);
        });
      } finally {
        await env.close();
      }
    },
  });

  Deno.test({
    name:
      `[e2e:${flavour}] push: the Options toggle (Android, not from the PIN pad) subscribes with the server key, registers and sets the cookie; a registration older than 7 days is renewed at unlock; a hanging subscribe gives up after 10 s; off deregisters`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      let page: Page | null = null;
      try {
        page = await androidPage(env);
        const p = page;
        await dumpOnFailure(p, async () => {
          const init = await (await fetch(`${env.url}/bonita/qtservlet/initialize`)).json();
          assert.ok(
            init.vapidPublicKey,
            "initialize must serve the VAPID public key (server side of issue 13)",
          );
          // spec §2: not offered when Options were opened from home (the PIN pad).
          await click(p, "Options");
          await waitText(p, "Remove local data");
          assert.equal(await p.$("[role=switch]"), null);
          await click(p, "Back");

          await activateOn(env, p);
          const deviceId = (await p.cookies()).find((c) => c.name === "qc_deviceid")!.value;
          const device = async () => (await env.deps.store.devices.get(deviceId)).value!;
          assert.equal((await device()).push, undefined);

          const push = await openPushSwitch(p);
          await push.click();
          await p.waitForFunction(() =>
            (document.querySelector("[role=switch]") as HTMLInputElement)?.checked
          );
          // Every toggle says what happened, under the switch (announced: role=status).
          await waitText(p, "Notifications are on");
          await expectAccessible(p, "Options, push on");
          // Subscribed with the server's key, and the subscription is what the server stored.
          const calls = await p.evaluate(() => (window as unknown as Stub).__push.subscribed);
          assert.deepEqual(calls, [{ userVisibleOnly: true, key: init.vapidPublicKey }]);
          const stored = await waitFor("the registration", async () => (await device()).push);
          assert.deepEqual(JSON.parse(stored.token), {
            endpoint: FAKE_SUB.endpoint,
            expirationTime: null,
            keys: FAKE_SUB.keys,
          });
          assert.equal(stored.isIOS, false);
          const registered = await cookie(p, "qc_push");
          assert.ok(Math.abs(Number(registered) - Date.now()) < 60_000, `cookie ${registered}`);

          // spec §9: a registration older than 7 days is renewed at the next unlock.
          await p.setCookie({
            name: "qc_push",
            value: String(Date.now() - 8 * DAY),
            url: env.url,
            sameSite: "Strict",
          });
          const before = stored.at;
          await closeAll(p);
          await click(p, "Open menu");
          await click(p, "Lock");
          await waitText(p, "Enter your PIN");
          await tapDigits(p, PIN);
          await waitFor("a renewed registration", async () => (await device()).push!.at > before);
          await waitFor(
            "a renewed cookie",
            async () => Math.abs(Number(await cookie(p, "qc_push")) - Date.now()) < 60_000,
          );

          // Off: unsubscribed and deregistered, the cookie gone.
          const off = await openPushSwitch(p);
          assert.equal(await off.evaluate((e) => (e as HTMLInputElement).checked), true);
          await off.click();
          await waitFor("the deregistration", async () => !(await device()).push);
          assert.equal(await cookie(p, "qc_push"), null);
          assert.equal(
            await p.evaluate(() => (window as unknown as Stub).__push.unsubscribed),
            1,
          );
          await p.waitForFunction(() =>
            !(document.querySelector("[role=switch]") as HTMLInputElement)?.checked
          );
          await waitText(p, "Notifications are off");

          // spec §9: a subscription that hangs gives up after 10 s with a message. The tap
          // answers at once, not after those 10 s of silence: the switch moves, busy, and says
          // what it is doing while the subscription has not answered.
          await p.evaluate(() => ((window as unknown as Stub).__push.hang = true));
          const started = Date.now();
          await (await named(p, "Push notifications")).click();
          await waitText(p, "Turning notifications on…");
          assert.deepEqual(
            await p.$eval("[role=switch]", (e) => ({
              checked: (e as HTMLInputElement).checked,
              busy: e.getAttribute("aria-busy"),
              note: document.getElementById(e.getAttribute("aria-describedby")!)?.textContent,
            })),
            { checked: true, busy: "true", note: "Turning notifications on…" },
          );
          assert.ok(
            !(await p.evaluate(() => document.body.innerText)).includes("no answer within"),
            "the feedback came before the give-up",
          );
          await expectAccessible(p, "Options, push turning on");
          await waitText(p, "no answer within 10 seconds", 15_000);
          await waitText(p, "Notifications were not turned on");
          const waited = Date.now() - started;
          assert.ok(waited >= 9_500 && waited < 14_000, `gave up after ${waited} ms`);
          assert.equal(
            await p.evaluate(() =>
              (document.querySelector("[role=switch]") as HTMLInputElement).checked
            ),
            false,
          );
          assert.equal((await device()).push, undefined);
          assert.equal(await cookie(p, "qc_push"), null);
        });
      } finally {
        await env.close();
      }
    },
  });
}
