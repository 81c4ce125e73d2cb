/** The live bench's tools: an app on either store with a browser, a stream read over a socket, paint times in the page, samples and their lines. */
import puppeteer, { type Page } from "puppeteer-core";
import { createApp } from "../../server/app/app.ts";
import { parseConfig } from "../../server/config.ts";
import { makeDeps, seedIfEmpty } from "../../server/app/boot.ts";
import { newIssuerKeyText } from "../../server/issuer/mod.ts";
import { openKv } from "../../server/store/kv.ts";
import { CHANGE_STREAM_PATH, type ChangeBatch } from "../../client/shared/contract/changes.ts";
import { CHROME_ARGS, chromePath, E2E_PUSH_HOSTS, type Env, serveLocal } from "../e2e/harness.ts";
import { freshPgUrl } from "../pg.ts";
import { ROOT } from "../server/main_process.ts";

export type Line = (name: string, value: string, budget?: string) => void;
export type Store = "kv" | "postgres";

export const PURCHASES = 20;
export const APPROVALS = 12;
export const STREAMS = 500;
export const IDLE_MS = 10_000;
export const BUDGET_MS = 1000;
export const KB_GOAL = 50;

export const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
export const p50 = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)];
export const p95 = (xs: number[]) => sorted(xs)[Math.ceil(xs.length * 0.95) - 1];
export const msf = (x: number) => `${x.toFixed(0)} ms`;
export const now = () => performance.timeOrigin + performance.now();
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const storeName = (s: Store) => (s === "kv" ? "KV" : "PostgreSQL");

/** A latency figure: p50 and p95 (misses as ∞) against the 1 s budget. */
export function latencyLine(line: Line, name: string, xs: number[], misses: number) {
  const all = [...xs, ...Array<number>(misses).fill(Infinity)];
  if (!all.length) return line(name, "none");
  const f = (x: number) => (x === Infinity ? "∞" : msf(x));
  const hi = p95(all);
  const finite = xs.length ? `; max ${msf(Math.max(...xs))}` : "";
  line(
    name,
    `p50 ${f(p50(all))}`,
    `p95 ${f(hi)}, budget p95 ≤ ${BUDGET_MS} ms ${
      hi <= BUDGET_MS ? "(ok)" : "(over)"
    } (n=${all.length}${misses ? `, ${misses} not within 10 s` : ""}${finite})`,
  );
}

/** The newest modification time under `dir` (ms), 0 when there is nothing. */
export async function newest(dir: string): Promise<number> {
  let t = 0;
  for await (const e of Deno.readDir(dir)) {
    const p = `${dir}/${e.name}`;
    t = Math.max(t, e.isDirectory ? await newest(p) : (await Deno.stat(p)).mtime?.getTime() ?? 0);
  }
  return t;
}

/**
 * A copy of dist/preact, taken while no build is writing it: a build written under the bench
 * (another run's) would update the service worker and reload the page, and a copy taken
 * halfway through one would not start.
 */
export async function copyBuild(): Promise<string> {
  const src = `${ROOT}dist/preact`;
  const dist = await Deno.makeTempDir({ prefix: "qc-live-dist-" });
  for (let i = 0; i < 120; i++) {
    // Files removed under the walk: a build is running.
    const before = await newest(src).catch(() => Date.now());
    if (Date.now() - before < 3000) {
      await sleep(1000);
      continue;
    }
    const cp = await new Deno.Command("cp", { args: ["-r", `${src}/.`, dist] }).output();
    if (cp.success && await newest(src).catch(() => 0) === before) return dist;
    await Deno.remove(dist, { recursive: true });
    await Deno.mkdir(dist);
  }
  throw new Error("dist/preact kept changing for 2 minutes: no build to bench");
}

// ---- An app in this process on either store, with a browser (as tests/e2e/harness.ts) ----

export async function startOn(store: Store): Promise<Env & { drop(): Promise<void> }> {
  const pg = store === "postgres" ? await freshPgUrl() : null;
  const dist = await copyBuild();
  const kv = pg ? await openKv(pg.url, false, { poolSize: 10 }) : await Deno.openKv(":memory:");
  let app: ReturnType<typeof createApp> | null = null;
  const server = serveLocal((req, remoteAddr) => app!.fetch(req, { remoteAddr }));
  const url = `http://localhost:${server.addr.port}`;
  const config = parseConfig({
    KV_PATH: pg ? pg.url : ":memory:",
    PUSH_HOSTS: E2E_PUSH_HOSTS,
    PIN_HASH_ITERATIONS: "1000",
    STATIC_DIR: dist,
    PORT: "0",
    DEMO_HISTORY: "false",
    PUBLIC_URL: url,
    ISSUER_KEY: newIssuerKeyText(),
  });
  const deps = await makeDeps(config, kv, { log: () => {} });
  await seedIfEmpty(deps);
  app = createApp(deps);
  const browser = await puppeteer.launch({
    executablePath: chromePath(),
    headless: true,
    args: CHROME_ARGS,
  });
  const latest = async (to: string, re: RegExp) => {
    const [m] = await deps.outbox!.list({ to, limit: 1 });
    const v = re.exec(m?.text ?? "")?.[1];
    if (!v) throw new Error(`nothing sent to ${to}`);
    return v;
  };
  return {
    url,
    deps,
    relay: false,
    browser,
    async newPage() {
      const page = await (await browser.createBrowserContext()).newPage();
      // As the harness: once loaded, wait until the app has taken the static screen over.
      const goto = page.goto.bind(page);
      page.goto = async (...args: Parameters<Page["goto"]>) => {
        const res = await goto(...args);
        await page.waitForFunction(() => document.documentElement.dataset.app === "live", {
          timeout: 60_000,
        });
        return res;
      };
      await page.setViewport({ width: 360, height: 640, isMobile: true, hasTouch: true });
      page.setDefaultTimeout(30_000);
      page.on("pageerror", (e) => console.error(`[page error] ${e}`));
      return page;
    },
    latestCode: (email) => latest(email, /activation code is (\d{5})/),
    latestSecurePin: (to) => latest(to, /3-D Secure PIN is (\d{4})/),
    async close() {
      await browser.close();
      await server.shutdown();
      await (kv.close() as void | Promise<void>);
    },
    async drop() {
      await pg?.drop();
      await Deno.remove(dist, { recursive: true }).catch(() => {});
    },
  };
}

// ---- A stream read by this process over a socket (fetch), resumed when it ends ----

export interface Heard {
  at: number;
  batch: ChangeBatch;
}

export function listen(url: string, h: Record<string, string>) {
  const heard: Heard[] = [];
  const ac = new AbortController();
  let cursor = "";
  const wake = new Set<() => void>();
  const loop = (async () => {
    while (!ac.signal.aborted) {
      try {
        const q = cursor ? `?cursor=${encodeURIComponent(cursor)}` : "";
        const res = await fetch(`${url}/bonita${CHANGE_STREAM_PATH}${q}`, {
          headers: { ...h, accept: "text/event-stream" },
          signal: ac.signal,
        });
        const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
        let buf = "";
        while (true) {
          const r = await reader.read();
          if (r.done) break;
          buf += r.value;
          let i;
          while ((i = buf.indexOf("\n\n")) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const data = block.split("\n").find((l) => l.startsWith("data: "));
            if (!data) continue;
            const batch = JSON.parse(data.slice(6)) as ChangeBatch;
            cursor = batch.cursor;
            heard.push({ at: now(), batch });
            for (const w of [...wake]) w();
          }
        }
      } catch { /* aborted, or dropped: opened again from the cursor */ }
    }
  })();
  return {
    /** When the first event naming `id` at or after `after` arrived (waits `ms`), or null. */
    async when(id: string, after: number, ms = 10_000): Promise<number | null> {
      const until = Date.now() + ms;
      while (true) {
        const e = heard.find((x) => x.at >= after && x.batch.changes.some((c) => c.id === id));
        if (e) return e.at;
        const left = until - Date.now();
        if (left <= 0) return null;
        await new Promise<void>((ok) => {
          const done = () => {
            clearTimeout(t);
            wake.delete(done);
            ok();
          };
          const t = setTimeout(done, left);
          wake.add(done);
        });
      }
    },
    heardAny: () => heard.length > 0,
    async close() {
      ac.abort();
      await loop;
    },
  };
}

// ---- In the page: when a row with some text (and some inner element) was painted ----

/**
 * Arms a watcher: the time (epoch ms, sub-ms) of the frame after an element matching
 * `selector`, whose text includes `text` (and which holds an element matching `inner`, when
 * given), entered the DOM. Read with {@link paintedAt}.
 */
export async function armPaint(
  page: Page,
  selector: string,
  text: string,
  inner = "",
): Promise<void> {
  await page.evaluate(
    (sel, want, sub) => {
      const g = globalThis as unknown as { qcPainted?: number; qcWatch?: MutationObserver };
      g.qcWatch?.disconnect();
      g.qcPainted = undefined;
      const there = () =>
        [...document.querySelectorAll(sel)].some((e) =>
          (e.textContent ?? "").includes(want) && (!sub || e.querySelector(sub))
        );
      const seen = () => {
        g.qcWatch?.disconnect();
        // The frame that paints this DOM runs rAF callbacks first; the message posted from one
        // is handled once that frame is done.
        requestAnimationFrame(() => {
          const ch = new MessageChannel();
          ch.port1.onmessage = () => (g.qcPainted = performance.timeOrigin + performance.now());
          ch.port2.postMessage(0);
        });
      };
      if (there()) return seen();
      g.qcWatch = new MutationObserver(() => {
        if (there()) seen();
      });
      g.qcWatch.observe(document.body, {
        childList: true,
        subtree: true,
        characterData: true,
        attributes: true,
      });
    },
    selector,
    text,
    inner,
  );
}

export async function paintedAt(page: Page, ms = 10_000): Promise<number | null> {
  try {
    const h = await page.waitForFunction(
      () => (globalThis as unknown as { qcPainted?: number }).qcPainted,
      { timeout: ms, polling: 10 },
    );
    return (await h.jsonValue()) as number;
  } catch {
    return null;
  }
}

/** Samples (the first one not counted: it warms the paths) and the ones that never came. */
export class Samples {
  xs: number[] = [];
  misses = 0;
  add(i: number, at: number | null, t0: number) {
    if (i === 0) return;
    if (at === null) this.misses++;
    else this.xs.push(at - t0);
  }
}
