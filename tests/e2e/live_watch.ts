/** The live test's instruments: what the page's change streams did, rows painted, the kept cursor. */
import assert from "node:assert/strict";
import type { HTTPRequest, Page } from "puppeteer-core";
import { waitText } from "./harness.ts";
import { inTopPanel, panelsClosed, settled, waitInTopPanel } from "./panels.ts";

export const STREAM = "/pwachanges/stream";
export const PIN = "135790";
/** How long a change may take to be painted: generous, the channel's point is seconds. */
export const LIVE_MS = 10_000;

export const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

/** Every request a page made to the change stream, and how each ended. */
export interface StreamLog {
  name: string;
  opened: { at: number; url: string; req: HTTPRequest }[];
  ended: Map<HTTPRequest, string>;
  statuses: number[];
  /** Streams the page has asked for and not yet ended. */
  open(): number;
  /** The bearer the page sent on its first stream request. */
  bearer(): Record<string, string>;
  print(): string;
}

export function watchStreams(page: Page, name: string): StreamLog {
  const isStream = (r: HTTPRequest) => new URL(r.url()).pathname.endsWith(STREAM);
  const log: StreamLog = {
    name,
    opened: [],
    ended: new Map(),
    statuses: [],
    open: () => log.opened.filter((o) => !log.ended.has(o.req)).length,
    bearer() {
      const auth = log.opened[0]?.req.headers().authorization;
      assert.ok(auth?.startsWith("Bearer "), `${name}: no bearer on the stream request`);
      return { authorization: auth };
    },
    print: () =>
      log.opened.map((o) =>
        `  ${new Date(o.at).toISOString().slice(11, 23)} ${
          new URL(o.url).search || "(no cursor)"
        } → ${o.req.response()?.status() ?? "-"} ${log.ended.get(o.req) ?? "open"}`
      ).join("\n"),
  };
  page.on("request", (r) => {
    if (isStream(r)) log.opened.push({ at: Date.now(), url: r.url(), req: r });
  });
  page.on("response", (res) => {
    if (isStream(res.request())) log.statuses.push(res.status());
  });
  page.on("requestfailed", (r) => {
    if (isStream(r)) log.ended.set(r, r.failure()?.errorText ?? "failed");
  });
  page.on("requestfinished", (r) => {
    if (isStream(r)) log.ended.set(r, "finished");
  });
  return log;
}

/** Waits until `cond` holds (polled in the test, not the page). */
export async function until(what: string, cond: () => boolean, timeout = 5_000): Promise<void> {
  const end = Date.now() + timeout;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Waits until a row (`selector`) showing `text` is painted; the milliseconds it took. */
export async function rowPainted(
  p: Page,
  selector: string,
  text: string,
  since: number,
  timeout = LIVE_MS,
): Promise<number> {
  await p.waitForFunction(
    (sel, t) =>
      [...document.querySelectorAll(sel)].some((e) => (e as HTMLElement).innerText.includes(t)),
    { timeout },
    selector,
    text,
  );
  return Date.now() - since;
}

export const hasRow = (p: Page, selector: string, text: string) =>
  p.evaluate(
    (sel, t) =>
      [...document.querySelectorAll(sel)].some((e) => (e as HTMLElement).innerText.includes(t)),
    selector,
    text,
  );

export const TX = ".transactions-tab .tx-row";
export const REQ = ".requests-tab .request-row";

/**
 * The page hidden or shown again, as when the phone switches apps: the document says so and
 * fires visibilitychange (headless Chromium keeps every tab visible).
 */
export async function setHidden(p: Page, hidden: boolean): Promise<void> {
  await p.evaluate((h) => {
    if (h) {
      Object.defineProperty(document, "hidden", { value: true, configurable: true });
      Object.defineProperty(document, "visibilityState", { value: "hidden", configurable: true });
    } else {
      // Back to the document's own getters.
      delete (document as { hidden?: boolean }).hidden;
      delete (document as { visibilityState?: string }).visibilityState;
    }
    document.dispatchEvent(new Event("visibilitychange"));
  }, hidden);
  assert.equal(await p.evaluate(() => document.hidden), hidden);
}

/** The cursor the app keeps for resuming its stream (actions/changes.ts, localStorage). */
export const keptCursor = (p: Page) =>
  p.evaluate(() => {
    const raw = localStorage.getItem("qc_changes");
    return raw ? (JSON.parse(raw) as { c: string }).c : "";
  });

/**
 * The kept cursor once it has not moved for half a second: batches the page had already
 * received when its stream was cut are still applied (and move it) after the cut.
 */
export async function settledCursor(p: Page): Promise<string> {
  let last = await keptCursor(p);
  for (let i = 0; i < 100; i++) {
    await sleep(500);
    const now = await keptCursor(p);
    if (now === last) return now;
    last = now;
  }
  throw new Error("the kept cursor kept moving");
}

export const cursorOf = (url: string) => new URL(url).searchParams.get("cursor") ?? "";

/**
 * Opens the approvals row showing `text`, waits for its detail to say `detail`, and approves it
 * from the action bar (the confirm and the notice name it as `what`); when the notice showed.
 */
export async function approveRow(
  p: Page,
  text: string,
  detail: string,
  what: string,
): Promise<number> {
  const found = await p.evaluate((t) => {
    const row = [...document.querySelectorAll(".request-row")].find((e) =>
      e.textContent?.includes(t)
    );
    (row as HTMLElement | undefined)?.click();
    return !!row;
  }, text);
  assert.ok(found, `no approvals row with ${text}`);
  await p.waitForFunction(() => document.querySelectorAll(".side-panel.open").length > 0);
  await settled(p);
  await waitInTopPanel(p, detail);
  await inTopPanel(p, "Approve");
  await waitText(p, `Approve ${what}?`);
  await p.locator(".confirm ::-p-aria(Approve)").click();
  await waitText(p, `Approved: ${what}`);
  const at = Date.now();
  await inTopPanel(p, "Back");
  await panelsClosed(p);
  return at;
}
