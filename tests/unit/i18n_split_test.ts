/**
 * The first load bundles only the English of en_shell.ts (first-load budget); the
 * rest of en.ts arrives with the main screen's chunk. These tests keep that split honest:
 * every key a first-load module names is in the shell part, and esbuild really leaves en.ts
 * out of the first load.
 */
import assert from "node:assert/strict";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { en } from "../../client/shared/i18n/locales/en.ts";
import { enShell } from "../../client/shared/i18n/locales/en_shell.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const ENTRY = resolve(ROOT, "client/main.tsx");

/**
 * The modules main.tsx reaches through static imports (what esbuild puts in the first
 * load; `import()` starts a lazy chunk, `import type` is erased), found by reading the
 * sources: a superset of esbuild's, since it does not tree-shake.
 */
function firstLoadModules(): string[] {
  const seen = new Set<string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (!/\.tsx?$/.test(file)) return;
    const src = Deno.readTextFileSync(file);
    const re =
      /^\s*(?:import|export)\s+(?!type\s)(?:[^"';]*?\sfrom\s+)?["'](\.{1,2}\/[^"']+)["']/gm;
    for (const m of src.matchAll(re)) walk(resolve(dirname(file), m[1]));
  };
  walk(ENTRY);
  return [...seen].filter((f) => /\.tsx?$/.test(f) && !f.includes("/i18n/locales/"));
}

Deno.test("[i18n split] every key named by a first-load module is in en_shell.ts", () => {
  const modules = firstLoadModules();
  assert.ok(modules.some((f) => f.endsWith("screens/PadScreen.tsx")), "graph misses the PIN pad");
  assert.ok(!modules.some((f) => f.endsWith("app/MainArea.tsx")), "MainArea must stay lazy");
  const missing: string[] = [];
  for (const file of modules) {
    const src = Deno.readTextFileSync(file);
    // Any string literal that is a key counts: t("a.b"), ternaries, key maps alike.
    for (const m of src.matchAll(/["'`]([A-Za-z]+(?:\.[A-Za-z0-9]+)+)["'`]/g)) {
      if (m[1] in en && !(m[1] in enShell)) missing.push(`${m[1]} (${relative(ROOT, file)})`);
    }
    // A key computed at run time cannot be checked here: name the keys literally instead.
    assert.ok(!/\bt\(\s*`/.test(src), `${relative(ROOT, file)} builds a key with a template`);
  }
  assert.deepEqual(missing, [], "move these keys from en.ts to en_shell.ts");
});

Deno.test("[i18n split] en is en_shell plus the main part, no key in both files", () => {
  const keysOf = (path: string) =>
    [...Deno.readTextFileSync(resolve(ROOT, path)).matchAll(/^ {2}"([^"]+)":/gm)].map((m) => m[1]);
  const shellKeys = keysOf("client/shared/i18n/locales/en_shell.ts");
  // en.ts and the four parts it spreads.
  const mainKeys = ["en", "en_requests", "en_approvals", "en_declare", "en_reading", "en_export"]
    .flatMap((f) => keysOf(`client/shared/i18n/locales/${f}.ts`));
  assert.deepEqual(shellKeys.filter((k) => mainKeys.includes(k)), [], "keys in both files");
  assert.deepEqual([...shellKeys, ...mainKeys].sort(), Object.keys(en).sort());
  for (const [k, v] of Object.entries(enShell)) assert.equal(en[k as keyof typeof en], v, k);
  assert.ok(shellKeys.length < mainKeys.length / 2, "the shell part should stay small");
});

Deno.test("[i18n split] esbuild leaves en.ts out of the first load and puts it in MainArea's chunk", async () => {
  try {
    const r = await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: { main: "client/main.tsx" },
      outdir: "/tmp/qc-i18n-split",
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "browser",
      write: false,
      metafile: true,
      jsx: "automatic",
      jsxImportSource: "react",
      loader: { ".png": "file", ".svg": "file", ".woff2": "file" },
      logLevel: "silent",
    });
    const outputs = r.metafile.outputs;
    const entry = Object.keys(outputs).find((o) => outputs[o].entryPoint === "client/main.tsx")!;
    const first = new Set<string>();
    const walk = (o: string) => {
      if (first.has(o)) return;
      first.add(o);
      for (const i of outputs[o].imports) if (i.kind === "import-statement") walk(i.path);
    };
    walk(entry);
    const inputsOf = (outs: Iterable<string>) =>
      new Set([...outs].flatMap((o) => Object.keys(outputs[o].inputs)));
    const firstInputs = inputsOf(first);
    assert.ok(firstInputs.has("client/shared/i18n/locales/en_shell.ts"));
    assert.ok(!firstInputs.has("client/shared/i18n/locales/en.ts"), "en.ts is in the first load");
    assert.ok(!firstInputs.has("client/app/MainArea.tsx"));
    assert.ok(inputsOf(Object.keys(outputs)).has("client/shared/i18n/locales/en.ts"));
  } finally {
    await esbuild.stop();
  }
});
