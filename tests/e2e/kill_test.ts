/**
 * A phone kills background PWAs (spec §4 PIN unlock): a browser on a disk profile is killed
 * with SIGKILL at several instants after the activation and after an unlock, including
 * during the rotation call itself, and started again on the same profile; the right PIN
 * unlocks every time, and a wrong one still counts down. Chromium writes cookies to disk
 * only every ~30 s, so a kill within that window brings back the cookies as they were.
 */
import assert from "node:assert/strict";
import { kill } from "node:process";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import {
  CHROME_ARGS,
  chromePath,
  click,
  definePin,
  dumpOnFailure,
  type Env,
  FLAVOURS,
  start,
  tapDigits,
  waitText,
} from "./harness.ts";

const opts = { sanitizeOps: false, sanitizeResources: false };
const EMPLOYEE = "employee@demo.example";
const PIN = "135790";
const CHECK_PIN = "/pwacheckpinvalid";

/** One Chromium on a profile kept on disk, which the test kills and starts again. */
class Phone {
  browser: Browser | null = null;
  page: Page | null = null;
  constructor(readonly env: Env, readonly dir: string) {}

  async open(): Promise<Page> {
    this.browser = await puppeteer.launch({
      executablePath: chromePath(),
      headless: true,
      args: CHROME_ARGS,
      userDataDir: this.dir,
    });
    const page = (await this.browser.pages())[0] ?? await this.browser.newPage();
    await page.setViewport({ width: 360, height: 640, isMobile: true, hasTouch: true });
    page.setDefaultTimeout(20_000);
    page.on("pageerror", (e) => console.error(`[page error] ${e}`));
    await page.goto(this.env.url);
    // The static first screen is the cookies' guess, painted before the app runs: after a
    // kill within the cookies' 30 s it is the activation pad until the app has read QCDB and
    // taken the screen over (App.tsx marks the document "live"). The device's state is what
    // the app shows then.
    await page.waitForFunction(() => document.documentElement.dataset.app === "live");
    return this.page = page;
  }

  /**
   * SIGKILL to the browser's whole process group (puppeteer starts it detached), as the OS
   * ends an app: no process gets to write anything more.
   */
  async kill(): Promise<void> {
    const proc = this.browser?.process();
    if (!proc?.pid) throw new Error("no browser process");
    const exited = new Promise((r) => proc.exitCode !== null ? r(null) : proc.once("exit", r));
    try {
      kill(-proc.pid, "SIGKILL");
    } catch {
      proc.kill("SIGKILL");
    }
    await exited;
    this.browser = this.page = null;
  }

  /** A graceful quit (cookies written to disk). */
  async quit(): Promise<void> {
    await this.browser?.close();
    this.browser = this.page = null;
  }
}

async function device(env: Env) {
  const user = await env.deps.store.users.byEmail(EMPLOYEE);
  const [d] = await env.deps.store.devices.forUser(user!.oid);
  return d;
}

/** Waits (by condition) until `fn` holds, polling every 50 ms. */
async function until(what: string, fn: () => Promise<boolean> | boolean, timeout = 20_000) {
  const end = Date.now() + timeout;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** After a start: the PIN pad (not activation) and the right PIN reaches the main screen. */
async function unlocks(phone: Phone, instant: string): Promise<void> {
  const page = await phone.open();
  await dumpOnFailure(page, async () => {
    // Without its cookies (a kill within their 30 s) the first screen is the activation pad
    // until QCDB has answered (client/actions/session.ts boot): the PIN pad must follow.
    const remembered = await page.waitForFunction(
      () => /Enter your PIN/.test(document.body.innerText),
      { timeout: 10_000 },
    ).then(() => true, () => false);
    assert.ok(remembered, `${instant}: the device forgot it is activated`);
    await tapDigits(page, PIN);
    await page.waitForFunction(
      () => /Open menu|attempts left|Too many wrong PINs/.test(document.body.innerHTML),
    );
    assert.doesNotMatch(
      await page.evaluate(() => document.body.innerText),
      /attempts left|Too many wrong PINs/,
      `${instant}: the right PIN was refused`,
    );
    await page.locator("::-p-aria(Open menu)").wait();
  });
}

for (const flavour of FLAVOURS) {
  Deno.test({
    name:
      `[e2e:${flavour}] a browser killed at any instant: the right PIN unlocks, a wrong one counts`,
    ...opts,
    fn: async () => {
      const env = await start(flavour);
      const dir = await Deno.makeTempDir({ prefix: "qcard-kill-" });
      const phone = new Phone(env, dir);
      const t0 = Date.now();
      try {
        // 1. Killed 2 s after the PIN was defined (within the cookies' 30 s).
        let page = await phone.open();
        await dumpOnFailure(page, async () => {
          await waitText(page, "Enter the 5-digit code");
          await tapDigits(page, await env.latestCode(EMPLOYEE));
          await click(page, "Connect device");
          await definePin(page, PIN);
          await page.locator("::-p-aria(Open menu)").wait();
        });
        await new Promise((r) => setTimeout(r, 2_000));
        await phone.kill();
        await unlocks(phone, "killed 2 s after the activation");

        // 2. The case: cookies on disk (a graceful quit), then an unlock whose new
        // token is used at once, and a kill 1 s later: the cookie on disk holds the older
        // token, which the server no longer takes as a bearer.
        await phone.quit();
        await unlocks(phone, "before the kill after an unlock");
        await until("the new token's first use", async () => !(await device(env)).prevTokenHash);
        await new Promise((r) => setTimeout(r, 1_000));
        await phone.kill();
        await unlocks(phone, "killed 1 s after an unlock");

        // 3. Killed during the rotation call: as soon as it is sent, and as soon as its
        // answer (the new token) arrives.
        for (const at of ["request", "response"] as const) {
          await phone.kill();
          page = await phone.open();
          await waitText(page, "Enter your PIN");
          const seen = new Promise<void>((resolve) => {
            page.on(at, (r) => {
              if (r.url().includes(CHECK_PIN)) resolve();
            });
          });
          await tapDigits(page, PIN);
          await seen;
          await phone.kill();
          await unlocks(phone, `killed at the rotation call's ${at}`);
        }

        // 4. A wrong PIN still counts down; the right one then unlocks and resets the count.
        await phone.kill();
        page = await phone.open();
        await dumpOnFailure(page, async () => {
          await waitText(page, "Enter your PIN");
          await tapDigits(page, "975310");
          await waitText(page, "4 attempts left");
          assert.equal((await device(env)).pinFailures, 1);
          await tapDigits(page, PIN);
          await page.locator("::-p-aria(Open menu)").wait();
        });
        const d = await device(env);
        assert.equal(d.status, "active");
        assert.equal(d.pinFailures, 0);
        console.log(`  ${flavour}: 6 kills and restarts in ${Date.now() - t0} ms`);
      } finally {
        await phone.quit().catch(() => {});
        await env.close();
        await Deno.remove(dir, { recursive: true }).catch(() => {});
      }
    },
  });
}
