/**
 * The build (build.ts) in both flavours, checked by subject (build_checks.ts,
 * build_checks_assets.ts); the shells and the service worker: build_shell_test.ts, build_sw_test.ts.
 */
import assert from "node:assert/strict";
import * as esbuild from "esbuild";
import { build, type BuildReport, type Flavour } from "../../build.ts";
import {
  allJs,
  checkFirstLoadModules,
  checkPdfjs,
  checkServiceWorker,
  checkShell,
  checkSizes,
  checkStaticFirstScreen,
  checkStaticShells,
  REACT_DOM_MARKER,
  REACT_MARKER,
} from "./build_checks.ts";
import { checkIconsAndRelease, checkPrecompressed } from "./build_checks_assets.ts";

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
