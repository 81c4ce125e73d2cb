// Import circles among the project's own modules: `deno task circles` prints them and exits 1
// when there is one; tests/unit/circles_test.ts holds the same check. Every kind of import
// counts — static, `import type`, `export … from`, bare `import "…"` and a literal dynamic
// `import("…")` — because a type-only or lazy circle still ties the modules together: neither
// can be read, moved or split without the other (engineering.md §2 layering: screens → actions →
// offline/state → api/db/lib; server: app → routes → domain → store). Relative specifiers only.

import { posix } from "node:path";

/** How a module names another. */
export type ImportKind = "static" | "type" | "dynamic";

export interface Import {
  specifier: string;
  kind: ImportKind;
}

export interface Edge {
  from: string;
  to: string;
  kind: ImportKind;
}

export interface Report {
  files: number;
  edges: Edge[];
  /** Each circle's files, sorted; the largest circle first. */
  circles: string[][];
}

/** What the repository check reads: the roots of the project's TypeScript. */
export const ROOTS = ["client", "server", "tests", "main.ts", "build.ts"];

// ---- Reading a module: a small tokenizer, so comments, strings and regexes cannot fool it ----

/** A token of a module's code: names and punctuation; strings keep their text, the rest is "other". */
export type Token =
  | { t: "name"; v: string }
  | { t: "punct"; v: string }
  | { t: "string"; v: string }
  | { t: "other" };

/** Words after which a `/` starts a regular expression, not a division. */
const BEFORE_REGEX = new Set([
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "yield",
  "await",
]);

export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  /** One entry per open `${`: the brace depth at which that template resumes. */
  const templates: number[] = [];
  let depth = 0;
  let i = 0;
  const n = src.length;
  const regexMayStart = (): boolean => {
    const last = out[out.length - 1];
    if (!last) return true;
    if (last.t === "name") return BEFORE_REGEX.has(last.v);
    if (last.t === "punct") return !/^[)\]}]$/.test(last.v);
    return false;
  };
  /** Reads a template literal's text from `i` (after "`" or "}") to its end or next `${`. */
  const templateText = (): void => {
    while (i < n) {
      const c = src[i];
      if (c === "\\") i += 2;
      else if (c === "`") {
        i++;
        out.push({ t: "other" });
        return;
      } else if (c === "$" && src[i + 1] === "{") {
        i += 2;
        templates.push(depth);
        depth++;
        return;
      } else i++;
    }
  };
  while (i < n) {
    const c = src[i];
    if (c === "/" && src[i + 1] === "/") {
      while (i < n && src[i] !== "\n") i++;
    } else if (c === "/" && src[i + 1] === "*") {
      const end = src.indexOf("*/", i + 2);
      i = end < 0 ? n : end + 2;
    } else if (c === '"' || c === "'") {
      // A quote runs to its match or the end of the line (an apostrophe in JSX text ends
      // there, without swallowing the lines after it).
      let v = "";
      i++;
      while (i < n && src[i] !== c && src[i] !== "\n") {
        if (src[i] === "\\") {
          v += src[i + 1] ?? "";
          i += 2;
        } else v += src[i++];
      }
      i++;
      out.push({ t: "string", v });
    } else if (c === "`") {
      i++;
      templateText();
    } else if (c === "/" && regexMayStart()) {
      i++;
      let inClass = false;
      while (i < n && src[i] !== "\n") {
        const d = src[i];
        if (d === "\\") i++;
        else if (d === "[") inClass = true;
        else if (d === "]") inClass = false;
        else if (d === "/" && !inClass) break;
        i++;
      }
      i++;
      while (i < n && /[a-z]/.test(src[i])) i++;
      out.push({ t: "other" });
    } else if (/[A-Za-z_$]/.test(c)) {
      const start = i;
      while (i < n && /[\w$]/.test(src[i])) i++;
      out.push({ t: "name", v: src.slice(start, i) });
    } else if (/\s/.test(c)) {
      i++;
    } else if (/[0-9]/.test(c)) {
      while (i < n && /[\w.]/.test(src[i])) i++;
      out.push({ t: "other" });
    } else {
      i++;
      if (c === "{") depth++;
      else if (c === "}") {
        depth--;
        if (templates.length && templates[templates.length - 1] === depth) {
          templates.pop();
          templateText();
          continue;
        }
      }
      out.push({ t: "punct", v: c === "." && src.startsWith("..", i) ? "..." : c });
      if (c === "." && src.startsWith("..", i)) i += 2;
    }
  }
  return out;
}

/**
 * The modules a source names: `import … from`, `import type … from`, `export … from`,
 * `import "…"` and `import("…")` with a string literal (a computed one cannot be followed).
 */
export function importsOf(src: string): Import[] {
  const tokens = tokenize(src);
  const found: Import[] = [];
  const isName = (k: number, v: string) =>
    tokens[k]?.t === "name" && (tokens[k] as { v: string }).v === v;
  const isPunct = (k: number, v: string) =>
    tokens[k]?.t === "punct" && (tokens[k] as { v: string }).v === v;
  const stringAt = (k: number) => {
    const tok = tokens[k];
    return tok?.t === "string" ? tok.v : null;
  };
  /** From token k, the `from "…"` that ends an import or export clause, if any. */
  const fromClause = (k: number): { spec: string; end: number } | null => {
    let braces = 0;
    for (let j = k; j < tokens.length; j++) {
      const tok = tokens[j];
      if (tok.t === "punct") {
        if (tok.v === "{") braces++;
        else if (tok.v === "}") braces--;
        else if (tok.v === ";" || (braces === 0 && !/^[*,]$/.test(tok.v))) return null;
      } else if (tok.t === "name" && braces === 0 && /^(import|export)$/.test(tok.v)) {
        return null; // the next statement: this clause had no `from`
      } else if (tok.t === "name" && braces === 0 && tok.v === "from") {
        const spec = stringAt(j + 1);
        if (spec !== null) return { spec, end: j + 1 };
        if (j > k) return null;
      } else if (tok.t !== "name") return null;
    }
    return null;
  };
  for (let k = 0; k < tokens.length; k++) {
    const afterDot = isPunct(k - 1, ".");
    if (isName(k, "import") && !afterDot) {
      if (isPunct(k + 1, "(")) {
        const spec = stringAt(k + 2);
        if (spec !== null && (isPunct(k + 3, ")") || isPunct(k + 3, ","))) {
          found.push({ specifier: spec, kind: "dynamic" });
        }
        continue;
      }
      const bare = stringAt(k + 1);
      if (bare !== null) {
        found.push({ specifier: bare, kind: "static" });
        continue;
      }
      const typeOnly = isName(k + 1, "type") && !isName(k + 2, "from");
      const clause = fromClause(k + 1);
      if (clause) {
        found.push({ specifier: clause.spec, kind: typeOnly ? "type" : "static" });
        k = clause.end;
      }
    } else if (isName(k, "export") && !afterDot) {
      const typeOnly = isName(k + 1, "type");
      const first = k + (typeOnly ? 2 : 1);
      if (!isPunct(first, "{") && !isPunct(first, "*")) continue;
      const clause = fromClause(first);
      if (clause) {
        found.push({ specifier: clause.spec, kind: typeOnly ? "type" : "static" });
        k = clause.end;
      }
    }
  }
  return found;
}

// ---- The graph ----

/** The file a relative specifier names, among `known` (paths relative to the root, "/"). */
function resolveIn(from: string, specifier: string, known: Set<string>): string | null {
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return null;
  const base = posix.normalize(posix.join(posix.dirname(from), specifier));
  for (const c of [base, `${base}.ts`, `${base}.tsx`, `${base}/mod.ts`]) {
    if (known.has(c)) return c;
  }
  return null;
}

/** The import edges among `sources` (path relative to the root → text). */
export function edgesOf(sources: Map<string, string>): Edge[] {
  const known = new Set(sources.keys());
  const edges: Edge[] = [];
  for (const [from, src] of sources) {
    for (const { specifier, kind } of importsOf(src)) {
      const to = resolveIn(from, specifier, known);
      if (to) edges.push({ from, to, kind });
    }
  }
  return edges;
}

/** Strongly connected components of more than one file, or a file that imports itself. */
export function circlesOf(nodes: Iterable<string>, edges: Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const v of nodes) next.set(v, []);
  for (const e of edges) next.get(e.from)?.push(e.to);
  // Tarjan's algorithm, iterative (no deep recursion on long import chains).
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  for (const root of next.keys()) {
    if (index.has(root)) continue;
    const work: { v: string; i: number }[] = [];
    const visit = (v: string) => {
      index.set(v, counter);
      low.set(v, counter++);
      stack.push(v);
      onStack.add(v);
      work.push({ v, i: 0 });
    };
    visit(root);
    while (work.length) {
      const top = work[work.length - 1];
      const succ = next.get(top.v) ?? [];
      if (top.i < succ.length) {
        const w = succ[top.i++];
        if (!index.has(w)) visit(w);
        else if (onStack.has(w)) low.set(top.v, Math.min(low.get(top.v)!, index.get(w)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.v, Math.min(low.get(parent.v)!, low.get(top.v)!));
      if (low.get(top.v) !== index.get(top.v)) continue;
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== top.v);
      if (component.length > 1 || succ.includes(top.v)) found.push(component.sort());
    }
  }
  return found.sort((a, b) => b.length - a.length || a[0].localeCompare(b[0]));
}

/** One way round a circle, each step with its kind: what to cut to break it. */
export function pathRound(circle: string[], edges: Edge[]): string {
  const inside = new Set(circle);
  const start = circle[0];
  const cameFrom = new Map<string, Edge>();
  const queue = [start];
  for (let q = 0; q < queue.length; q++) {
    for (const e of edges) {
      if (e.from !== queue[q] || !inside.has(e.to)) continue;
      if (e.to === start) {
        const steps = [e];
        for (let at = e.from; at !== start; at = cameFrom.get(at)!.from) {
          steps.unshift(cameFrom.get(at)!);
        }
        return start + steps.map((s) => ` →${s.kind === "static" ? "" : ` (${s.kind})`} ${s.to}`)
          .join("");
      }
      if (!cameFrom.has(e.to)) {
        cameFrom.set(e.to, e);
        queue.push(e.to);
      }
    }
  }
  return circle.join(", ");
}

/** Every .ts/.tsx under `ROOTS` of `root` (no node_modules, no dot folders, no .d.ts). */
async function sourcesUnder(root: string): Promise<Map<string, string>> {
  const sources = new Map<string, string>();
  const walk = async (rel: string): Promise<void> => {
    const info = await Deno.stat(posix.join(root, rel)).catch(() => null);
    if (!info) return;
    if (info.isFile) {
      if (/\.tsx?$/.test(rel) && !rel.endsWith(".d.ts")) {
        sources.set(rel, await Deno.readTextFile(posix.join(root, rel)));
      }
      return;
    }
    for await (const e of Deno.readDir(posix.join(root, rel))) {
      if (e.name === "node_modules" || e.name.startsWith(".")) continue;
      await walk(posix.join(rel, e.name));
    }
  };
  for (const r of ROOTS) await walk(r);
  return sources;
}

/** The repository's import graph and its circles. */
export async function checkRepository(root: string): Promise<Report> {
  const sources = await sourcesUnder(root);
  const edges = edgesOf(sources);
  return { files: sources.size, edges, circles: circlesOf(sources.keys(), edges) };
}
