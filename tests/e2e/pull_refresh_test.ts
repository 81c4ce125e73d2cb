import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { createRequest } from "../../server/domain/request_create.ts";
import { activate, dumpOnFailure, FLAVOURS, start, waitText } from "./harness.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };

/** Records every data-state the pull indicator takes, with the time it took it. */
async function watchStates(page: Page): Promise<void> {
  await page.evaluate(() => {
    const el = document.querySelector(".ptr")!;
    const seen: [string, number][] = [[el.getAttribute("data-state")!, performance.now()]];
    (globalThis as unknown as { ptrStates: typeof seen }).ptrStates = seen;
    new MutationObserver(() => {
      const s = el.getAttribute("data-state")!;
      if (seen[seen.length - 1][0] !== s) seen.push([s, performance.now()]);
    }).observe(el, { attributes: true, attributeFilter: ["data-state"] });
  });
}

const states = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as { ptrStates: [string, number][] }).ptrStates);

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] pull-to-refresh: a touch pull on the header follows at half speed, refreshes at the threshold, resets after 1.5 s`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      let page: Page | null = null;
      try {
        // An upstream without the change channel (relay mode, docs/app.md): its stream answers
        // 404, so a change made elsewhere shows only once the lists are read again — here, by
        // the pull. (With the channel, it would show by itself: tests/e2e/live_test.ts.)
        const fresh = await env.newPage();
        await fresh.setRequestInterception(true);
        fresh.on("request", (r) => {
          if (r.url().includes("/pwachanges/stream")) {
            void r.respond({ status: 404, contentType: "application/json", body: "{}" });
          } else void r.continue();
        });
        page = await activate(env, "employee@demo.example", "135790", fresh);
        await dumpOnFailure(page, async () => {
          const p = page!;
          await waitText(p, "No requests here");
          // Meanwhile, a request is made from another device.
          const user = (await env.deps.store.users.byEmail("employee@demo.example"))!;
          await createRequest(
            env.deps,
            user,
            {
              typeOid: "type-travel",
              amount: 120,
              purpose: "Made on another device",
              costCenterOid: "cc-sales",
              GLOid: "gl-travel",
              projectOid: "prj-crm",
            } as Parameters<typeof createRequest>[2],
          );
          let lists = 0;
          p.on("request", (r) => {
            if (r.url().includes("/pwalists")) lists++;
          });
          await watchStates(p);

          const cdp = await p.createCDPSession();
          const touch = (type: string, y: number) =>
            cdp.send("Input.dispatchTouchEvent", {
              type: type as "touchStart",
              touchPoints: type === "touchEnd" ? [] : [{ x: 180, y }],
            });
          const header = await p.$eval(".app-header", (el) => el.getBoundingClientRect().bottom);
          const y0 = Math.round(header / 2);
          await touch("touchStart", y0);
          // 40 px of finger: pulling, the indicator 20 px down, its text shown.
          for (let dy = 10; dy <= 40; dy += 10) await touch("touchMove", y0 + dy);
          await p.waitForFunction(() =>
            document.querySelector(".ptr")?.getAttribute("data-state") === "pulling"
          );
          await p.waitForFunction(() =>
            (document.querySelector(".ptr-pill") as HTMLElement).style.transform ===
              "translateY(20px)"
          );
          await waitText(p, "Pull down to refresh");
          assert.equal(lists, 0, "no refresh before the threshold");
          // On to 160 px: the threshold (64 px shown = 128 px of finger) refreshes once.
          for (let dy = 50; dy <= 160; dy += 10) await touch("touchMove", y0 + dy);
          await touch("touchEnd", y0 + 160);
          await waitText(p, "Made on another device");
          assert.equal(lists, 1, `pwalists requests: ${lists}`);
          await p.waitForFunction(
            () => document.querySelector(".ptr")?.getAttribute("data-state") === "idle",
            { timeout: 5000 },
          );
          const seen = await states(p);
          assert.deepEqual(
            seen.map(([s]) => s),
            ["idle", "pulling", "refreshing", "reset", "idle"],
          );
          const refreshing = seen[2][1], reset = seen[3][1];
          assert.ok(
            reset - refreshing >= 1450 && reset - refreshing < 3000,
            `reset ${Math.round(reset - refreshing)} ms after the refresh started`,
          );

          // A short pull that is let go early refreshes nothing.
          await touch("touchStart", y0);
          for (let dy = 10; dy <= 60; dy += 10) await touch("touchMove", y0 + dy);
          await touch("touchEnd", y0 + 60);
          await p.waitForFunction(() =>
            document.querySelector(".ptr")?.getAttribute("data-state") === "idle"
          );
          await new Promise((r) => setTimeout(r, 300));
          assert.equal(lists, 1, "a short pull refreshed");
          await cdp.detach();
        });
      } finally {
        await env.close();
      }
    },
  });
}
