/**
 * The offline write queue end to end (spec §1 offline), in both flavours, at 360×640, on a browser
 * profile kept on disk: with the network off, two comments on a transaction, a receipt
 * upload and a receipt note show at once as pending and nothing reaches the server; the
 * queue in IndexedDB is encrypted. The browser is closed and started again on the same
 * profile, still offline: the PIN unlocks, the writes still wait. The network returns: the
 * comments and the receipt arrive exactly once; the note, on a transaction reviewed
 * meanwhile, is refused by the server and stays visible with its message until discarded.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import {
  click,
  definePin,
  diskProfile,
  dumpOnFailure,
  type Env,
  FLAVOURS,
  start,
  tapDigits,
  waitText,
} from "./harness.ts";
import {
  closeAll,
  fileInput,
  fill,
  inTopPanel,
  mainTab,
  named,
  opts,
  settled,
  tap,
} from "./panels.ts";
import { waitInTopPanel } from "./panels.ts";
import { bearerOf, cardFor, openTx, purchase } from "./transactions_setup.ts";
import { makePng } from "../fixtures/files.ts";
import { UPLOAD_PATH } from "../../client/shared/contract/documents.ts";

const EMPLOYEE = "employee@demo.example";
const PIN = "135790";
const REVIEWED_MESSAGE =
  "This transaction is reviewed: its receipts and documents can no longer be changed";

/** A receipt uploaded through the API as the page's user; its oid. */
async function uploadReceipt(env: Env, h: Record<string, string>, tx: string, name: string) {
  const form = new FormData();
  form.append("record", tx);
  form.append("documenttype", "receipt");
  form.append(
    "file",
    new Blob([makePng(40, 30) as Uint8Array<ArrayBuffer>], { type: "image/png" }),
    name,
  );
  const res = await fetch(`${env.url}/bonita${UPLOAD_PATH}`, {
    method: "POST",
    headers: h,
    body: form,
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.receipt.oid as string;
}

async function userOid(env: Env): Promise<string> {
  return (await env.deps.store.users.byEmail(EMPLOYEE))!.oid;
}

/** What the server holds for a transaction: its comments' texts and its receipts' names. */
async function serverSide(env: Env, txOid: string) {
  const uid = await userOid(env);
  const tx = (await env.deps.store.transactions.get(uid, txOid)).value!;
  const comments = (await env.deps.store.comments.bySource(txOid)).map((c) => c.text);
  const receipts = (await env.deps.store.documents.byTransaction(uid, tx.authorizationId))
    .filter((d) => d.documentType === "receipt").map((d) => d.name);
  return { comments: comments.sort(), receipts: receipts.sort() };
}

/** The text of the queued-writes strip on the main screen ('' when it is not shown). */
const stripText = (p: Page) =>
  p.evaluate(() =>
    (document.querySelector(".failed-writes") as HTMLElement | null)?.innerText ?? ""
  );

/** Every record of QCDB's lists store under outq: or outqf:, as stored. */
const storedQueue = (p: Page) =>
  p.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((res, rej) => {
      const r = indexedDB.open("QCDB");
      r.onsuccess = () => res(r.result);
      r.onerror = () => rej(r.error);
    });
    const all = await new Promise<{ key: string }[]>((res, rej) => {
      const r = db.transaction("lists").objectStore("lists").getAll();
      r.onsuccess = () => res(r.result);
      r.onerror = () => rej(r.error);
    });
    db.close();
    return all.filter((x) => x.key.startsWith("outq")).map((x) => JSON.stringify(x));
  });

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] offline queue: comments, a receipt and a note written offline are pending, survive closing the browser, arrive exactly once; a refused one stays with its message and is discarded`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      const profile = await diskProfile();
      const dir = await Deno.makeTempDir({ prefix: "qcard-outq-" });
      const photo = `${dir}/taxi.png`;
      await Deno.writeFile(photo, makePng(640, 480));
      let page: Page | null = null;
      let taxiOid = "";
      let hotelOid = "";
      try {
        page = await profile.open();
        let p = page;
        await dumpOnFailure(p, async () => {
          // Activation on the profile's own browser (env.newPage would use a throwaway one).
          await p.goto(env.url);
          await waitText(p, "Enter the 5-digit code");
          await tapDigits(p, await env.latestCode(EMPLOYEE));
          await click(p, "Connect device");
          await definePin(p, PIN);
          await p.locator("::-p-aria(Open menu)").wait();

          const h = await bearerOf(p, () => click(p, "Refresh"));
          const card = await cardFor(env, h);
          const taxi = await purchase(env, { card: card.oid, amount: "30", merchantName: "Taxi" });
          const hotel = await purchase(env, { card: card.oid, amount: "90", merchantName: "Inn" });
          taxiOid = taxi.transactionOid;
          hotelOid = hotel.transactionOid;
          assert.ok(await uploadReceipt(env, h, hotelOid, "hotel.png"));
          await click(p, "Refresh");
          await mainTab(p, "Transactions");

          // Both transactions seen once online, so their details are in the encrypted cache.
          await openTx(p, "Inn", { settle: true });
          await waitInTopPanel(p, "Receipts (1)");
          await closeAll(p);
          await openTx(p, "Taxi", { settle: true });
          await waitInTopPanel(p, "Receipts (0)");

          // Offline: two comments and a receipt, each pending at once.
          await p.setOfflineMode(true);
          await fill(p, "Add a comment", "Taxi from the station");
          await tap(p, "Send");
          await waitInTopPanel(p, "Taxi from the station");
          await fill(p, "Add a comment", "Shared with Adam");
          await tap(p, "Send");
          await waitInTopPanel(p, "Shared with Adam");
          const input = await fileInput(p, "Add receipt");
          await input.uploadFile(photo);
          await p.waitForFunction(() => {
            const panels = document.querySelectorAll(".side-panel.open");
            const list = panels[panels.length - 1]?.querySelectorAll(".receipts li.pending");
            return list?.length === 1 && list[0].textContent!.includes("taxi");
          });
          const pending = await p.$$eval(
            ".side-panel.open .pending",
            (els) => els.map((e) => (e as HTMLElement).innerText),
          );
          assert.equal(pending.length, 3, pending.join(" | "));
          for (const x of pending) assert.match(x, /Pending|Sending/);
          await closeAll(p);

          // A note on the hotel's receipt, offline too.
          await openTx(p, "Inn", { settle: true });
          await waitInTopPanel(p, "Receipts (1)");
          await inTopPanel(p, "Note for hotel.png");
          const note = await named(p, "Receipt note");
          await note.type("Two nights");
          await inTopPanel(p, "Save note");
          await waitInTopPanel(p, "Two nights");
          await closeAll(p);
          await waitText(p, "Changes waiting to be sent: 4");

          // Nothing reached the server; nothing of it is in clear in IndexedDB.
          assert.deepEqual(await serverSide(env, taxiOid), {
            comments: [],
            receipts: [],
          });
          const stored = await storedQueue(p);
          assert.equal(stored.length, 5, "four writes and one file");
          for (const s of stored) {
            for (const clear of ["Taxi from the station", "Shared with Adam", "Two nights"]) {
              assert.ok(!s.includes(clear), `${clear} stored in clear`);
            }
          }
        });

        // The browser is closed; meanwhile the hotel's transaction is reviewed elsewhere.
        await profile.close();
        const uid = await userOid(env);
        const entry = await env.deps.store.transactions.get(uid, hotelOid);
        const ok = await env.deps.store.transactions
          .put(env.deps.store.kv.atomic().check(entry), { ...entry.value!, reviewed: true })
          .commit();
        assert.ok(ok.ok);

        // Started again on the same profile, still offline: unlock, the writes still wait.
        page = await profile.open();
        p = page;
        await dumpOnFailure(p, async () => {
          await p.setOfflineMode(true);
          await p.goto(env.url);
          await waitText(p, "Enter your PIN");
          await tapDigits(p, PIN);
          await waitText(p, "Changes waiting to be sent: 4");
          assert.deepEqual((await serverSide(env, taxiOid)).comments, []);

          // The network returns: sent in order, once.
          await p.setOfflineMode(false);
          await p.waitForFunction(
            () => !document.body.innerText.includes("Changes waiting to be sent"),
            { timeout: 30_000 },
          );
          await waitText(p, REVIEWED_MESSAGE);
          const strip = await stripText(p);
          assert.match(strip, /Receipt note: Two nights/);
          assert.match(strip, new RegExp(`Not sent: ${REVIEWED_MESSAGE}`));
          assert.deepEqual(await serverSide(env, taxiOid), {
            comments: ["Shared with Adam", "Taxi from the station"],
            receipts: ["taxi.png"],
          });
          const hotelNote = (await env.deps.store.documents.byTransaction(
            uid,
            entry.value!.authorizationId,
          )).map((d) => d.note);
          assert.deepEqual(hotelNote, [""], "the refused note was not written");

          // The refused write is discarded by the person; a later sync sends nothing again.
          await click(p, "Discard Receipt note: Two nights");
          await p.waitForFunction(() => !document.querySelector(".failed-writes"));
          assert.deepEqual(await storedQueue(p), []);
          await click(p, "Refresh");
          await settled(p);
          assert.deepEqual(await serverSide(env, taxiOid), {
            comments: ["Shared with Adam", "Taxi from the station"],
            receipts: ["taxi.png"],
          });
        });
      } finally {
        await profile.remove();
        await env.close();
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    },
  });
}
