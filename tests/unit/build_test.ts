import assert from "node:assert/strict";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";
import * as esbuild from "esbuild";
import {
  build,
  type BuildReport,
  drawIcon,
  encodePng,
  type Flavour,
  ICONS,
  injectShell,
  injectStaticShell,
  parseIconSvg,
  releaseFor,
} from "../../build.ts";
import { cssItems, firstScreenCss, markupNames, mayMatch } from "../../client/build/first_css.ts";
import { isSkipWaiting, listenForSkipWaiting } from "../../client/sw/messages.ts";
import { isPassThrough, isShellNavigation } from "../../client/sw/precache.ts";

/** Only react-dom's client renderer writes this key on the root container. */
const REACT_DOM_MARKER = "__reactContainer$";
/** React 19's own internals object, shared by react and react-dom. */
const REACT_MARKER = "__CLIENT_INTERNALS_DO_NOT_USE_OR_WARN_USERS_THEY_CANNOT_UPGRADE";
const HASHED = /^\/assets\/[\w-]+-[A-Z0-9]{8}\.(?:js|css)$/;

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

function attrs(html: string, tag: string, rel?: string): string[] {
  const found: string[] = [];
  for (const m of html.matchAll(new RegExp(`<${tag}\\b[^>]*>`, "g"))) {
    if (rel && !m[0].includes(`rel="${rel}"`)) continue;
    const url = m[0].match(/\s(?:src|href)="([^"]+)"/)?.[1];
    if (url) found.push(url);
  }
  return found;
}

/** The precache list as it ended up in sw.js (minified object literals). */
function precacheList(sw: string): Map<string, string | null> {
  const list = new Map<string, string | null>();
  for (
    const m of sw.matchAll(/\{url:"([^"]+)",revision:(null|"[0-9a-f]+")\}/g)
  ) {
    list.set(m[1], m[2] === "null" ? null : m[2].slice(1, -1));
  }
  return list;
}

async function allJs(report: BuildReport): Promise<string> {
  const js = report.files.filter((f) => f.path.endsWith(".js") && f.path.startsWith("/assets/"));
  assert.ok(js.length > 0, "no JS in /assets");
  const texts = await Promise.all(
    js.map((f) => Deno.readTextFile(join(report.outDir, f.path))),
  );
  return texts.join("\n");
}

/**
 * The static shells (index.html, unlock.html): the first screens' part of the stylesheet inline
 * (the server's CSP names it by hash): its rules are the whole stylesheet's, in the same order,
 * the PIN pad's in, the main screen's out; and one script, the boot script, inline too (nothing
 * is fetched before the first paint), which names the whole stylesheet, the entry and its
 * chunks. No file of the boot script is left in the build.
 */
async function checkStaticShells(report: BuildReport): Promise<void> {
  const css = await Deno.readTextFile(join(report.outDir, report.css!));
  for (const name of ["index.html", "unlock.html"]) {
    const html = await Deno.readTextFile(join(report.outDir, name));
    const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]);
    assert.equal(styles.length, 1, `${name}: one inline stylesheet`);
    let at = 0;
    for (const { prelude, body } of cssItems(styles[0])) {
      if (body === null || prelude.startsWith("@media")) continue;
      const found = css.indexOf(`${prelude}{${body}}`, at);
      assert.ok(found >= at, `${name}: ${prelude} is not the stylesheet's, or out of its order`);
      at = found;
    }
    for (const rule of [".pad-screen{", ".pin-key{", ".pin-box.filled{", ".notice{"]) {
      assert.ok(styles[0].includes(rule), `${name}: ${rule} not inline`);
    }
    for (const rule of [".main-screen{", ".side-panel{", ".request-row{"]) {
      assert.ok(!styles[0].includes(rule), `${name}: ${rule} inline`);
    }
    assert.ok(styles[0].length < css.length / 3, `${name}: the first screens' part is small`);
    assert.doesNotMatch(styles[0], /sourceMappingURL/);
    assert.doesNotMatch(html, /<link rel="(?:stylesheet|modulepreload)"/, name);
    assert.doesNotMatch(html, /\sstyle=|\son[a-z]+=/i, `${name}: inline style or handler`);
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    assert.equal(scripts.length, 1, `${name}: one script`);
    const attr = (a: string) => scripts[0][1].match(new RegExp(`\\s${a}="([^"]*)"`))?.[1];
    assert.equal(attr("type"), "module");
    assert.equal(attr("src"), undefined, `${name}: the boot script is inline`);
    assert.equal(attr("data-entry"), report.firstLoadJs[0]);
    assert.deepEqual(attr("data-preload")?.split(" "), report.firstLoadJs.slice(1));
    assert.equal(attr("data-style"), report.css);
    const boot = scripts[0][2];
    assert.ok(boot.includes("data-entry") && boot.length < 2000, "the boot script is small");
    assert.equal(new TextEncoder().encode(boot).length, report.boot.bytes);
    assert.doesNotMatch(boot, /sourceMappingURL|\bimport\s*[{*\w]/, "imports nothing");
  }
  assert.ok(
    !report.files.some((f) => /\/boot-[^/]*\.js/.test(f.path)),
    "no file of the boot script",
  );
}

/** The service worker's shell (app.html): the stylesheet, preloads and entry, all linked. */
async function checkShell(report: BuildReport): Promise<void> {
  const html = await Deno.readTextFile(join(report.outDir, "app.html"));
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
    assert.match(m[1], /\ssrc="/, `inline script in index.html: ${m[0]}`);
    assert.equal(m[2].trim(), "", "script element with content");
  }
  assert.doesNotMatch(
    html,
    /<style[\s>]|\sstyle=|\son[a-z]+=/i,
    "inline style or handler",
  );

  const scripts = attrs(html, "script");
  assert.deepEqual(
    scripts,
    [report.firstLoadJs[0]],
    "one module script: the entry",
  );
  assert.match(
    html,
    new RegExp(`<script type="module" src="${report.firstLoadJs[0]}">`),
  );
  assert.deepEqual(
    attrs(html, "link", "modulepreload"),
    report.firstLoadJs.slice(1),
  );
  assert.ok(report.css, "the app imports CSS, so a stylesheet is expected");
  assert.deepEqual(attrs(html, "link", "stylesheet"), [report.css]);
  for (
    const url of [
      ...scripts,
      ...attrs(html, "link", "modulepreload"),
      report.css,
    ]
  ) {
    assert.match(url, HASHED);
    assert.ok(await exists(join(report.outDir, url)), `${url} missing`);
  }
  for (
    const url of attrs(html, "link", "manifest").concat(
      attrs(html, "link", "icon"),
    )
  ) {
    if (url.startsWith("data:image/svg+xml,")) {
      // The static shells' tab icon: the SVG itself, inline.
      assert.match(decodeURIComponent(url), /^data:image\/svg\+xml,<svg[\s\S]*<\/svg>$/);
      continue;
    }
    assert.ok(await exists(join(report.outDir, url)), `${url} missing`);
  }
}

async function checkServiceWorker(report: BuildReport): Promise<void> {
  const sw = await Deno.readTextFile(join(report.outDir, "sw.js"));
  assert.doesNotMatch(
    sw,
    /^\s*(?:import|export)[\s{*]/m,
    "sw.js must be a classic script",
  );
  const list = precacheList(sw);
  const onDemand = new Set(report.pdf.lazy);
  const expected = report.files.map((f) => f.path).filter((p) =>
    !p.endsWith(".map") && p !== "/sw.js" && p !== "/robots.txt" && p !== "/release.json" &&
    !onDemand.has(p)
  );
  assert.ok(expected.some((p) => HASHED.test(p)), "no hashed files were built");
  assert.deepEqual(
    [...list.keys()].sort(),
    expected.sort(),
    "precache list ≠ built files",
  );
  for (const [url, revision] of list) {
    if (HASHED.test(url)) {
      assert.equal(revision, null, `${url}: hashed, needs no revision`);
    } else {assert.match(
        revision ?? "",
        /^[0-9a-f]{16}$/,
        `${url}: needs a content revision`,
      );}
  }
  assert.ok(list.has("/index.html"));
}

function checkSizes(report: BuildReport): void {
  assert.ok(report.firstLoadJs.length > 0);
  const byPath = new Map(report.files.map((f) => [f.path, f]));
  assert.ok(report.boot.bytes > report.boot.gzipBytes && report.boot.gzipBytes > 0, "boot sizes");
  let sum = report.boot.gzipBytes;
  for (const path of report.firstLoadJs) {
    const file = byPath.get(path);
    assert.ok(file, `${path} not in report.files`);
    assert.ok(
      file.bytes > file.gzipBytes && file.gzipBytes > 0,
      `${path} sizes`,
    );
    sum += file.gzipBytes;
  }
  assert.ok(report.firstLoadJsGzip > 0);
  assert.equal(report.firstLoadJsGzip, sum);
}

/**
 * pdf.js (spec §2 PDF viewer): its own chunk, loaded by import() only; worker and decoders copied
 * under hashed names; none of it in the first load or the precache, all of it named in the
 * worker's on-demand list; the first load within budget.
 */
async function checkPdfjs(report: BuildReport): Promise<void> {
  const { chunk, worker, wasmUrl, lazy } = report.pdf;
  assert.match(chunk, /^\/assets\/pdfjs-[A-Z0-9]{8}\.js$/);
  assert.match(worker, /^\/assets\/pdfjs-worker-[A-Z0-9]{8}\.js$/);
  assert.match(wasmUrl, /^\/assets\/pdfjs-decoders-[A-Z0-9]{8}\/$/);
  const paths = new Set(report.files.map((f) => f.path));
  for (const p of [chunk, worker, `${wasmUrl}openjpeg_nowasm_fallback.js`]) {
    assert.ok(paths.has(p), `${p} not built`);
    assert.ok(lazy.includes(p), `${p} not on demand`);
  }
  const workerText = await Deno.readTextFile(join(report.outDir, worker));
  assert.match(workerText, /WorkerMessageHandler/, "the worker is pdf.js's");
  for (const p of report.firstLoadJs) {
    assert.ok(!lazy.includes(p), `${p}: pdf.js in the first load`);
    const text = await Deno.readTextFile(join(report.outDir, p));
    assert.ok(!text.includes("GlobalWorkerOptions"), `${p} carries pdf.js code`);
  }
  const html = await Deno.readTextFile(join(report.outDir, "index.html"));
  assert.ok(!html.includes("/assets/pdfjs"), "index.html names a pdf.js file");
  const sw = await Deno.readTextFile(join(report.outDir, "sw.js"));
  const list = precacheList(sw);
  for (const p of lazy) {
    assert.ok(!list.has(p), `${p} is precached`);
    assert.ok(sw.includes(JSON.stringify(p)), `${p} missing from the on-demand list`);
  }
  // The chunk points pdf.js at the worker and decoders of this very build.
  const chunkText = await Deno.readTextFile(join(report.outDir, chunk));
  assert.ok(chunkText.includes(JSON.stringify(worker)), "workerSrc is not the built worker");
  assert.ok(chunkText.includes(JSON.stringify(wasmUrl)), "wasmUrl is not the built folder");
  assert.ok(report.pdf.gzipBytes > 100 * 1024, "pdf.js sizes are reported");
  if (report.flavour === "preact") {
    assert.ok(
      report.firstLoadJsGzip <= report.budgetGzip,
      `first-load JS ${report.firstLoadJsGzip} B gzip > budget ${report.budgetGzip} B`,
    );
  }
}

/**
 * The first paint needs no JavaScript (the first-load goal, docs/benchmarks.md): index.html carries
 * the activation screen's markup (what a first visit shows) with this build's version label;
 * nothing inline but the stylesheet and the boot script (checkStaticShells).
 */
async function checkStaticFirstScreen(report: BuildReport): Promise<void> {
  const html = await Deno.readTextFile(join(report.outDir, "index.html"));
  const root = html.slice(html.indexOf('<div id="root">'), html.indexOf("</body>"));
  assert.match(root, /^<div id="root"><div class="app" data-phase="activate"><main/);
  assert.match(root, /<h1>Activate this device<\/h1>/);
  assert.equal(root.match(/class="pin-key"/g)?.length, 10, "the ten digit keys");
  assert.ok(root.includes(`V ${report.release.version}, released ${report.release.released}`));
  assert.equal(html.match(/<script(?![^>]*\ssrc=)[^>]*>/gi)?.length, 1, "the boot script only");
  assert.doesNotMatch(html, /\sstyle=|\son[a-z]+=/i);
  // The PIN pad's shell (a navigation with the PIN length cookie) and the worker's (empty).
  const unlock = await Deno.readTextFile(join(report.outDir, "unlock.html"));
  assert.match(unlock, /<div id="root"><div class="app" data-phase="unlock"><main/);
  assert.equal(unlock.match(/class="pin-box"/g)?.length, 6, "six PIN boxes");
  const app = await Deno.readTextFile(join(report.outDir, "app.html"));
  assert.ok(app.includes('<div id="root"></div>'), "the worker's shell has an empty root");
  const head = (h: string) => h.slice(0, h.indexOf("<body>"));
  assert.equal(head(unlock), head(html), "the same head: stylesheet inline, boot script");
  assert.ok(precacheList(await Deno.readTextFile(join(report.outDir, "sw.js"))).has("/app.html"));
}

/**
 * What typing a PIN does not need stays out of the first load (the first-load budget): QCDB
 * and the device's keeping, the contracts' schemas (zod), the lists' code, the side panels.
 * Read from the source maps' sources.
 */
async function checkFirstLoadModules(report: BuildReport): Promise<void> {
  const sources = new Set<string>();
  for (const p of report.firstLoadJs) {
    const map = JSON.parse(await Deno.readTextFile(join(report.outDir, `${p}.map`)));
    for (const s of map.sources as string[]) sources.add(s.replace(/^(\.\.\/)+/, ""));
  }
  assert.ok([...sources].some((s) => s.endsWith("client/components/PinPad.tsx")), "no PIN pad");
  const kept = [
    // QCDB and the device's keeping come with start-up, after the first render (issue 41).
    /node_modules\/idb\//,
    /client\/db\//,
    /client\/actions\/(device|lists|cache)\.ts$/,
    /node_modules\/zod\//,
    /client\/shared\/contract\/(?!routes\.ts)/,
    /client\/actions\/(request_rows|transaction_lists)\.ts$/,
    /client\/screens\/(LostActivation|Options)\//,
  ];
  for (const s of sources) {
    assert.ok(!kept.some((re) => re.test(s)), `${s} is in the first load`);
  }
}

/** Every compressible file has smaller .br and .gz copies that decode to it; none is precached. */
async function checkPrecompressed(report: BuildReport): Promise<void> {
  const compressible = /\.(?:js|css|html|json|webmanifest|svg|txt)$/;
  const list = precacheList(await Deno.readTextFile(join(report.outDir, "sw.js")));
  const onDisk: string[] = [];
  const reported = new Set(report.files.map((f) => f.path));
  for (const f of report.files) {
    const path = join(report.outDir, f.path);
    for (
      const [coding, suffix, decode] of [
        ["br", ".br", brotliDecompressSync],
        ["gzip", ".gz", gunzipSync],
      ] as const
    ) {
      const copy = await Deno.readFile(path + suffix).catch(() => null);
      assert.equal(!!copy, f.precompressed.includes(coding), `${f.path}${suffix} vs report`);
      if (!copy) continue;
      onDisk.push(f.path + suffix);
      assert.ok(compressible.test(f.path), `${f.path} is not text, yet has ${suffix}`);
      assert.ok(copy.length < f.bytes, `${f.path}${suffix} is no smaller`);
      assert.deepEqual(
        new Uint8Array(decode(copy)),
        await Deno.readFile(path),
        `${f.path}${suffix}`,
      );
      if (coding === "br") assert.equal(f.brotliBytes, copy.length);
      if (coding === "gzip") assert.equal(f.gzipBytes, copy.length);
    }
    if (!f.precompressed.includes("br")) assert.equal(f.brotliBytes, f.bytes, f.path);
    // A copy is never a file of the report; a file of its own may be gzip (the receipt
    // reader's language data: no file without the suffix beside it).
    assert.ok(
      !/\.(?:br|gz)$/.test(f.path) || !reported.has(f.path.replace(/\.(?:br|gz)$/, "")),
      `${f.path}: copies are not files of the report`,
    );
  }
  // Every shell file a browser loads before the PIN pad has both copies.
  for (
    const path of [
      "/index.html",
      "/unlock.html",
      "/sw.js",
      report.css!,
      ...report.firstLoadJs,
    ]
  ) {
    const f = report.files.find((f) => f.path === path);
    assert.deepEqual(f?.precompressed, ["br", "gzip"], path);
  }
  assert.ok(onDisk.length > 0);
  for (const copy of onDisk) assert.ok(!list.has(copy), `${copy} is precached`);
  const byPath = new Map(report.files.map((f) => [f.path, f]));
  const brotli = (paths: string[]) => paths.reduce((n, p) => n + byPath.get(p)!.brotliBytes, 0);
  assert.equal(
    report.firstLoadJsBrotli,
    report.boot.brotliBytes + brotli(report.firstLoadJs),
  );
  assert.equal(report.firstLoadBrotli, brotli(["/index.html", ...report.firstLoadJs]));
  assert.ok(report.firstLoadJsBrotli < report.firstLoadJsGzip);
}

/** Width and height from a PNG's IHDR. */
function pngSize(png: Uint8Array): [number, number] {
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const view = new DataView(png.buffer, png.byteOffset);
  return [view.getUint32(16), view.getUint32(20)];
}

/**
 * Installability (spec §1 installed app): every icon the manifest and index.html name exists at its
 * stated size (drawn at build from icon.svg), maskable ones included, and is precached; the
 * shortcuts point at URLs the app takes; the version label of the build is in the first load.
 */
async function checkIconsAndRelease(report: BuildReport): Promise<void> {
  const manifest = JSON.parse(
    await Deno.readTextFile(join(report.outDir, "manifest.webmanifest")),
  );
  const list = precacheList(await Deno.readTextFile(join(report.outDir, "sw.js")));
  const icons: { src: string; sizes: string; type: string; purpose?: string }[] = [
    ...manifest.icons,
    ...manifest.shortcuts.flatMap((s: { icons: unknown[] }) => s.icons),
    { src: "/icons/apple-touch-icon.png", sizes: "180x180", type: "image/png" },
  ];
  for (const icon of icons) {
    const bytes = await Deno.readFile(join(report.outDir, icon.src));
    assert.ok(list.has(icon.src), `${icon.src} is not precached`);
    if (icon.type !== "image/png") continue;
    assert.equal(pngSize(bytes).join("x"), icon.sizes, icon.src);
  }
  for (const size of ["192x192", "512x512"]) {
    for (const purpose of ["any", "maskable"]) {
      assert.ok(
        manifest.icons.some((i: { sizes: string; purpose: string; type: string }) =>
          i.sizes === size && i.purpose === purpose && i.type === "image/png"
        ),
        `no ${purpose} PNG icon of ${size}`,
      );
    }
  }
  assert.deepEqual(
    manifest.shortcuts.map((s: { url: string }) => s.url),
    ["/?open=new-request", "/?open=wallet"],
  );
  const html = await Deno.readTextFile(join(report.outDir, "index.html"));
  assert.deepEqual(attrs(html, "link", "apple-touch-icon"), ["/icons/apple-touch-icon.png"]);
  const firstLoad = await Promise.all(
    report.firstLoadJs.map((p) => Deno.readTextFile(join(report.outDir, p))),
  );
  for (const value of [report.release.version, report.release.released]) {
    assert.ok(
      firstLoad.join("\n").includes(JSON.stringify(value)),
      `${value} not in the first load`,
    );
  }
  assert.match(report.release.version, /^2\.\d{2}\.\d{4}$/);
  assert.match(report.release.released, /^\d{2}-\d{2}-\d{4}$/);
  // spec §1, one source: the server's initialize answers with this file (server/release.ts).
  assert.deepEqual(
    JSON.parse(await Deno.readTextFile(join(report.outDir, "release.json"))),
    report.release,
  );
  assert.ok(!list.has("/release.json"), "release.json is the server's, not precached");
}

Deno.test({
  name: "[build] preact and react flavours",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const dirs: string[] = [];
    try {
      const reports = {} as Record<Flavour, BuildReport>;
      for (const flavour of ["preact", "react"] as const) {
        const outDir = await Deno.makeTempDir({
          prefix: `qcard_build_${flavour}_`,
        });
        dirs.push(outDir);
        reports[flavour] = await build({ flavour, outDir });
      }
      for (const flavour of ["preact", "react"] as const) {
        const report = reports[flavour];
        await t.step(
          `[build] ${flavour}: app.html loads existing hashed files, nothing inline`,
          () => checkShell(report),
        );
        await t.step(
          `[build] ${flavour}: index.html and unlock.html: the stylesheet and boot script inline`,
          () => checkStaticShells(report),
        );
        await t.step(
          `[build] ${flavour}: sw.js precaches every built file but the on-demand ones`,
          () => checkServiceWorker(report),
        );
        await t.step(
          `[build] ${flavour}: first-load JS sizes are reported`,
          () => checkSizes(report),
        );
        await t.step(
          `[build] ${flavour}: text files get .br and .gz copies, none of them precached`,
          () => checkPrecompressed(report),
        );
        await t.step(
          `[build] ${flavour}: index.html paints the activation screen without JavaScript`,
          () => checkStaticFirstScreen(report),
        );
        await t.step(
          `[build] ${flavour}: no QCDB, schema (zod), list code or side panel in the first load`,
          () => checkFirstLoadModules(report),
        );
        await t.step(
          `[build] ${flavour}: pdf.js is on demand (own chunk, worker in dist), not first load`,
          () => checkPdfjs(report),
        );
        await t.step(
          `[build] ${flavour}: PNG, maskable and apple-touch icons at their sizes; version label`,
          () => checkIconsAndRelease(report),
        );
      }
      await t.step("[build] preact flavour carries no React code", async () => {
        const js = await allJs(reports.preact);
        assert.ok(
          !js.includes(REACT_DOM_MARKER),
          "react-dom found in the preact flavour",
        );
        assert.ok(
          !js.includes(REACT_MARKER),
          "react found in the preact flavour",
        );
      });
      await t.step("[build] react flavour carries react-dom", async () => {
        const js = await allJs(reports.react);
        assert.ok(
          js.includes(REACT_DOM_MARKER),
          "react-dom missing from the react flavour",
        );
        assert.ok(
          js.includes(REACT_MARKER),
          "react missing from the react flavour",
        );
      });
      await t.step(
        "[build] preact flavour loads less JS up front than react",
        () => {
          assert.ok(
            reports.preact.firstLoadJsGzip < reports.react.firstLoadJsGzip,
          );
        },
      );
    } finally {
      await esbuild.stop();
      for (const dir of dirs) await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("[build] shell gets external tags only and refuses inline code", () => {
  const html = "<html>\n  <head>\n    <title>x</title>\n  </head>\n</html>";
  const out = injectShell(html, {
    js: ["/assets/main-A.js", "/assets/chunk-B.js"],
    css: "/assets/main-C.css",
  });
  assert.equal(
    out,
    "<html>\n  <head>\n    <title>x</title>\n" +
      '    <link rel="stylesheet" href="/assets/main-C.css">\n' +
      '    <link rel="modulepreload" href="/assets/chunk-B.js">\n' +
      '    <script type="module" src="/assets/main-A.js"></script>\n' +
      "  </head>\n</html>",
  );
  const shell = { js: ["/assets/main-A.js"], css: null, boot: "start()" };
  for (
    const bad of [
      "<script>alert(1)</script>",
      "<style>p{}</style>",
      '<p style="x">',
      '<p onclick="x">',
    ]
  ) {
    assert.throws(() => injectShell(`<head>${bad}</head>`, shell), /inline/);
    assert.throws(() => injectStaticShell(`<head>${bad}</head>`, shell, "p{}"), /inline/);
  }
});

Deno.test("[build] the static shells carry the stylesheet and the boot script inline, nothing else", () => {
  const html = "<html>\n  <head>\n    <title>x</title>\n  </head>\n</html>";
  const shell = {
    js: ["/assets/main-A.js", "/assets/chunk-B.js", "/assets/chunk-E.js"],
    css: "/assets/main-C.css",
    boot: "start();\n//# sourceMappingURL=boot-D.js.map\n",
  };
  assert.equal(
    injectStaticShell(
      html,
      shell,
      "p{color:red}\n/*# sourceMappingURL=/assets/main-C.css.map */\n",
    ),
    "<html>\n  <head>\n    <title>x</title>\n" +
      "    <style>p{color:red}</style>\n" +
      '    <script type="module" data-entry="/assets/main-A.js"' +
      ' data-preload="/assets/chunk-B.js /assets/chunk-E.js" data-style="/assets/main-C.css">' +
      "start();</script>\n" +
      "  </head>\n</html>",
  );
  assert.throws(() => injectStaticShell(html, shell, "p{}</style><script>x</script>"), /inline/);
  for (const boot of ['a("</script>")', 'a("</SCRIPT ")', 'a("<!--")']) {
    assert.throws(() => injectStaticShell(html, { ...shell, boot }, "p{}"), /cannot be inlined/);
  }
});

Deno.test("[build] the first screens' part of the stylesheet: the rules that can match their markup, in order", () => {
  const names = markupNames(
    '<div class="app"><main class="pad-screen"><h1 id="t">x</h1><button class="pin-key small">',
  );
  for (
    const s of [
      ".pin-key",
      ".pin-key.small",
      "main.pad-screen > h1",
      ".app #t",
      "button:focus-visible",
      ":root[data-mode=approval]",
      "*",
      "html",
      ".pin-key:not(.open)",
    ]
  ) {
    assert.ok(mayMatch(s, names), s);
  }
  for (const s of [".side-panel", ".pin-key.open", "main table", "#other", ".app .tab::after"]) {
    assert.ok(!mayMatch(s, names), s);
  }
  const css = ":root{--a: 1}.tab{color:red}.pin-key,.tab{margin:0}" +
    "@media (min-width:600px){.tab{x:1}.pin-key{x:2}}@media print{.tab{y:1}}" +
    ".shake{animation:shake .5s}@keyframes shake{to{opacity:0}}@keyframes spin{to{opacity:1}}" +
    '.x:after{content:"}{"}.pin-key{font-size:26px}';
  assert.equal(
    firstScreenCss(css, '<p class="pin-key shake">'),
    ":root{--a: 1}.pin-key,.tab{margin:0}@media (min-width:600px){.pin-key{x:2}}" +
      ".shake{animation:shake .5s}@keyframes shake{to{opacity:0}}.pin-key{font-size:26px}",
  );
});

Deno.test("[sw] API and development pages (every /_ path) are never intercepted; other navigations get the shell", () => {
  for (
    const path of [
      "/bonita/API/cards/1",
      "/bonita",
      "/bonita?x=1",
      "/_outbox",
      "/_outbox/3",
      "/_issuer",
      "/_issuer?result=a1",
      "/_issuer/purchase",
      "/_future",
    ]
  ) {
    assert.ok(isPassThrough(path), path);
    assert.ok(!isShellNavigation(path), path);
  }
  for (
    const path of ["/", "/?source=pwa", "/requests", "/bonitafoo", "/outbox"]
  ) {
    assert.ok(!isPassThrough(path), path);
    assert.ok(isShellNavigation(path), path);
  }
  for (const path of ["/robots.txt", "/icons/missing.png", "/sw.js?v=2"]) {
    assert.ok(!isShellNavigation(path), `${path}: a file, not the shell`);
  }
});

Deno.test("[sw] only a SKIP_WAITING message makes the waiting worker take over", () => {
  let listener: ((event: { data: unknown }) => void) | undefined;
  let skips = 0;
  listenForSkipWaiting({
    addEventListener(type, l) {
      assert.equal(type, "message");
      listener = l;
    },
    skipWaiting() {
      skips++;
      return Promise.resolve();
    },
  });
  assert.ok(listener, "no message listener registered");
  for (
    const data of [null, "SKIP_WAITING", { type: "skip_waiting" }, {
      kind: "SKIP_WAITING",
    }]
  ) {
    listener({ data });
  }
  assert.equal(skips, 0, "skipWaiting without the user's consent");
  listener({ data: { type: "SKIP_WAITING" } });
  assert.equal(skips, 1);
  assert.ok(isSkipWaiting({ type: "SKIP_WAITING" }));
});

Deno.test("[build] version label: 2.<yy>.<MMdd> released dd-MM-yyyy (spec §1's example)", () => {
  assert.deepEqual(releaseFor(new Date("2025-02-11T23:30:00Z")), {
    version: "2.25.0211",
    released: "11-02-2025",
  });
  assert.deepEqual(releaseFor(new Date("2026-12-01T00:00:00Z"), "3.0.1"), {
    version: "3.0.1",
    released: "01-12-2026",
  });
});

Deno.test("[build] icons: icon.svg's rects drawn into a PNG that decodes to the pixels", async () => {
  const logo = parseIconSvg(await Deno.readTextFile("static/icons/icon.svg"));
  assert.ok(logo.rects.length >= 2);
  assert.throws(
    () => parseIconSvg('<svg viewBox="0 0 8 8"><path d="M0 0h8"/></svg>'),
    /<path> is not drawn/,
  );
  const any = drawIcon(logo, 48, "any");
  const maskable = drawIcon(logo, 48, "maskable");
  // "any" keeps the SVG's rounded transparent corners; maskable fills to the edges.
  assert.equal(any[3], 0, "corner of an any icon is transparent");
  assert.deepEqual([...maskable.subarray(0, 4)], [...logo.rects[0].fill, 255]);
  const png = encodePng(48, 48, any);
  assert.deepEqual(pngSize(png), [48, 48]);
  // IDAT (one chunk) inflates to filter byte 0 + the row's RGBA, row after row.
  const idat = png.indexOf(0x49, 33); // 'I' of IDAT after IHDR (8 + 25 bytes)
  const len = new DataView(png.buffer).getUint32(idat - 4);
  const raw = new Uint8Array(inflateSync(png.subarray(idat + 4, idat + 4 + len)));
  assert.equal(raw.length, 48 * (1 + 48 * 4));
  assert.deepEqual([...raw.subarray(1, 1 + 48 * 4)], [...any.subarray(0, 48 * 4)]);
  assert.deepEqual(ICONS.map((i) => i.size), [192, 512, 192, 512, 180]);
});
