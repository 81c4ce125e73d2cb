/**
 * Comments cite the spec section they follow ("spec §7 appcolor") or say what a thing is for,
 * never the tracker ("issue 14"): the tracker's numbers mean nothing to the next reader.
 * Checked in the app's sources (client/, server/, main.ts, build.ts); a string that says
 * "issue 4" is code, not a comment, and test names in tests/ are not read at all.
 */
import assert from "node:assert/strict";
import { posix } from "node:path";
import { fileURLToPath } from "node:url";
import { tokenize } from "../tools/circles.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const ROOTS = ["client", "server", "main.ts", "build.ts"];

const TRACKER = /\b[Ii]ssues? #?\d+/g;

/** How many tracker citations `src` holds in its comments (strings and code do not count). */
function trackerComments(path: string, src: string): number {
  const all = src.match(TRACKER)?.length ?? 0;
  if (path.endsWith(".css")) {
    // CSS has comments only between /* and */; strings there never name an issue.
    return [...src.matchAll(/\/\*[\s\S]*?\*\//g)]
      .reduce((n, m) => n + (m[0].match(TRACKER)?.length ?? 0), 0);
  }
  // The tokenizer drops comments and keeps strings: what is in the source but in no string
  // or name is in a comment (template text is dropped too, and counted as a comment).
  let inCode = 0;
  const tokens = tokenize(src);
  tokens.forEach((tok, k) => {
    if (tok.t === "string") inCode += tok.v.match(TRACKER)?.length ?? 0;
    else if (tok.t === "name" && /^[Ii]ssues?$/.test(tok.v) && tokens[k + 1]?.t === "other") {
      inCode++;
    }
  });
  return all - inCode;
}

/** "path: N" for every file of `sources` whose comments cite the tracker. */
function citing(sources: Map<string, string>): string[] {
  const found: string[] = [];
  for (const [path, src] of sources) {
    const n = trackerComments(path, src);
    if (n > 0) found.push(`${path}: ${n}`);
  }
  return found;
}

async function appSources(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const visit = async (rel: string): Promise<void> => {
    const info = await Deno.stat(posix.join(ROOT, rel));
    if (info.isFile) {
      if (/\.(tsx?|css)$/.test(rel)) out.set(rel, await Deno.readTextFile(posix.join(ROOT, rel)));
      return;
    }
    for await (const e of Deno.readDir(posix.join(ROOT, rel))) await visit(posix.join(rel, e.name));
  };
  for (const r of ROOTS) await visit(r);
  return out;
}

Deno.test("[comments] the app's comments cite the spec, not the tracker", async () => {
  const sources = await appSources();
  assert.ok(sources.size > 300, `${sources.size} files read`);
  assert.deepEqual(citing(sources), []);
});

Deno.test("[comments] a tracker citation in a comment is found; one in a string is not", () => {
  const sources = new Map([
    ["server/a.ts", "// Relay mode (issue 14): the edge.\nconst x = 1;"],
    ["server/b.ts", "/**\n * Files in KV (issues 11/12; spec §3).\n */\nexport const y = 2;"],
    ["client/c.tsx", 'export const z = 3; // Issue 13: installability\nconst s = "issue 4";'],
    ["client/d.ts", 'Deno.test("[x] behaves (issue 9)", () => {});\nconst t = `#${n}`;'],
    ["client/e.css", '/* Transactions (issue 11) */\n.a { content: "x"; }'],
    ["server/f.ts", "// spec §7 appcolor: the theme colour.\nconst issue = 4;"],
  ]);
  assert.deepEqual(citing(sources), [
    "server/a.ts: 1",
    "server/b.ts: 1",
    "client/c.tsx: 1",
    "client/e.css: 1",
  ]);
});
