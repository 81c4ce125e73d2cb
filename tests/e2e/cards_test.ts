/**
 * Virtual cards end to end (spec §2 Card detail, §4 Card), in both flavours, at 360×640: employee@
 * gets a request accepted, taps Generate card; the 3-D Secure panel opens first (Save disabled
 * until valid, a wrong PIN marked invalid, the PIN from the SMS outbox), then generation continues
 * with its progress and the card is listed under Wallet/Active. The card is revealed (a 16-digit
 * Luhn-valid number and a CVC, a visible countdown, copy), masked again after the real 30 s,
 * blocked (Unblock card only) and unblocked, then ended (listed under Closed). After the mask, no
 * card number or CVC is left in the DOM, QCDB, Cache Storage, cookies or storage. A second card,
 * generated with no detour, is cancelled; the stored 3-D Secure password shows for 10 s from the
 * main menu; a failed card fetch falls back to the obfuscated card, then (offline) to the cached,
 * masked card.
 */
import assert from "node:assert/strict";
import type { HTTPRequest, Page } from "puppeteer-core";
import { activate, click, dumpOnFailure, FLAVOURS, start, waitText } from "./harness.ts";
import {
  backOut,
  fill,
  inTopPanel,
  mainTab,
  opts,
  panelsClosed,
  topPanelText,
  waitInTopPanel,
} from "./panels.ts";
import { expectAccessible } from "./a11y.ts";
import { luhnValid } from "../../server/issuer/pan.ts";
import { assertNoCardData, badge, cvcMentions, face, luhnNumbers, pageData } from "./card_scan.ts";
import { CARD_REVEAL_MS, PASSWORD_REVEAL_MS } from "../../client/lib/cards.ts";
import { PASSWORD_PLACEHOLDER } from "../../client/shared/secure_rules.ts";
import {
  accept,
  createRequest,
  EMPLOYEE,
  isDisabled,
  openPanels,
  openRow,
  panelButtons,
  PASSWORD,
  PHONE,
  shot,
} from "./cards_steps.ts";

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] cards: generate through the 3-D Secure setup, wallet, reveal 30 s then masked, block/unblock, end card; card-data scan; cancel; password 10 s; fetch fallbacks`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      let page: Page | null = null;
      try {
        page = await activate(env, EMPLOYEE);
        const p = page;
        await p.browserContext().overridePermissions(env.url, [
          "clipboard-read",
          "clipboard-write",
          "clipboard-sanitized-write",
        ]);
        await dumpOnFailure(p, async () => {
          await waitText(p, "No requests here");
          await createRequest(p, "Client visit in Lyon", "320.5", "€320.50");
          await accept(env, "R000001");
          await mainTab(p, "Wallet");
          await waitText(p, "No cards here");
          await mainTab(p, "Requests");
          await click(p, "Refresh");
          await mainTab(p, "Accepted");
          await openRow(p, "Client visit in Lyon");
          await waitInTopPanel(p, "Request R000001");
          await waitInTopPanel(p, "Generate card");
          await inTopPanel(p, "More actions");
          assert.ok((await panelButtons(p)).includes("Set up 3-D Secure"));
          await inTopPanel(p, "More actions");

          // Generate card: 3-D Secure is not defined, so its panel opens first (spec §6).
          await inTopPanel(p, "Generate card");
          await p.waitForFunction(() => document.querySelectorAll(".side-panel.open").length === 2);
          await waitInTopPanel(p, "3-D Secure password");
          assert.equal(await isDisabled(p, "Save"), true, "Save before anything is filled");
          await fill(p, "3-D Secure password", "abc");
          await fill(p, "Mobile phone", PHONE.number);
          assert.equal(await isDisabled(p, "Save"), true, "a 3-letter password");
          await fill(p, "3-D Secure password", PASSWORD);
          await fill(p, "Country prefix", PHONE.prefix);
          assert.equal(await isDisabled(p, "Save"), false);
          const pwType = await p.$eval(
            ".side-panel.open .secure-form input[autocomplete=new-password]",
            (e) => (e as HTMLInputElement).type,
          );
          assert.equal(pwType, "password");
          // spec §8: a failed save is the alert 'Something went wrong' and the loading ends.
          await p.setOfflineMode(true);
          await inTopPanel(p, "Save");
          await p.locator(".confirm ::-p-aria(OK)").wait();
          assert.match(
            await p.$eval(".confirm", (e) => (e as HTMLElement).innerText),
            /^Something went wrong/,
          );
          await p.locator(".confirm ::-p-aria(OK)").click();
          await p.setOfflineMode(false);
          await p.waitForFunction(() => !document.querySelector(".confirm"));
          assert.equal(await isDisabled(p, "Save"), false, "the loading ended");
          await inTopPanel(p, "Save");
          await waitInTopPanel(p, "We sent you a 4-digit PIN");
          assert.equal(await isDisabled(p, "Save"), true, "Save while the PIN is empty");
          await shot(p, `${flavour}-secure-pin`);
          const pin = await env.latestSecurePin(`${PHONE.prefix}${PHONE.number}`);
          // A wrong PIN: the field is marked invalid, with a shake (spec §8).
          await fill(p, "PIN", pin === "0000" ? "1111" : "0000");
          await inTopPanel(p, "Save");
          await waitInTopPanel(p, "Wrong PIN: 2 tries left");
          assert.deepEqual(
            await p.$eval(".side-panel.open .pin-input", (e) => ({
              invalid: e.getAttribute("aria-invalid"),
              shake: e.classList.contains("shake"),
            })),
            { invalid: "true", shake: true },
          );
          await fill(p, "PIN", pin);
          await p.evaluate(() => {
            // Did the blocking progress show? (It may be brief.)
            const w = window as unknown as { progressSeen: boolean };
            w.progressSeen = false;
            new MutationObserver(() => {
              if (document.querySelector(".progress-box")) w.progressSeen = true;
            }).observe(document.body, { childList: true, subtree: true });
          });
          await inTopPanel(p, "Save");
          // pinOk: the panel closes, the 'saved' confirm shows, then generation continues.
          await waitText(p, "3-D Secure settings saved");
          await p.locator(".confirm ::-p-aria(OK)").click();
          await p.waitForFunction(() =>
            document.querySelector(".side-panel.open .card-face") !== null
          );
          await waitInTopPanel(p, "Card R000001");
          assert.equal(
            await p.evaluate(() => (window as unknown as { progressSeen: boolean }).progressSeen),
            true,
            "generation showed its progress",
          );
          await waitText(p, "Your card is ready");
          let f = await face(p);
          assert.match(f.number!, /^•••• •••• •••• \d{4}$/);
          const last4 = f.number!.slice(-4);
          assert.equal(f.cvc, "•••");
          assert.match(f.expiry!, /^(0[1-9]|1[0-2])\/\d{2}$/);
          assert.equal(f.holder, "EMMA LAURENT");
          assert.equal(f.brand, "Visa");
          assert.equal(await badge(p), "Active");
          const text = await topPanelText(p);
          for (
            const s of [
              "Available",
              "€320.50",
              "Allocated",
              "Active until",
              "Validity",
              "90 days",
              "R000001",
              "Client visit in Lyon",
              "Accepted",
              "Comments",
            ]
          ) assert.ok(text.includes(s), `card detail lacks '${s}':\n${text}`);
          await shot(p, `${flavour}-card`);

          // Listed under Wallet/Active (generation chose that filter).
          await backOut(p);
          await panelsClosed(p, 1);
          await backOut(p);
          await panelsClosed(p);
          await mainTab(p, "Wallet");
          await p.waitForFunction(() =>
            document.querySelector(".wallet-tab .tab.active")?.textContent === "Active"
          );
          await waitText(p, "Client visit in Lyon");
          await shot(p, `${flavour}-wallet`);
          await expectAccessible(p, "wallet");

          // Reveal: number and CVC for 30 s with a visible countdown, then masked again.
          await openRow(p, "Client visit in Lyon");
          await waitInTopPanel(p, "Show card details");
          await expectAccessible(p, "card detail");
          await inTopPanel(p, "Show card details");
          await p.waitForFunction(() =>
            /\d{4} \d{4}/.test(
              document.querySelector(".side-panel.open .card-number")?.textContent ?? "",
            )
          );
          const revealedAt = Date.now();
          await waitInTopPanel(p, "Hidden again in");
          f = await face(p);
          const pan = f.number!.replace(/ /g, "");
          assert.match(f.number!, /^\d{4} \d{4} \d{4} \d{4}$/);
          assert.ok(luhnValid(pan), "the revealed number passes Luhn");
          assert.equal(pan.slice(-4), last4);
          assert.match(f.cvc!, /^\d{3}$/);
          const cvc = f.cvc!;
          // The countdown started at the reveal: what it says matches the time since then.
          const says = await p.$eval(
            ".side-panel.open .countdown",
            (e) => (e as HTMLElement).innerText,
          );
          const shown = Number(/^Hidden again in (\d+) s$/.exec(says)?.[1]);
          const since = Math.ceil((Date.now() - revealedAt) / 1000);
          assert.ok(
            shown <= 30 && shown >= 30 - since - 1,
            `"${says}" ${since} s after the reveal`,
          );
          await shot(p, `${flavour}-card-revealed`);
          // The scan sees a revealed number (so its silence after the mask means something).
          const during = await pageData(p);
          assert.deepEqual(luhnNumbers(during.dom).slice(0, 1), [pan]);
          assert.ok(cvcMentions(`CVC ${cvc}`, cvc).length === 1);
          // Copy: the number on the clipboard, and a word that says so.
          await inTopPanel(p, "Copy number");
          await waitText(p, "Card number copied");
          assert.equal(await p.evaluate(() => navigator.clipboard.readText()), pan);
          // The CVC and the expiry can be copied too.
          await inTopPanel(p, "Copy CVC");
          await waitText(p, "CVC copied");
          assert.equal(await p.evaluate(() => navigator.clipboard.readText()), cvc);
          await inTopPanel(p, "Copy expiry");
          await waitText(p, "Expiry date copied");
          assert.match(await p.evaluate(() => navigator.clipboard.readText()), /^\d\d\/\d\d$/);
          await p.evaluate(() => navigator.clipboard.writeText(""));
          await p.waitForFunction(
            () =>
              /in (2[0-7]|1\d|\d) s$/.test(
                (document.querySelector(".side-panel.open .countdown") as HTMLElement | null)
                  ?.innerText ?? "",
              ),
            { timeout: 10_000 },
          );
          await p.waitForFunction(
            () => !document.querySelector(".side-panel.open .countdown"),
            { timeout: CARD_REVEAL_MS + 5_000 },
          );
          const shownFor = Date.now() - revealedAt;
          assert.ok(shownFor >= CARD_REVEAL_MS - 1_500, `masked after ${shownFor} ms`);
          assert.equal((await face(p)).number, `•••• •••• •••• ${last4}`);

          // The card-data scan: nothing of the reveal is left anywhere the page keeps data.
          await assertNoCardData(p, pan, cvc);

          // Block: blocked, Unblock card only; then active again.
          await inTopPanel(p, "More actions");
          await inTopPanel(p, "Block card");
          await p.waitForFunction(() =>
            document.querySelector(".side-panel.open .detail-head .status")?.textContent ===
              "Blocked"
          );
          await waitText(p, "Card blocked");
          assert.deepEqual(
            (await panelButtons(p)).filter((b) =>
              ["Show card details", "Block card", "Unblock card", "More actions"].includes(b)
            ),
            ["Unblock card"],
          );
          await backOut(p);
          await panelsClosed(p);
          // Blocked: listed under Open in the 'not active' style, not under Active.
          await waitText(p, "No cards here");
          await mainTab(p, "Open");
          await waitText(p, "Client visit in Lyon");
          assert.equal(await p.$$eval(".card-row.not-active", (l) => l.length), 1);
          await openRow(p, "Client visit in Lyon");
          await inTopPanel(p, "Unblock card");
          await p.waitForFunction(() =>
            document.querySelector(".side-panel.open .detail-head .status")?.textContent ===
              "Active"
          );
          // A panel closed while revealed takes the number with it, at once.
          await inTopPanel(p, "Show card details");
          await waitInTopPanel(p, "Hidden again in");
          await backOut(p);
          await panelsClosed(p);
          await openRow(p, "Client visit in Lyon");
          assert.equal((await face(p)).number, `•••• •••• •••• ${last4}`);
          assert.equal(await p.$(".side-panel.open .countdown"), null);
          assert.deepEqual(luhnNumbers((await pageData(p)).dom), []);

          // Close the card (its request is closed): Closed, no actions, listed under Closed.
          await inTopPanel(p, "More actions");
          await inTopPanel(p, "End card");
          // The confirm's button says the verb.
          await waitText(p, "End this card?");
          await p.locator(".confirm ::-p-aria(End card)").click();
          await p.waitForFunction(() =>
            document.querySelector(".side-panel.open .detail-head .status")?.textContent ===
              "Closed"
          );
          assert.deepEqual(
            (await panelButtons(p)).filter((b) =>
              ["Show card details", "Block card", "Unblock card", "More actions"].includes(b)
            ),
            [],
          );
          assert.equal((await face(p)).cvc, null, "no CVC slot on a closed card");
          // Nothing "available" on a closed card.
          assert.ok((await topPanelText(p)).includes("Nothing: the card is closed"));
          await shot(p, `${flavour}-card-closed`);
          await backOut(p);
          await panelsClosed(p);
          await p.waitForFunction(() =>
            document.querySelector(".wallet-tab .tab.active")?.textContent === "Closed"
          );
          await waitText(p, "Client visit in Lyon");
          await mainTab(p, "Active");
          await waitText(p, "No cards here");

          // A second card, 3-D Secure now defined: generated at once, then cancelled.
          await mainTab(p, "Requests");
          await mainTab(p, "New");
          await createRequest(p, "Taxi to the airport", "45", "€45.00");
          await accept(env, "R000002");
          await click(p, "Refresh");
          await mainTab(p, "Accepted");
          await openRow(p, "Taxi to the airport");
          await inTopPanel(p, "Generate card");
          await waitInTopPanel(p, "Card R000002");
          assert.equal(await openPanels(p), 2, "no 3-D Secure detour");
          await inTopPanel(p, "More actions");
          await inTopPanel(p, "Cancel request");
          await waitText(p, "Cancel this card's request?");
          await p.locator(".confirm ::-p-aria(Cancel request)").click();
          await p.waitForFunction(() =>
            document.querySelector(".side-panel.open .detail-head .status")?.textContent ===
              "Closed"
          );
          await waitInTopPanel(p, "Cancelled");
          await backOut(p);
          await panelsClosed(p, 1);
          await waitInTopPanel(p, "View card");
          assert.ok(!(await panelButtons(p)).includes("Generate card"));
          await backOut(p);
          await panelsClosed(p);

          // Main menu → 3-D Secure settings: the stored password is a placeholder, shown 10 s.
          await click(p, "Open menu");
          await click(p, "3-D Secure settings");
          await waitInTopPanel(p, "Show password");
          assert.equal(
            await p.$eval(
              ".side-panel.open .secure-form input[type=password]",
              (e) => (e as HTMLInputElement).value,
            ),
            PASSWORD_PLACEHOLDER,
          );
          assert.equal(await isDisabled(p, "Save"), false);
          await inTopPanel(p, "Show password");
          await waitInTopPanel(p, PASSWORD);
          const shownAt = Date.now();
          await waitInTopPanel(p, "Hidden again in");
          await p.waitForFunction(
            (pw) => !document.body.innerHTML.includes(pw),
            { timeout: PASSWORD_REVEAL_MS + 5_000 },
            PASSWORD,
          );
          assert.ok(Date.now() - shownAt >= PASSWORD_REVEAL_MS - 1_500);
          await backOut(p);
          await panelsClosed(p);

          // spec §8: a failed card fetch → the obfuscated card; offline → the cached card.
          await mainTab(p, "Wallet");
          await mainTab(p, "Closed");
          await p.setRequestInterception(true);
          const failCard = (r: HTTPRequest) =>
            r.url().includes("/pwaexpensecard?")
              ? r.respond({
                status: 503,
                contentType: "application/json",
                body: JSON.stringify({ error: "unavailable", message: "Issuer unavailable" }),
              })
              : r.continue();
          p.on("request", failCard);
          await openRow(p, "Client visit in Lyon");
          await waitInTopPanel(p, "showing its masked details");
          assert.equal((await face(p)).number, `•••• •••• •••• ${last4}`);
          assert.equal(await badge(p), "Closed");
          await backOut(p);
          await panelsClosed(p);
          p.off("request", failCard);
          await p.setRequestInterception(false);
          await p.setOfflineMode(true);
          await openRow(p, "Client visit in Lyon");
          await waitInTopPanel(p, "showing saved details");
          assert.equal((await face(p)).number, `•••• •••• •••• ${last4}`);
          await backOut(p);
          await panelsClosed(p);
          await p.setOfflineMode(false);
          await assertNoCardData(p, pan, cvc);
        });
      } finally {
        await env.close();
      }
    },
  });
}
