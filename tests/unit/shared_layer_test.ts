/**
 * The shared layer: `client/shared/` holds the isomorphic code both sides run — the zod/mini
 * contract, the pure rules (money, dates, PIN and 3-D Secure, VAT, budget, requests,
 * transactions, the reveal cipher, push links, Intl formatting) and the translations. Three
 * rules keep it honest: the server (and main.ts) imports nothing else of `client/`; a shared
 * file imports nothing outside `client/shared/` but the npm modules listed below; and a shared
 * file names neither DOM nor Deno (nor Node) globals, so it runs unchanged in the browser, the
 * service worker and the server. Each check is a function, shown failing on a made-up input.
 */
import assert from "node:assert/strict";
import { posix } from "node:path";
import { fileURLToPath } from "node:url";
import { importsOf, type Token, tokenize } from "../tools/circles.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SHARED = "client/shared/";

/** Bare specifiers a shared file may import: npm modules that run everywhere. */
const ALLOWED_BARE = new Set(["zod/mini"]);

/** Globals of one platform only: the DOM (and the service worker), Deno, Node. */
const PLATFORM_GLOBALS = new Set([
  "document",
  "window",
  "self",
  "localStorage",
  "sessionStorage",
  "navigator",
  "indexedDB",
  "location",
  "history",
  "Element",
  "Node",
  "XMLHttpRequest",
  "FileReader",
  "matchMedia",
  "getComputedStyle",
  "requestAnimationFrame",
  "caches",
  "clients",
  "Notification",
  "PushManager",
  "Deno",
  "process",
  "Buffer",
  "require",
  "__dirname",
]);
/** HTMLElement, HTMLInputElement, SVGElement, ServiceWorkerGlobalScope, IDBDatabase… */
const PLATFORM_FAMILIES = /^(HTML\w*|SVG\w*|ServiceWorker\w*|IDB\w+|Worker\w*Scope)$/;

/** Path (relative to the root, "/") → source, for every .ts/.tsx under `dirs` and `files`. */
async function read(dirs: string[], files: string[] = []): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (rel: string): Promise<void> => {
    for await (const e of Deno.readDir(posix.join(ROOT, rel))) {
      const p = posix.join(rel, e.name);
      if (e.isDirectory) await walk(p);
      else if (/\.tsx?$/.test(e.name)) out.set(p, await Deno.readTextFile(posix.join(ROOT, p)));
    }
  };
  for (const d of dirs) await walk(d);
  for (const f of files) out.set(f, await Deno.readTextFile(posix.join(ROOT, f)));
  return out;
}

/** Where a relative specifier of `from` points, relative to the root; null when not relative. */
function target(from: string, specifier: string): string | null {
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return null;
  return posix.normalize(posix.join(posix.dirname(from), specifier));
}

/** Server imports that reach into `client/` anywhere but the shared layer. */
function serverReachesPastShared(server: Map<string, string>): string[] {
  const found: string[] = [];
  for (const [file, src] of server) {
    for (const { specifier } of importsOf(src)) {
      const to = target(file, specifier);
      if (to?.startsWith("client/") && !to.startsWith(SHARED)) found.push(`${file} → ${to}`);
    }
  }
  return found;
}

/** Imports of shared files that leave the shared layer (or name an unlisted bare module). */
function sharedImportsOutside(shared: Map<string, string>): string[] {
  const found: string[] = [];
  for (const [file, src] of shared) {
    for (const { specifier } of importsOf(src)) {
      const to = target(file, specifier);
      const ok = to === null ? ALLOWED_BARE.has(specifier) : to.startsWith(SHARED);
      if (!ok) found.push(`${file} → ${specifier}`);
    }
  }
  return found;
}

/**
 * Platform globals a shared file names in its code (comments and strings do not count: the
 * tokenizer of tests/tools/circles.ts drops them). A property (`x.location`) or an object key
 * (`{ history: … }`) is not a global; `globalThis.document` is.
 */
function sharedPlatformApis(shared: Map<string, string>): string[] {
  const found: string[] = [];
  const isPunct = (t: Token | undefined, v: string) => t?.t === "punct" && t.v === v;
  for (const [file, src] of shared) {
    const tokens = tokenize(src);
    tokens.forEach((tok, k) => {
      if (tok.t !== "name") return;
      if (!PLATFORM_GLOBALS.has(tok.v) && !PLATFORM_FAMILIES.test(tok.v)) return;
      const before = tokens[k - 1];
      const after = tokens[k + 1];
      if (isPunct(before, ".")) {
        const owner = tokens[k - 2];
        if (!(owner?.t === "name" && owner.v === "globalThis")) return;
      }
      const keyStart = isPunct(before, "{") || isPunct(before, ",") || isPunct(before, ";");
      const keyEnd = isPunct(after, ":") || (isPunct(after, "?") && isPunct(tokens[k + 2], ":"));
      if (keyStart && keyEnd) return;
      found.push(`${file}: ${tok.v}`);
    });
  }
  return found;
}

Deno.test("[shared] the server imports nothing of client/ but client/shared/", async () => {
  const server = await read(["server"], ["main.ts"]);
  assert.ok(server.size > 100, `${server.size} server files read`);
  // Reading found the shared imports (else the check would pass on nothing).
  const shared = [...server].flatMap(([f, src]) =>
    importsOf(src).filter((i) => target(f, i.specifier)?.startsWith(SHARED))
  );
  assert.ok(shared.length > 50, `${shared.length} imports of the shared layer`);
  assert.deepEqual(serverReachesPastShared(server), []);
});

Deno.test("[shared] shared files import only shared files and zod/mini", async () => {
  const shared = await read([SHARED]);
  assert.ok(shared.size > 25, `${shared.size} shared files read`);
  assert.deepEqual(sharedImportsOutside(shared), []);
});

Deno.test("[shared] shared files use neither DOM nor Deno APIs", async () => {
  const shared = await read([SHARED]);
  assert.deepEqual(sharedPlatformApis(shared), []);
});

Deno.test("[shared] each check fails on a file that breaks its rule", () => {
  assert.deepEqual(
    serverReachesPastShared(
      new Map([
        [
          "server/domain/x.ts",
          [
            'import { money } from "../../client/shared/money.ts";',
            'import { pdf } from "../../client/lib/pdf.ts";',
            'const t = () => import("../../client/i18n/index.ts");',
            'import { y } from "../store/y.ts";',
          ].join("\n"),
        ],
        ["main.ts", 'import type { S } from "./client/state/session.ts";'],
      ]),
    ),
    [
      "server/domain/x.ts → client/lib/pdf.ts",
      "server/domain/x.ts → client/i18n/index.ts",
      "main.ts → client/state/session.ts",
    ],
  );
  assert.deepEqual(
    sharedImportsOutside(
      new Map([[
        "client/shared/contract/x.ts",
        [
          'import * as z from "zod/mini";',
          'import { money } from "../money.ts";',
          'import { t } from "../../i18n/index.ts";',
          'import { z as full } from "zod";',
          'import { serve } from "npm:hono";',
          'export { q } from "../../../server/q.ts";',
        ].join("\n"),
      ]]),
    ),
    [
      "client/shared/contract/x.ts → ../../i18n/index.ts",
      "client/shared/contract/x.ts → zod",
      "client/shared/contract/x.ts → npm:hono",
      "client/shared/contract/x.ts → ../../../server/q.ts",
    ],
  );
  assert.deepEqual(
    sharedPlatformApis(
      new Map([[
        "client/shared/x.ts",
        [
          "// document.title in a comment is fine",
          'const label = "Deno, the window, the document";',
          "const where = { location: 1, history: [] as string[] };",
          "const place = where.location;",
          "export const lang = navigator.language;",
          "export const key = Deno.env.get('KEY');",
          "export function root(el: HTMLElement) { return el; }",
          "const doc = globalThis.document;",
          "const w = place ? window : null;",
          "localStorage.setItem('a', `${indexedDB}`);",
        ].join("\n"),
      ]]),
    ),
    [
      "client/shared/x.ts: navigator",
      "client/shared/x.ts: Deno",
      "client/shared/x.ts: HTMLElement",
      "client/shared/x.ts: document",
      "client/shared/x.ts: window",
      "client/shared/x.ts: localStorage",
      "client/shared/x.ts: indexedDB",
    ],
  );
});
