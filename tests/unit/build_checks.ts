/**
 * The checks of a finished build (build_test.ts): what each flavour's output must hold, one
 * function a subject — the static shells, the service worker, sizes, pdf.js, the first screen,
 * the first load's modules, the compressed copies, icons and the release label.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type BuildReport } from "../../build.ts";
import { cssItems } from "../../client/build/first_css.ts";

/** Only react-dom's client renderer writes this key on the root container. */
export const REACT_DOM_MARKER = "__reactContainer$";

/** React 19's own internals object, shared by react and react-dom. */
export const REACT_MARKER = "__CLIENT_INTERNALS_DO_NOT_USE_OR_WARN_USERS_THEY_CANNOT_UPGRADE";

export const HASHED = /^\/assets\/[\w-]+-[A-Z0-9]{8}\.(?:js|css)$/;

export async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

export function attrs(html: string, tag: string, rel?: string): string[] {
  const found: string[] = [];
  for (const m of html.matchAll(new RegExp(`<${tag}\\b[^>]*>`, "g"))) {
    if (rel && !m[0].includes(`rel="${rel}"`)) continue;
    const url = m[0].match(/\s(?:src|href)="([^"]+)"/)?.[1];
    if (url) found.push(url);
  }
  return found;
}

/** The precache list as it ended up in sw.js (minified object literals). */
export function precacheList(sw: string): Map<string, string | null> {
  const list = new Map<string, string | null>();
  for (
    const m of sw.matchAll(/\{url:"([^"]+)",revision:(null|"[0-9a-f]+")\}/g)
  ) {
    list.set(m[1], m[2] === "null" ? null : m[2].slice(1, -1));
  }
  return list;
}

export async function allJs(report: BuildReport): Promise<string> {
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
export async function checkStaticShells(report: BuildReport): Promise<void> {
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
export async function checkShell(report: BuildReport): Promise<void> {
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

export async function checkServiceWorker(report: BuildReport): Promise<void> {
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

export function checkSizes(report: BuildReport): void {
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
export async function checkPdfjs(report: BuildReport): Promise<void> {
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
export async function checkStaticFirstScreen(report: BuildReport): Promise<void> {
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
export async function checkFirstLoadModules(report: BuildReport): Promise<void> {
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
