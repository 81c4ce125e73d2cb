/**
 * `deno task dev`: rebuilds the client (unminified) and serves; `--watch` restarts this
 * process on any change under client/, server/ or static/, which rebuilds again.
 */
import * as esbuild from "esbuild";
import { build } from "../../build.ts";

await build({
  flavour: "preact",
  outDir: new URL("../../dist/preact", import.meta.url).pathname,
  minify: false,
});
await esbuild.stop();
await import("../../main.ts");
