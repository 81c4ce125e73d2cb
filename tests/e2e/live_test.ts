/**
 * The change channel end to end, in both flavours: what another person or the server changes
 * is painted on the open screen without a reload, a pull or the header's refresh. Two people
 * on their own browser profiles (employee@, the card holder and requester; approver@, Finance):
 * - a purchase at the issuer shows on the holder's open Transactions tab;
 * - a request submitted elsewhere shows on the requester's open Requests list and on the
 *   approver's open Approvals list; approved in the approver's page, it leaves the requester's
 *   Pending list and is under Accepted, with that status;
 * - the stream dropped (offline, then hidden) and resumed: what changed meanwhile shows, and
 *   the stream opens again from its cursor;
 * - a locked app opens no stream (not on becoming visible, nor on the network's return) and
 *   opens one again once unlocked with the PIN.
 * No answer to the stream is ever anything but 200.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
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
import { mainTab, opts } from "./panels.ts";
import { cardFor, postAs, purchase } from "./transactions_setup.ts";
import { DEMO } from "../helpers.ts";
import { streamStats } from "../../server/routes/changes.ts";
import {
  approveRow,
  cursorOf,
  hasRow,
  LIVE_MS,
  PIN,
  REQ,
  rowPainted,
  setHidden,
  settledCursor,
  sleep,
  StreamLog,
  TX,
  until,
  watchStreams,
} from "./live_watch.ts";

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] live lists: a purchase on the open Transactions tab, a decision on the requester's open list, no change lost across offline and hidden, no stream while locked`,
    ...opts,
    fn: async (t) => {
      // Streams the server holds open (the system of record's, in relay mode too).
      const base = streamStats.open;
      const env: Env = await start(flavour);
      const timings: string[] = [];
      const took = (what: string, ms: number) => {
        timings.push(`${what}: ${ms} ms`);
        console.log(`[live:${flavour}${env.relay ? ", relay" : ""}] ${what}: ${ms} ms`);
      };
      let emp: Page | null = null;
      let fin: Page | null = null;
      const logs: StreamLog[] = [];
      /** The server ends a stream the page ended: it holds as many as the pages have open. */
      const serverHoldsPages = () =>
        until(
          "the server to hold as many streams as the pages",
          () => streamStats.open - base === logs.reduce((n, l) => n + l.open(), 0),
        );
      try {
        emp = await env.newPage();
        const empLog = watchStreams(emp, "employee");
        logs.push(empLog);
        const e = emp;
        await activate(env, DEMO.employee, PIN, e);
        // The stream opens at unlock: its bearer is the page's, no refresh needed.
        await until("the employee's stream", () => empLog.opened.length > 0);
        const h = empLog.bearer();
        // A card (its request accepted through the server's decision) and, with it, an open
        // Finance approval: approver@ lands in approval mode.
        const card = await cardFor(env, h);

        fin = await env.newPage();
        const finLog = watchStreams(fin, "approver");
        logs.push(finLog);
        const f = fin;
        await activate(env, DEMO.approver, PIN, f);
        await f.locator("::-p-aria(Approvals)").wait();
        await f.waitForFunction(() => document.documentElement.dataset.mode === "approval");
        await until("the approver's stream", () => finLog.opened.length > 0);

        const ok1 = await t.step("a purchase shows on the open Transactions tab", async () => {
          await dumpOnFailure(e, async () => {
            await mainTab(e, "Transactions");
            await waitText(e, "No transactions yet");
            // The first batch of the stream has come (its cursor is kept): it is listening.
            await e.waitForFunction(() => !!localStorage.getItem("qc_changes"));
            const at = Date.now();
            assert.equal(
              (await purchase(env, {
                card: card.oid,
                amount: "42.50",
                merchantName: "Boulangerie Paul",
              })).approved,
              true,
            );
            took(
              "purchase → row on the Transactions tab",
              await rowPainted(e, TX, "Boulangerie", at),
            );
            assert.ok(await hasRow(e, TX, "€42.50"));
          });
        });

        const ok2 = await t.step("a decision shows on the requester's open list", async () => {
          await dumpOnFailure(e, async () => {
            await mainTab(e, "Requests");
            await e.locator(`::-p-aria([name="New"][role="tab"])`).click();
            // Submitted from elsewhere (the API, as another device would): painted on the
            // requester's open list and on the approver's open Approvals list.
            const at = Date.now();
            const { expenseRequest } = await postAs(env, h, "pwaexpenserequestcreate", {
              expenseRequest: {
                typeOid: "type-travel",
                amount: 120,
                purpose: "Taxi to the airport",
                costCenterOid: "cc-sales",
              },
            });
            await postAs(env, h, "pwasubmit", { record: expenseRequest.oid });
            took(
              "request submitted elsewhere → requester's New list",
              await rowPainted(e, REQ, "Taxi to the airport", at),
            );
            await dumpOnFailure(f, async () => {
              took(
                "request submitted → approver's open Approvals list",
                await rowPainted(f, ".request-row", "Taxi to the airport", at),
              );
              // One level (travel up to 250): approver@'s approval accepts the request. The
              // requester's list is watched from before the tap.
              const gone = e.waitForFunction(
                (sel) =>
                  ![...document.querySelectorAll(sel)].some((r) =>
                    (r as HTMLElement).innerText.includes("Taxi to the airport")
                  ),
                { timeout: 60_000 },
                REQ,
              ).then(() => Date.now());
              gone.catch(() => {});
              const approvedAt = await approveRow(
                f,
                "Taxi to the airport",
                "Travel: Taxi to the airport [120.00 EUR]",
                "Taxi to the airport (€120.00)",
              );
              // Accepted: it leaves the requester's New list by itself…
              const goneAt = await Promise.race([
                gone,
                sleep(LIVE_MS).then(() => {
                  throw new Error("still on the requester's New list 10 s after the approval");
                }),
              ]);
              // Below zero when the requester's list changed before the approver's own notice.
              took(
                "approver's 'Approved' notice → gone from the requester's New list",
                goneAt - approvedAt,
              );
            });
            // …and is under Accepted, with that status (a sub-filter: no read of the network).
            await e.locator(`::-p-aria([name="Accepted"][role="tab"])`).click();
            await rowPainted(e, REQ, "Taxi to the airport", Date.now(), 2_000);
            const row = await e.$$eval(
              REQ,
              (l) =>
                l.map((r) => (r as HTMLElement).innerText).find((x) =>
                  x.includes("Taxi to the airport")
                ),
            );
            assert.match(row ?? "", /Accepted/);
            await e.locator(`::-p-aria([name="New"][role="tab"])`).click();
          });
        });

        const ok3 = await t.step(
          "offline, then back online: the change made meanwhile shows",
          async () => {
            await dumpOnFailure(e, async () => {
              await mainTab(e, "Transactions");
              await until("a stream open before going offline", () => empLog.open() === 1);
              const before = empLog.opened.length;
              await e.setOfflineMode(true);
              // The app ends its stream when the network goes.
              await until("the stream to end offline", () => empLog.open() === 0);
              await serverHoldsPages();
              const cursor = await settledCursor(e);
              assert.ok(cursor, "a cursor is kept to resume from");
              await purchase(env, { card: card.oid, amount: "18", merchantName: "Café de Flore" });
              await sleep(1_500);
              assert.equal(await hasRow(e, TX, "Café de Flore"), false, "painted while offline?");
              const whileOffline = empLog.opened.slice(before);
              assert.equal(
                whileOffline.length,
                0,
                `stream requests while offline:\n${empLog.print()}`,
              );
              const at = Date.now();
              await e.setOfflineMode(false);
              took(
                "back online → the purchase made offline on the Transactions tab",
                await rowPainted(e, TX, "Café de Flore", at),
              );
              // The stream is open again, from the cursor it had (no change skipped).
              await until("the stream to reopen online", () => empLog.open() === 1);
              const resumed = empLog.opened[empLog.opened.length - 1];
              assert.equal(cursorOf(resumed.url), cursor, empLog.print());
              // And it is live again: a purchase now shows as it is made.
              const at2 = Date.now();
              await purchase(env, {
                card: card.oid,
                amount: "9.90",
                merchantName: "Pharmacie Lafayette",
              });
              took(
                "purchase after the stream resumed online → row",
                await rowPainted(e, TX, "Pharmacie Lafayette", at2),
              );
            });
          },
        );

        const ok3b = await t.step("hidden, then shown: resumed from its cursor", async () => {
          // Only the stream reads the lists again on showing (the network's return also reads
          // every list): what shows here came through the resumed stream.
          await dumpOnFailure(e, async () => {
            await until("a stream open before hiding", () => empLog.open() === 1);
            const before = empLog.opened.length;
            await setHidden(e, true);
            await until("the stream to end when hidden", () => empLog.open() === 0);
            await serverHoldsPages();
            const cursor = await settledCursor(e);
            await purchase(env, { card: card.oid, amount: "31", merchantName: "Musée du Louvre" });
            await sleep(1_500);
            assert.equal(await hasRow(e, TX, "Musée du Louvre"), false, "painted while hidden?");
            assert.equal(
              empLog.opened.length,
              before,
              `stream requests while hidden:\n${empLog.print()}`,
            );
            const at = Date.now();
            await setHidden(e, false);
            took(
              "shown again → the purchase made while hidden",
              await rowPainted(e, TX, "Musée du Louvre", at),
            );
            const resumed = empLog.opened[empLog.opened.length - 1];
            assert.equal(empLog.opened.length, before + 1, empLog.print());
            assert.equal(cursorOf(resumed.url), cursor, empLog.print());
          });
        });

        const ok4 = await t.step("locked: no stream; unlocked: one again", async () => {
          await dumpOnFailure(e, async () => {
            await until("a stream open before locking", () => empLog.open() === 1);
            await click(e, "Open menu");
            await click(e, "Lock");
            await waitText(e, "Enter your PIN");
            await until("the stream to end at lock", () => empLog.open() === 0);
            await serverHoldsPages();
            const before = empLog.opened.length;
            const lockedAt = Date.now();
            // What reopens a stream when unlocked must not while locked.
            await setHidden(e, true);
            await sleep(300);
            await setHidden(e, false);
            await e.setOfflineMode(true);
            await sleep(300);
            await e.setOfflineMode(false);
            await purchase(env, {
              card: card.oid,
              amount: "12",
              merchantName: "Boucherie Moderne",
            });
            await sleep(Math.max(0, 3_500 - (Date.now() - lockedAt)));
            assert.equal(
              empLog.opened.length,
              before,
              `stream requests while locked:\n${empLog.print()}`,
            );
            const pinAt = Date.now();
            await tapDigits(e, PIN);
            await e.locator("::-p-aria(Open menu)").wait();
            const unlockedAt = Date.now();
            await until("a stream after unlock", () => empLog.opened.length > before);
            took("PIN typed → stream request", empLog.opened[before].at - pinAt);
            await until("the stream open after unlock", () => empLog.open() === 1);
            // The purchase made while locked is read with the lists at unlock; one made now
            // comes through the new stream.
            await mainTab(e, "Transactions");
            await rowPainted(e, TX, "Boucherie Moderne", Date.now());
            // The first batch of the new stream has come: from now on nothing is missed.
            await e.waitForFunction(
              (c) => JSON.parse(localStorage.getItem("qc_changes") ?? "{}").at > c,
              {},
              unlockedAt - 1_000,
            );
            const at = Date.now();
            await purchase(env, {
              card: card.oid,
              amount: "23.40",
              merchantName: "Fromagerie Quatrehomme",
            });
            took(
              "purchase after unlock → row",
              await rowPainted(e, TX, "Fromagerie Quatrehomme", at),
            );
          });
        });

        await serverHoldsPages();
        for (const l of logs) {
          console.log(`[live:${flavour}] ${l.name}'s stream requests:\n${l.print()}`);
        }
        // No answer to the stream is anything but 200.
        for (const l of logs) {
          assert.ok(l.statuses.length > 0, `${l.name}: no stream answered`);
          assert.deepEqual(
            l.statuses.filter((s) => s !== 200),
            [],
            `${l.name}'s stream answers:\n${l.print()}`,
          );
        }
        assert.ok(ok1 && ok2 && ok3 && ok3b && ok4, "a step failed");
      } finally {
        if (timings.length) console.log(`[live:${flavour}] timings:\n  ${timings.join("\n  ")}`);
        await env.close();
      }
    },
  });
}
