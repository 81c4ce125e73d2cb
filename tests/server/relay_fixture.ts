/**
 * Relay mode in the tests (docs/relay.md): a real QCard upstream (tests/helpers.ts testApp, served
 * over HTTP on 127.0.0.1 and trusting the edge's X-Forwarded-For) and an edge in relay mode
 * in front of it (createApp with UPSTREAM_URL, its own store), both on port 0.
 *
 * `viaEdge` is the upstream's TestApi with every call sent through the edge over HTTP, so the
 * API helpers (purchase_helpers.ts, api.ts) run unchanged through the relay; the development
 * pages (/_issuer, /_outbox) are the upstream's, reached directly as a developer on its host
 * would. `seen` holds the headers of the last request the upstream received; `hold` lets a
 * test make the upstream slow on a path.
 */
import { createApp } from "../../server/app/app.ts";
import { parseConfig } from "../../server/config.ts";
import { makeDeps } from "../../server/app/boot.ts";
import type { Deps } from "../../server/domain/env.ts";
import { newIssuerKeyText } from "../../server/issuer/mod.ts";
import { type CallOptions, callWith, type TestApi, testApp } from "../helpers.ts";

export interface Relayed {
  api: TestApi;
  viaEdge: TestApi;
  edge: Deps;
  edgeUrl: string;
  upstreamUrl: string;
  /** Headers of the last request that reached the upstream (and its path). */
  seen: { path: string; headers: Headers } | null;
  /** Delays the upstream's answer to paths matching the pattern (null: no delay). */
  hold: { pattern: RegExp; ms: number } | null;
  /** An answer given in the upstream's place (an upstream behind its own proxy, say). */
  intercept: ((req: Request) => Response | null) | null;
  /** Requests the upstream received. */
  count: number;
  /** Body bytes the upstream has read from requests and handed to answers, so far. */
  bytes: { read: number; answered: number };
  close(): Promise<void>;
}

function serve(handler: (req: Request, addr: Deno.NetAddr) => Response | Promise<Response>) {
  return Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    (req, info) => handler(req, info.remoteAddr),
  );
}

export async function relayed(
  env: Record<string, string> = {},
  edgeEnv: Record<string, string> = {},
): Promise<Relayed> {
  const api = await testApp({ TRUSTED_PROXIES: "127.0.0.1", ...env });
  const r: Relayed = {
    api,
    viaEdge: api,
    edge: null as unknown as Deps,
    edgeUrl: "",
    upstreamUrl: "",
    seen: null,
    hold: null,
    bytes: { read: 0, answered: 0 },
    intercept: null,
    count: 0,
    close: async () => {},
  };
  const upstream = serve(async (req, addr) => {
    const path = new URL(req.url).pathname;
    r.seen = { path, headers: new Headers(req.headers) };
    r.count++;
    const instead = r.intercept?.(req);
    if (instead) return instead;
    if (r.hold?.pattern.test(path)) await new Promise((ok) => setTimeout(ok, r.hold!.ms));
    const count = (k: "read" | "answered") =>
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, c) {
          r.bytes[k] += chunk.length;
          c.enqueue(chunk);
        },
      });
    const counted = req.body
      ? new Request(
        req,
        { body: req.body.pipeThrough(count("read")), duplex: "half" } as RequestInit,
      )
      : req;
    const res = await api.app.fetch(counted, { remoteAddr: addr });
    return res.body ? new Response(res.body.pipeThrough(count("answered")), res) : res;
  });
  r.upstreamUrl = `http://127.0.0.1:${upstream.addr.port}`;
  const config = parseConfig({
    KV_PATH: ":memory:",
    STATIC_DIR: "./dist/preact",
    ISSUER_KEY: newIssuerKeyText(),
    DEMO_HISTORY: "false",
    UPSTREAM_URL: r.upstreamUrl,
    ...edgeEnv,
  });
  const kv = await Deno.openKv(":memory:");
  r.edge = await makeDeps(config, kv, { log: () => {} });
  const edgeApp = createApp(r.edge);
  const edge = serve((req, addr) => edgeApp.fetch(req, { remoteAddr: addr }));
  r.edgeUrl = `http://127.0.0.1:${edge.addr.port}`;

  const request = (path: string, init?: RequestInit, env?: unknown) =>
    path.startsWith("/_")
      ? Promise.resolve(api.app.request(path, init, env as never))
      : fetch(`${r.edgeUrl}${path}`, init);
  const viaEdge = Object.create(api) as TestApi;
  Object.assign(viaEdge, {
    app: Object.assign(Object.create(api.app), { request }),
    call: (method: string, path: string, opts: CallOptions = {}) =>
      callWith((p, init) => fetch(`${r.edgeUrl}${p}`, init), method, path, opts),
  });
  r.viaEdge = viaEdge;
  r.close = async () => {
    await edge.shutdown();
    await upstream.shutdown();
    kv.close();
    await api.close();
  };
  return r;
}
