/**
 * Bench figures for "bytes on the wire" (docs/benchmarks.md): what Chromium receives before
 * the PIN pad is usable, compressed and not, beside the build's own gzip/brotli figures;
 * and pwalists for a user with 2,000 requests, on the socket, per Accept-Encoding.
 *
 * Run alone: `deno run -A tests/bench/wire.ts` (needs Chromium, builds dist/preact).
 */
import * as esbuild from "esbuild";
import type { Page } from "puppeteer-core";
import { build } from "../../build.ts";
import { DEMO, testApp } from "../helpers.ts";
import { seedRequests } from "./seed.ts";

type Line = (name: string, value: string, budget?: string) => void;

const root = new URL("../../", import.meta.url).pathname;
const KB = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One HTTP/1.1 GET over a plain socket: status, headers and body bytes exactly as sent. */
export async function rawGet(port: number, path: string, headers: Record<string, string> = {}) {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const lines = Object.entries({ host: `127.0.0.1:${port}`, connection: "close", ...headers })
    .map(([k, v]) => `${k}: ${v}\r\n`).join("");
  await conn.write(new TextEncoder().encode(`GET ${path} HTTP/1.1\r\n${lines}\r\n`));
  // Reading the socket to its end closes it.
  const all = new Uint8Array(await new Response(conn.readable).arrayBuffer());
  const split = new TextDecoder("latin1").decode(all).indexOf("\r\n\r\n");
  const head = new TextDecoder().decode(all.slice(0, split)).split("\r\n");
  const map = new Map(
    head.slice(1).map((l) => {
      const i = l.indexOf(":");
      return [l.slice(0, i).toLowerCase(), l.slice(i + 1).trim()] as const;
    }),
  );
  let body = all.slice(split + 4);
  if (map.get("transfer-encoding") === "chunked") {
    const parts: Uint8Array[] = [];
    for (let at = 0;;) {
      const eol = new TextDecoder().decode(body.slice(at, at + 16)).indexOf("\r\n");
      const size = parseInt(new TextDecoder().decode(body.slice(at, at + eol)), 16);
      if (!size) break;
      parts.push(body.slice(at + eol + 2, at + eol + 2 + size));
      at += eol + 2 + size + 2;
    }
    body = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    parts.reduce((at, p) => (body.set(p, at), at + p.length), 0);
  }
  return { status: Number(head[0].split(" ")[1]), headers: map, body, wire: all.length };
}

export async function benchWire(line: Line): Promise<void> {
  const report = await build({ flavour: "preact", outDir: `${root}dist/preact` });
  await esbuild.stop();
  line(
    `first-load JS (preact), gzip -9 (the ${report.budgetGzip / 1024} KB budget)`,
    KB(report.firstLoadJsGzip),
    `br ${KB(report.firstLoadJsBrotli)}; shell with HTML + CSS, br ${KB(report.firstLoadBrotli)}`,
  );
  await pinPadBytes(line);
  await pwalistsBytes(line);
}

/**
 * Everything Chromium received (headers included: CDP's encodedDataLength) from navigation
 * until the text shows and the network is quiet (so both runs count the same files), for (1) a new device up to the activation code pad, and (2) an
 * activated device whose HTTP cache and service worker are gone, up to the PIN pad.
 * Each with the browser's own Accept-Encoding and with `identity` (what was sent before).
 */
async function pinPadBytes(line: Line): Promise<void> {
  const { activate, start, waitText } = await import("../e2e/harness.ts");
  const env = await start("preact");
  const modes = [["gzip, deflate, br", false], ["identity", true]] as const;
  try {
    for (const [how, identity] of modes) {
      const page = await env.newPage();
      const r = await received(page, identity, async () => {
        await page.goto(env.url);
        await waitText(page, "Enter the 5-digit code");
      });
      line(`new device → activation pad (${how})`, KB(r.total), r.summary);
    }
    const page = await activate(env, DEMO.employee);
    for (const [how, identity] of modes) {
      await page.evaluate(async () => {
        for (const r of await navigator.serviceWorker.getRegistrations()) await r.unregister();
      });
      const cdp = await page.createCDPSession();
      await cdp.send("Storage.clearDataForOrigin", {
        origin: env.url,
        storageTypes: "service_workers,cache_storage",
      });
      await cdp.send("Network.clearBrowserCache");
      await cdp.detach();
      const r = await received(page, identity, async () => {
        await page.goto(env.url);
        await waitText(page, "Enter your PIN");
      });
      line(`activated device, caches cleared → PIN pad (${how})`, KB(r.total), r.summary);
    }
  } finally {
    await env.close();
  }
}

async function received(page: Page, identity: boolean, go: () => Promise<void>) {
  const cdp = await page.createCDPSession();
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  if (identity) {
    await cdp.send("Network.setExtraHTTPHeaders", { headers: { "Accept-Encoding": "identity" } });
  }
  const seen = new Map<string, { url: string; coding: string }>();
  const sizes = new Map<string, number>();
  cdp.on("Network.responseReceived", (e) => {
    const h = Object.fromEntries(
      Object.entries(e.response.headers).map(([k, v]) => [k.toLowerCase(), String(v)]),
    );
    seen.set(e.requestId, {
      url: new URL(e.response.url).pathname,
      coding: h["content-encoding"] ?? "identity",
    });
  });
  cdp.on("Network.loadingFinished", (e) => sizes.set(e.requestId, e.encodedDataLength));
  const sum = (ids: Iterable<string>) => [...ids].reduce((n, id) => n + sizes.get(id)!, 0);
  await go();
  const beforeText = sum(sizes.keys());
  // Then until the network is quiet: the same set of files whichever finished first.
  await page.waitForNetworkIdle({ idleTime: 500 });
  const done = [...sizes].map(([id, bytes]) => ({ ...seen.get(id)!, bytes }));
  await cdp.detach();
  const total = sum(sizes.keys());
  const codings = new Map<string, number>();
  for (const r of done) codings.set(r.coding, (codings.get(r.coding) ?? 0) + 1);
  const api = done.filter((r) => r.url.startsWith("/bonita/"));
  if (Deno.env.get("WIRE_DEBUG")) {
    for (const r of done) console.log(`    ${r.url} ${r.coding} ${r.bytes}`);
  }
  return {
    total,
    summary: `${done.length} responses (${
      [...codings].map(([c, n]) => `${n} ${c}`).join(", ")
    }), API ${KB(api.reduce((n, r) => n + r.bytes, 0))}; ${KB(beforeText)} by the time it shows`,
  };
}

/** pwalists of a user with 2,000 requests over a real socket, per Accept-Encoding. */
async function pwalistsBytes(line: Line): Promise<void> {
  const api = await testApp({ CHECK_RESPONSES: "false" });
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    (req, info) => api.app.fetch(req, { remoteAddr: info.remoteAddr }),
  );
  try {
    await seedRequests(api.deps, DEMO.employee, 2000);
    const { token } = await api.activate(DEMO.employee);
    const path = "/bonita/scmapi/expense/pwalists";
    const port = server.addr.port;
    const results: { accept: string; coding: string; bytes: number; ms: number }[] = [];
    for (const accept of ["", "gzip, deflate, br", "br"]) {
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (accept) headers["accept-encoding"] = accept;
      const times: number[] = [];
      let last: Awaited<ReturnType<typeof rawGet>> | undefined;
      for (let i = 0; i < 7; i++) {
        const t0 = performance.now();
        last = await rawGet(port, path, headers);
        times.push(performance.now() - t0);
        if (last.status !== 200) throw new Error(`pwalists ${last.status}`);
      }
      results.push({
        accept: accept || "(none)",
        coding: last!.headers.get("content-encoding") ?? "identity",
        bytes: last!.wire,
        ms: median(times.slice(2)),
      });
    }
    const plain = results[0];
    for (const r of results) {
      line(
        `pwalists, 2,000 requests, Accept-Encoding ${r.accept}`,
        KB(r.bytes),
        `${r.coding}${r === plain ? "" : `, ${(plain.bytes / r.bytes).toFixed(1)}× smaller`}; ` +
          `${r.ms.toFixed(0)} ms per answer (median)`,
      );
    }
  } finally {
    await server.shutdown();
    api.close();
  }
}

if (import.meta.main) {
  const line: Line = (name, value, budget = "") =>
    console.log(`${name.padEnd(52)} ${value.padStart(12)}  ${budget}`);
  await benchWire(line);
}
