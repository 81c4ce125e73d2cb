/**
 * Push actions in the browser (spec §1 push notifications, §2 push banner), both flavours, at
 * 360×640, with the server's own notices (server/push/notify.ts) delivered to the service
 * worker through the DevTools protocol (tests/e2e/push_worker.ts):
 * - a purchase on screen: the in-app banner has *Add receipt*, which opens the transaction with
 *   "Take photo" focused; a refusal on a blocked card says why and what to do, in the banner and
 *   in the system notification;
 * - an approver's push has *Approve* and *Reject* (the in-app banner's too); with the app unlocked in the
 *   background, *Approve* locks it first, the PIN unlocks, the approval opens with "Approve …?"
 *   asked, and only that tap decides; *Reject* with no window open starts a new one, the PIN,
 *   then the rejection panel, whose button decides. Nothing is decided before the unlock.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { createRequest } from "../../server/domain/request_create.ts";
import { submitRequest } from "../../server/domain/requests.ts";
import { noticesFor } from "../../server/push/notify.ts";
import type { Deps } from "../../server/domain/env.ts";
import { activate, click, dumpOnFailure, FLAVOURS, start, tapDigits, waitText } from "./harness.ts";
import { closeAll, opts, settled, waitInTopPanel } from "./panels.ts";
import { expectAccessible, expectNoSideScroll } from "./a11y.ts";
import { bearerOf, cardFor, postAs, purchase } from "./transactions_setup.ts";
import { serviceWorker, waitFor } from "./push_worker.ts";

const PIN = "135790";

async function userOid(deps: Deps, email: string): Promise<string> {
  return (await deps.store.users.byEmail(email))!.oid;
}

/** The server's notice of a purchase to its card's author: its payload. */
async function purchaseNotice(deps: Deps, email: string, transactionOid: string) {
  const [n] = await noticesFor(deps, {
    type: "card.purchase",
    userOid: await userOid(deps, email),
    transactionOid,
    approved: true,
  });
  return n.payload;
}

const bannerText = (p: Page) =>
  p.$eval(".push-banner", (e) => (e as HTMLElement).innerText).catch(() => "");

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] push actions: the in-app purchase banner's Add receipt opens the transaction with Take photo focused; a refusal on a blocked card says why and what to do`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      let page: Page | null = null;
      try {
        page = await activate(env, "employee@demo.example");
        const p = page;
        const ctx = p.browserContext();
        await ctx.overridePermissions(env.url, ["notifications"]);
        await dumpOnFailure(p, async () => {
          await waitText(p, "No requests here");
          const h = await bearerOf(p, () => click(p, "Refresh"));
          const card = await cardFor(env, h);
          const bought = await purchase(env, {
            card: card.oid,
            amount: "42.50",
            merchantName: "Boulangerie Paul",
          });
          const sw = await serviceWorker(env, ctx);
          await p.bringToFront();
          await p.waitForFunction(() => document.visibilityState === "visible");

          // (1) On screen: the banner, with its Add receipt button.
          const payload = await purchaseNotice(
            env.deps,
            "employee@demo.example",
            bought.transactionOid,
          );
          await sw.deliver(payload);
          await p.waitForSelector(".push-banner .push-action-receipt");
          assert.match(await bannerText(p), /€42\.50 at Boulangerie Paul/);
          assert.deepEqual(
            await p.$$eval(".push-banner-action", (l) => l.map((e) => e.textContent)),
            ["Add receipt"],
          );
          await expectAccessible(p, "in-app purchase banner with Add receipt");
          await expectNoSideScroll(p, "in-app purchase banner");
          const size = await p.$eval(".push-action-receipt", (e) => {
            const r = e.getBoundingClientRect();
            return { w: r.width, h: r.height };
          });
          assert.ok(size.h >= 44 && size.w >= 44, `thumb-sized: ${JSON.stringify(size)}`);
          assert.deepEqual(await sw.notifications(), []);
          await p.locator(".push-action-receipt").click();
          await waitInTopPanel(p, "Boulangerie Paul");
          await settled(p);
          // The camera is the first tap: "Take photo" has the focus.
          await p.waitForFunction(() =>
            document.activeElement?.closest("label")?.textContent?.trim() === "Take photo"
          );
          assert.equal(await p.$(".push-banner"), null);
          await closeAll(p);

          // (2) A purchase on a blocked card is refused: why and what to do.
          await postAs(env, h, "pwafreezecard", { oid: card.oid });
          const refused = await purchase(env, {
            card: card.oid,
            amount: "18.00",
            merchantName: "Kiosque Gare",
          });
          assert.equal(refused.approved, false);
          const [n] = await noticesFor(env.deps, {
            type: "card.purchase",
            userOid: await userOid(env.deps, "employee@demo.example"),
            transactionOid: refused.transactionOid,
            approved: false,
          });
          const advice = "Card blocked: unblock it in the wallet, then pay again.";
          await sw.deliver(n.payload);
          await p.waitForSelector(".push-banner");
          assert.match(await bannerText(p), /Card payment refused/);
          assert.ok((await bannerText(p)).includes(`€18.00 at Kiosque Gare. ${advice}`));
          assert.equal(await p.$(".push-banner-action"), null, "nothing to photograph");
          await expectAccessible(p, "in-app refusal banner");
          await p.locator("::-p-aria(Dismiss notification: Card payment refused)").click();
          await p.waitForSelector(".push-banner", { hidden: true });

          // The same push with the app in the background: the system notification says it.
          await sw.holder.bringToFront();
          await p.waitForFunction(() => document.visibilityState === "hidden");
          await sw.deliver(n.payload);
          const [shown] = await waitFor("the refusal's notification", async () => {
            const l = await sw.notifications();
            return l.length ? l : null;
          });
          assert.equal(shown.title, "Card payment refused");
          assert.equal(shown.body, `€18.00 at Kiosque Gare. ${advice}`);
          assert.deepEqual(shown.actions, []);
        });
      } finally {
        await env.close();
      }
    },
  });

  Deno.test({
    name:
      `[e2e:${flavour}] push actions: an approver's Approve locks the app in the background, the PIN unlocks, then "Approve …?" decides; Reject with no window opens one, the PIN, then the rejection panel decides`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      let page: Page | null = null;
      try {
        const { deps } = env;
        const emma = (await deps.store.users.byEmail("employee@demo.example"))!;
        const approverOid = await userOid(deps, "approver@demo.example");
        const submit = async (purpose: string, amount: number) => {
          const r = await createRequest(deps, emma, {
            typeOid: "type-travel",
            amount,
            purpose,
            costCenterOid: "cc-sales",
          });
          await submitRequest(deps, emma, r.oid);
          const [a] = await deps.store.approvals.byRequest(r.oid);
          return a.oid;
        };
        const lunch = await submit("Client lunch in Lyon", 120);
        const taxi = await submit("Taxi to the airport", 80);
        /** The approver's vote on an approval, if any. */
        const vote = async (oid: string) =>
          (await deps.store.approvals.get(oid)).value!.votes.find((v) => v.userOid === approverOid)
            ?.statusCode ?? null;
        /** The server's notice of the approval to the approver. */
        const notice = async (oid: string) => {
          const a = (await deps.store.approvals.get(oid)).value!;
          const all = await noticesFor(deps, {
            type: "approval.opened",
            approvalOid: oid,
            requestOid: a.requestOid,
            level: a.levels[0].level,
            teamOids: a.levels[0].teamOids,
          });
          return all.find((n) => n.userOid === approverOid)!.payload;
        };

        page = await activate(env, "approver@demo.example");
        const p = page;
        const ctx = p.browserContext();
        await ctx.overridePermissions(env.url, ["notifications"]);
        await dumpOnFailure(p, async () => {
          const sw = await serviceWorker(env, ctx);

          const payload = await notice(lunch);
          // (0) On screen: the in-app banner has the same buttons, in the app's words.
          await p.bringToFront();
          await p.waitForFunction(() => document.visibilityState === "visible");
          await sw.deliver(payload);
          await p.waitForSelector(".push-banner .push-action-approve");
          assert.deepEqual(
            await p.$$eval(".push-banner-action", (l) => l.map((e) => e.textContent)),
            ["Approve", "Reject"],
          );
          await expectAccessible(p, "in-app approval banner with Approve and Reject");
          await expectNoSideScroll(p, "in-app approval banner");
          await p.locator("::-p-aria(Dismiss notification: Approval needed)").click();
          await p.waitForSelector(".push-banner", { hidden: true });

          // (1) The app unlocked but in the background: a notification with its buttons.
          await sw.holder.bringToFront();
          await p.waitForFunction(() => document.visibilityState === "hidden");
          await sw.deliver(payload);
          const [shown] = await waitFor("the approval's notification", async () => {
            const l = await sw.notifications();
            return l.length ? l : null;
          });
          assert.equal(shown.title, "Approval needed");
          assert.match(shown.body, /asks for €120\.00: Client lunch in Lyon/);
          assert.deepEqual(shown.actions, [
            { action: "approve", title: "Approve" },
            { action: "reject", title: "Reject" },
          ]);
          // Approve: posted to the open window, which locks before anything opens.
          assert.deepEqual(await sw.click(payload.tag, "approve"), []);
          await p.bringToFront();
          await waitText(p, "Enter your PIN");
          assert.equal(await p.$$eval(".side-panel.open", (l) => l.length), 0);
          assert.equal(await p.$(".confirm"), null);
          assert.equal(await vote(lunch), null, "nothing decided before the unlock");
          await expectAccessible(p, "PIN pad asked by a push's Approve");
          await tapDigits(p, PIN);
          // The approval, with its decision pre-selected: asked, not sent.
          await p.waitForSelector(".confirm");
          await waitText(p, "Client lunch in Lyon");
          const confirm = await p.$eval(".confirm", (e) => (e as HTMLElement).innerText);
          assert.match(confirm, /^Approve .*Client lunch in Lyon/);
          assert.equal(await vote(lunch), null, "the confirmation is still to tap");
          await expectAccessible(p, "approval with Approve pre-selected");
          await p.locator(".confirm ::-p-aria(Approve)").click();
          await waitFor("the approval's decision", async () => (await vote(lunch)) === "approved");
          await p.waitForSelector(".confirm", { hidden: true });

          // (2) No window of the app: Reject opens a new one on its link.
          await p.close();
          page = null;
          await waitFor("the closed window to leave", async () => (await sw.windows()) === 0);
          const rejectPush = await notice(taxi);
          await sw.deliver(rejectPush);
          await waitFor("the second notification", async () => (await sw.notifications()).length);
          const opened = await sw.click(rejectPush.tag, "reject");
          assert.deepEqual(opened, [`${env.url}/?open=approval:${taxi}:reject`]);
          const q = await ctx.newPage();
          page = q;
          await q.setViewport({ width: 360, height: 640, isMobile: true, hasTouch: true });
          await q.goto(opened[0]);
          await waitText(q, "Enter your PIN");
          assert.equal(await q.$$eval(".side-panel.open", (l) => l.length), 0);
          assert.equal(q.url(), `${env.url}/`, "the link left the address bar");
          await tapDigits(q, PIN);
          // The rejection panel: a reason for the requester, and the red Reject that decides.
          await waitInTopPanel(q, "Reason for rejection (optional)");
          assert.equal(await vote(taxi), null);
          await settled(q);
          await q.locator(".side-panel.open textarea").fill("Please take the train");
          await q.locator(".side-panel.open button.danger-button").click();
          await waitFor("the rejection", async () => (await vote(taxi)) === "rejected");
        });
      } finally {
        await env.close();
      }
    },
  });
}
