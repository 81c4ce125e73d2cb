import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  checkRepository,
  circlesOf,
  type Edge,
  edgesOf,
  importsOf,
  pathRound,
} from "../tools/circles.ts";
import { checkFolders, type Tree } from "../tools/folders.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

Deno.test("[circles] the repository's modules import one another without a circle", async () => {
  const { files, edges, circles } = await checkRepository(ROOT);
  // A parse that found nothing would pass for the wrong reason.
  assert.ok(files > 300 && edges.length > 1000, `${files} files, ${edges.length} edges`);
  assert.deepEqual(circles.map((c) => `${c.join(" ↔ ")}: ${pathRound(c, edges)}`), []);
});

Deno.test("[circles] every form of import is read; comments, strings and regexes are not", () => {
  const src = [
    'import a from "./a.ts";',
    'import type { B } from "./b.ts";',
    "import {",
    "  c,",
    "  type C,",
    '} from "./c.ts";',
    'import * as d from "./d.ts";',
    'import e, { f } from "./e.ts";',
    'import "./side.ts";',
    'export { g } from "./g.ts";',
    'export * as h from "./h.ts";',
    'export type { I } from "./i.ts";',
    "export { a };",
    'const lazy = () => import("./lazy.ts");',
    'type T = typeof import("./t.ts");',
    '// import x from "./comment.ts";',
    '/* import("./block.ts") */',
    "const s = \"import y from './string.ts'\";",
    'const r = /["\']import("\\.\\/regex.ts")/;',
    'const tpl = `import z from "./template.ts" ${import.meta.url}`;',
    'const meta = import.meta.resolve("./meta.ts");',
  ].join("\n");
  assert.deepEqual(importsOf(src), [
    { specifier: "./a.ts", kind: "static" },
    { specifier: "./b.ts", kind: "type" },
    { specifier: "./c.ts", kind: "static" },
    { specifier: "./d.ts", kind: "static" },
    { specifier: "./e.ts", kind: "static" },
    { specifier: "./side.ts", kind: "static" },
    { specifier: "./g.ts", kind: "static" },
    { specifier: "./h.ts", kind: "static" },
    { specifier: "./i.ts", kind: "type" },
    { specifier: "./lazy.ts", kind: "dynamic" },
    { specifier: "./t.ts", kind: "dynamic" },
  ]);
});

Deno.test("[circles] a circle closed by a type import and a dynamic import is found; a chain is not", () => {
  const sources = new Map([
    ["client/x/a.ts", 'import { b } from "./b.ts";\nimport "../../lib/free.ts";'],
    ["client/x/b.ts", 'export const b = () => import("../y/c.ts");'],
    ["client/y/c.ts", 'import type { A } from "../x/a.ts";'],
    ["client/y/d.ts", 'import { b } from "../x/b.ts";'],
    ["lib/free.ts", 'import "https://example.com/remote.ts";\nimport "zod";'],
  ]);
  const edges = edgesOf(sources);
  assert.equal(edges.length, 5);
  const circles = circlesOf(sources.keys(), edges);
  assert.deepEqual(circles, [["client/x/a.ts", "client/x/b.ts", "client/y/c.ts"]]);
  assert.equal(
    pathRound(circles[0], edges),
    "client/x/a.ts → client/x/b.ts → (dynamic) client/y/c.ts → (type) client/x/a.ts",
  );
  // Without the type import, the same files form a chain.
  sources.set("client/y/c.ts", "export const c = 1;");
  const chain = edgesOf(sources);
  assert.deepEqual(circlesOf(sources.keys(), chain), []);
  // A module that imports itself is a circle of one.
  assert.deepEqual(
    circlesOf(["s.ts"], edgesOf(new Map([["s.ts", 'import "./s.ts";']]))),
    [["s.ts"]],
  );
});

Deno.test("[folders] the repository's folders keep the declared order: no knot, none unplaced", async () => {
  const { edges } = await checkRepository(ROOT);
  const report = checkFolders(edges);
  assert.ok(report.folders > 40 && report.pairs.length > 150, `${report.folders} folders`);
  assert.deepEqual(
    { knots: report.knots, against: report.against, unplaced: report.unplaced },
    { knots: [], against: [], unplaced: [] },
  );
});

Deno.test("[folders] an import up, across a layer, into a tree not stood on, or from nowhere is named", () => {
  const order: Tree[] = [
    { name: "s", standsOn: ["lib"], layers: [["s/app"], ["s/a", "s/b"], ["s/base"]] },
    { name: "c", standsOn: [], layers: [["c/ui"]] },
    { name: "lib", standsOn: [], layers: [["lib/x"]] },
  ];
  const e = (from: string, to: string): Edge => ({ from, to, kind: "static" });
  const fine = [
    e("s/app/main.ts", "s/a/one.ts"),
    e("s/a/one.ts", "s/base/config.ts"),
    e("s/b/two.ts", "lib/x/util.ts"),
    e("s/a/one.ts", "s/a/other.ts"),
    e("main.ts", "s/app/main.ts"), // top-level entry: outside the house
    e("tests/t.ts", "s/base/config.ts"), // tests: outside the house
  ];
  assert.deepEqual(checkFolders(fine, order).against, []);
  assert.deepEqual(checkFolders(fine, order).knots, []);
  const report = checkFolders([
    ...fine,
    e("s/base/config.ts", "s/app/main.ts"), // up
    e("s/a/one.ts", "s/b/two.ts"), // same layer
    e("s/a/one.ts", "c/ui/view.ts"), // a tree s does not stand on
    e("s/new/thing.ts", "s/base/config.ts"), // a folder in no layer
  ], order);
  assert.deepEqual(report.against, [
    "s/a → c/ui (s does not stand on c): s/a/one.ts → c/ui/view.ts",
    "s/a → s/b (same layer): s/a/one.ts → s/b/two.ts",
    "s/base → s/app (a layer above): s/base/config.ts → s/app/main.ts",
  ]);
  assert.deepEqual(report.unplaced, ["s/new"]);
  assert.deepEqual(report.knots, [["s/a", "s/app", "s/base"]]);
});
