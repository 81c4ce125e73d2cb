/**
 * The receipt at the moment of purchase (spec §5 Upload, missing receipts block), both
 * flavours at 360×640: a purchase on /_issuer → the server's push for it delivered to the
 * service worker (DevTools, as push_test.ts does; its click dispatched in the worker) → the
 * notification's "Add receipt" → PIN → the transaction with "Take photo" focused → a
 * 4000×3000 JPEG chosen → Enhance on → sent, the marker and the block gone. And offline: two
 * photos become one receipt (a PDF made on the device), kept in the encrypted offline queue,
 * the transaction marked "receipt pending upload", sent once back online. Every IndexedDB write
 * of both is checked as it was made (at_rest.ts): nothing of the photos or their names in clear.
 */
import assert from "node:assert/strict";
import type { BrowserContext, Page, WebWorker } from "puppeteer-core";
import {
  activate,
  click,
  dumpOnFailure,
  type Env,
  FLAVOURS,
  start,
  tapDigits,
  waitText,
} from "./harness.ts";
import { closeAll, fileInput, inTopPanel, mainTab, opts, waitInTopPanel } from "./panels.ts";
import { AtRestWatch } from "./at_rest.ts";
import { bearerOf, cardFor, DAY, purchase } from "./transactions_setup.ts";
import { expectAccessible, expectNoSideScroll } from "./a11y.ts";
import { noticesFor } from "../../server/push/notify.ts";
import { reminderDueAt, runReminders } from "../../server/reminders/receipts.ts";

const EMPLOYEE = "employee@demo.example";
const PIN = "135790";
const BLOCK = "You have transactions that still have no receipts, please provide those first";

/** The context's service worker: push delivery, notifications shown, a click on one. */
async function serviceWorker(env: Env, ctx: BrowserContext) {
  const holder = await ctx.newPage();
  const cdp = await holder.createCDPSession();
  const registered = new Promise<string>((resolve) => {
    cdp.on("ServiceWorker.workerRegistrationUpdated", (e) => {
      const r = e.registrations.find((r) => r.scopeURL === `${env.url}/` && !r.isDeleted);
      if (r) resolve(r.registrationId);
    });
  });
  await cdp.send("ServiceWorker.enable");
  const registrationId = await registered;
  const worker = async (): Promise<WebWorker> =>
    (await (await ctx.waitForTarget((t) =>
      t.type() === "service_worker" && t.url() === `${env.url}/sw.js`
    )).worker())!;
  return {
    deliver: (data: string) =>
      cdp.send("ServiceWorker.deliverPushMessage", { origin: `${env.url}/`, registrationId, data }),
    windows: async () =>
      await (await worker()).evaluate(async () =>
        // deno-lint-ignore no-explicit-any
        (await (self as any).clients.matchAll({ type: "window", includeUncontrolled: true }))
          .length as number
      ),
    notifications: async () =>
      await (await worker()).evaluate(async () =>
        // deno-lint-ignore no-explicit-any
        (await (self as any).registration.getNotifications()).map((n: any) => ({
          title: n.title as string,
          tag: n.tag as string,
          actions: (n.actions as { action: string; title: string }[])
            .map((a) => ({ action: a.action, title: a.title })),
        }))
      ),
    /** A click on the notification's button `action`; the URLs the worker asked to open. */
    click: async (tag: string, action: string) =>
      await (await worker()).evaluate(
        async (tag, action) => {
          // deno-lint-ignore no-explicit-any
          const sw = self as any;
          const opened: string[] = [];
          sw.clients.openWindow = (url: string) => (opened.push(url), Promise.resolve(null));
          const [n] = await sw.registration.getNotifications({ tag });
          let done: Promise<unknown> = Promise.resolve();
          const e = new sw.NotificationEvent("notificationclick", { notification: n, action });
          Object.defineProperty(e, "waitUntil", { value: (p: Promise<unknown>) => (done = p) });
          sw.dispatchEvent(e);
          await done;
          return opened;
        },
        tag,
        action,
      ),
  };
}

async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>) {
  const end = Date.now() + 15_000;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A camera-like JPEG made in the page: warm paper, pale print lines; written to `path`. */
async function writeJpeg(p: Page, path: string, width: number, height: number) {
  const b64 = await p.evaluate(
    async (w, h) => {
      const c = new OffscreenCanvas(w, h);
      const ctx = c.getContext("2d")!;
      ctx.fillStyle = "rgb(222, 208, 160)";
      ctx.fillRect(0, 0, w, h);
      ctx.fillStyle = "rgb(150, 138, 104)";
      ctx.font = `${Math.round(h / 40)}px sans-serif`;
      for (let y = h / 10; y < h * 0.9; y += h / 25) {
        ctx.fillText(
          "CAFE NORD  2 x 3.20  6.40 EUR",
          w / 8,
          y,
        );
      }
      const blob = await c.convertToBlob({ type: "image/jpeg", quality: 0.92 });
      const bytes = new Uint8Array(await blob.arrayBuffer());
      let s = "";
      for (let i = 0; i < bytes.length; i += 0x8000) {
        s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      }
      return btoa(s);
    },
    width,
    height,
  );
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  await Deno.writeFile(path, bytes);
  return bytes.length;
}

/** The receipts the server holds for a transaction: name, type, bytes. */
async function receiptsOf(env: Env, txOid: string) {
  const uid = (await env.deps.store.users.byEmail(EMPLOYEE))!.oid;
  const tx = (await env.deps.store.transactions.get(uid, txOid)).value!;
  const docs = await env.deps.store.documents.byTransaction(uid, tx.authorizationId);
  return await Promise.all(
    docs.filter((d) => d.documentType === "receipt").map(async (d) => ({
      name: d.name,
      mimeType: d.mimeType,
      bytes: await new Response(env.deps.store.blobs.read(d.blob)).bytes(),
    })),
  );
}

/** The input that has the keyboard focus: its capture attribute and its label. */
const focused = (p: Page) =>
  p.evaluate(() => {
    const e = document.activeElement as HTMLInputElement | null;
    return e?.type === "file"
      ? { capture: e.getAttribute("capture"), accept: e.accept, label: e.labels?.[0]?.innerText }
      : null;
  });

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] capture: a purchase's push → "Add receipt" → PIN → "Take photo" focused → a 4000×3000 JPEG enhanced and sent; marker and block gone`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      const dir = await Deno.makeTempDir({ prefix: "qcard-capture-" });
      let page: Page | null = null;
      // Every IndexedDB write of both windows, checked at the end (at_rest.ts).
      const rest = new AtRestWatch();
      try {
        page = await env.newPage();
        await rest.watch(page);
        await activate(env, EMPLOYEE, PIN, page);
        const first = page;
        const ctx = first.browserContext();
        await ctx.overridePermissions(env.url, ["notifications"]);
        const { txOid, size } = await dumpOnFailure(first, async () => {
          await waitText(first, "No requests here");
          const h = await bearerOf(first, () => click(first, "Refresh"));
          const card = await cardFor(env, h);
          const b = await purchase(env, {
            card: card.oid,
            amount: "6.40",
            merchantName: "Cafe Nord",
          });
          return {
            txOid: b.transactionOid,
            size: await writeJpeg(first, `${dir}/photo.jpg`, 4000, 3000),
          };
        });
        // Eight days on, its receipt is overdue: marked, and new requests are blocked.
        const now = env.deps.now;
        env.deps.now = () => now() + 8 * DAY;
        // The push the server makes for that purchase (server/push/notify.ts), as delivered.
        const uid = (await env.deps.store.users.byEmail(EMPLOYEE))!.oid;
        // Its receipt reminder is due (RECEIPT_REMINDER_HOURS after capture).
        const reminder = async () =>
          reminderDueAt(
            (await env.deps.store.transactions.get(uid, txOid)).value!,
            env.deps.config.RECEIPT_REMINDER_HOURS,
            env.deps.now(),
          );
        assert.notEqual(await reminder(), null);
        const [notice] = await noticesFor(env.deps, {
          type: "card.purchase",
          userOid: uid,
          transactionOid: txOid,
          approved: true,
        });
        const sw = await serviceWorker(env, ctx);
        await rest.settle(first);
        await first.close();
        page = null;
        await until("the closed window to leave", async () => (await sw.windows()) === 0);
        await sw.deliver(JSON.stringify(notice.payload));
        const [shown] = await until("the notification", async () => {
          const l = await sw.notifications();
          return l.length ? l : null;
        });
        assert.equal(shown.title, "Card payment authorised");
        assert.deepEqual(shown.actions, [{ action: "receipt", title: "Add receipt" }]);
        const link = `${env.url}/?open=transaction:${txOid}:receipt`;
        assert.deepEqual(await sw.click(shown.tag, "receipt"), [link]);

        page = await ctx.newPage();
        const p = page;
        await rest.watch(p);
        await p.setViewport({ width: 360, height: 640, isMobile: true, hasTouch: true });
        await dumpOnFailure(p, async () => {
          await p.goto(link);
          await waitText(p, "Enter your PIN");
          await tapDigits(p, PIN);
          await waitInTopPanel(p, "Cafe Nord");
          await waitInTopPanel(p, "Receipt overdue");
          // The first tap after the PIN is the camera: "Take photo" has the focus.
          const f = await until("Take photo to take the focus", () => focused(p));
          assert.deepEqual(f, {
            capture: "environment",
            accept: "image/jpeg,image/png,application/pdf",
            label: "Take photo",
          });
          const input = await p.evaluateHandle(() => document.activeElement as HTMLInputElement);
          await input.uploadFile(`${dir}/photo.jpg`);
          await p.waitForSelector(".capture-pages img[alt='Page 1']");
          assert.equal(await p.$eval(".capture input[type=checkbox]", (e) => e.checked), true);
          await inTopPanel(p, "Send receipt");
          await waitInTopPanel(p, "Receipts (1)");
          await p.waitForFunction(() =>
            !document.querySelector(".side-panel.open")?.textContent?.includes("Receipt overdue")
          );
          const [r] = await receiptsOf(env, txOid);
          assert.equal(r.mimeType, "image/jpeg");
          assert.ok(r.bytes.length < size / 2, `${r.bytes.length} B sent of ${size} B taken`);
          // The marker and the block are gone.
          await closeAll(p);
          await mainTab(p, "Transactions");
          await p.waitForSelector(".tx-row");
          await p.waitForFunction(() => !document.querySelector(".tx-row .attention-marker"));
          await mainTab(p, "Requests");
          await click(p, "New request");
          await waitInTopPanel(p, "Purpose");
          assert.ok(!(await p.content()).includes(BLOCK));
          // The reminder for it is cancelled: nothing due, nothing pushed or mailed.
          assert.equal(await reminder(), null);
          assert.deepEqual(await runReminders(env.deps), { pushed: 0, mailed: 0 });
          // Neither the photo nor its name was ever stored in clear.
          await rest.check(p, PIN);
        });
      } finally {
        await env.close();
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    },
  });

  Deno.test({
    name:
      `[e2e:${flavour}] capture: offline, two photos become one PDF receipt kept encrypted in the queue, the transaction marked "Receipt pending upload", sent once online`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      const dir = await Deno.makeTempDir({ prefix: "qcard-capture-" });
      let page: Page | null = null;
      // Every IndexedDB write from the first document on, checked (at_rest.ts).
      const rest = new AtRestWatch();
      try {
        page = await env.newPage();
        await rest.watch(page);
        await activate(env, EMPLOYEE, PIN, page);
        const p = page;
        await dumpOnFailure(p, async () => {
          await waitText(p, "No requests here");
          const h = await bearerOf(p, () => click(p, "Refresh"));
          const card = await cardFor(env, h);
          const b = await purchase(env, {
            card: card.oid,
            amount: "84",
            merchantName: "Bistro Long",
          });
          await writeJpeg(p, `${dir}/p1.jpg`, 1200, 1600);
          await writeJpeg(p, `${dir}/p2.jpg`, 1200, 1400);
          await click(p, "Refresh");
          await mainTab(p, "Transactions");
          await p.locator("::-p-text(Bistro Long)").click();
          await waitInTopPanel(p, "Receipts (0)");

          await p.setOfflineMode(true);
          await (await fileInput(p, "Take photo")).uploadFile(`${dir}/p1.jpg`);
          await p.waitForSelector(".capture-pages img[alt='Page 1']");
          await (await fileInput(p, "Add page")).uploadFile(`${dir}/p2.jpg`);
          await p.waitForSelector(".capture-pages img[alt='Page 2']");
          // Enhance is on, and undone with one tap before sending (the pages as shot).
          const srcs = () =>
            p.$$eval(".capture-pages img", (l) => l.map((e) => e.getAttribute("src")));
          const enhanced = await srcs();
          await inTopPanel(p, "Enhance");
          await p.waitForFunction(() =>
            !document.querySelector<HTMLInputElement>(".capture input[type=checkbox]")!.checked
          );
          const plain = await srcs();
          assert.ok(plain.every((s, i) => s !== enhanced[i]), "the pages as shot are shown");
          await inTopPanel(p, "Enhance");
          await p.waitForFunction(() =>
            document.querySelector<HTMLInputElement>(".capture input[type=checkbox]")!.checked
          );
          assert.deepEqual(await srcs(), enhanced);
          await expectAccessible(p, "a receipt of two photographed pages");
          await expectNoSideScroll(p, "a receipt of two photographed pages");
          await inTopPanel(p, "Send receipt");
          await waitInTopPanel(p, "Receipt pending upload");
          await closeAll(p);
          await p.waitForFunction(() =>
            document.querySelector(".tx-row .pending-marker")?.textContent ===
              "Receipt pending upload"
          );
          // Nothing reached the server, and nothing lay in clear in IndexedDB at any write: every
          // record is a blob that opens under the device's key, with no name in clear. Opened,
          // the queue holds the write (its name) and its file: the PDF.
          assert.deepEqual(await receiptsOf(env, b.transactionOid), []);
          const queued = (await rest.check(p, PIN)).filter((o) => o.key.startsWith("outq"));
          assert.equal(queued.length, 2, "the write and its file");
          const [write, file] = ["outq:", "outqf:"].map((k) =>
            queued.find((o) => o.key.startsWith(k))?.value as Record<string, unknown>
          );
          assert.match(String(write?.label), /^receipt-.*\.pdf$/);
          assert.equal(file?.type, "application/pdf");
          assert.match(String(file?.file), /^JVBERi0/, "the file sealed is the PDF (%PDF-)");

          await p.setOfflineMode(false);
          await p.waitForFunction(() => !document.querySelector(".tx-row .pending-marker"));
          const [r] = await until("the receipt on the server", async () => {
            const l = await receiptsOf(env, b.transactionOid);
            return l.length ? l : null;
          });
          assert.equal(r.mimeType, "application/pdf");
          assert.match(r.name, /^receipt-.*\.pdf$/);
          const text = new TextDecoder("latin1").decode(r.bytes);
          assert.equal(text.match(/\/Type \/Page /g)?.length, 2);
          assert.equal(text.match(/\/Filter \/DCTDecode/g)?.length, 2);
          // Sent: the queue is empty, and what the replay wrote was sealed too.
          const left = (await rest.check(p, PIN)).filter((o) => o.key.startsWith("outq"));
          assert.deepEqual(left, []);
        });
      } finally {
        await env.close();
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    },
  });
}
