/** The checks of a finished build's compressed copies, icons and release label (build_test.ts). */
import assert from "node:assert/strict";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { type BuildReport } from "../../build.ts";
import { pngSize } from "./build_helpers.ts";
import { attrs, precacheList } from "./build_checks.ts";

/** Every compressible file has smaller .br and .gz copies that decode to it; none is precached. */
export async function checkPrecompressed(report: BuildReport): Promise<void> {
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

/**
 * Installability (spec §1 installed app): every icon the manifest and index.html name exists at its
 * stated size (drawn at build from icon.svg), maskable ones included, and is precached; the
 * shortcuts point at URLs the app takes; the version label of the build is in the first load.
 */
export async function checkIconsAndRelease(report: BuildReport): Promise<void> {
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
