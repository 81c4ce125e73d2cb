// The house's folders in a declared order: `deno task circles` checks it beside the files'
// circles, and tests/unit/circles_test.ts holds the same check. A folder imports another when one
// of its files imports one of the other's (every kind of import, as for the files). Each tree
// below lists its folders in layers, top first: a folder may import a folder of a later layer of
// its own tree, or of a tree it stands on; never one of its own layer, an earlier one, or another
// tree. A folder in no layer fails the check, so a new folder is placed here when it is made.
// The top-level files (main.ts, build.ts) are the entry points and tests/ may import anything:
// neither is a folder of the house.

import { posix } from "node:path";
import { fileURLToPath } from "node:url";
import { checkRepository, circlesOf, type Edge, pathRound } from "./circles.ts";

export interface Tree {
  name: string;
  /** The trees this one may import from (any of their layers). */
  standsOn: string[];
  /** Layers, top first; the folders of one layer do not import one another. */
  layers: string[][];
}

export const FOLDER_ORDER: Tree[] = [
  {
    name: "server",
    standsOn: ["shared"],
    layers: [
      // Composition and entry points: the app, its start, the commands (deno task …).
      ["server/app"],
      // HTTP: the phone's calls, the relay, the development simulator's pages.
      ["server/routes", "server/relay", "server/reminders"],
      ["server/push"],
      [
        "server/docservice",
        "server/export",
        "server/middleware",
        "server/org_sync",
        "server/testmode",
      ],
      // The domain: one code path for every store.
      ["server/domain"],
      ["server/mail"],
      ["server/messages"],
      // The jobs wing: the work a change leaves behind, written with it.
      ["server/jobs"],
      ["server/issuer", "server/store", "server/support"],
      // The base: configuration, errors, translation, logs; the org file's schema.
      ["server", "server/ocr", "server/org"],
      ["server/net", "server/support/faq"],
    ],
  },
  {
    name: "client",
    standsOn: ["shared"],
    layers: [
      // The entries (main.tsx, boot.ts, the service worker's build) and the static shells.
      ["client", "client/build"],
      ["client/app"],
      // Screens: a screen may show a part of a screen listed below it, never above.
      ["client/screens/MainMenu"],
      ["client/screens/Main"],
      ["client/screens/Wallet"],
      [
        "client/screens/Activation",
        "client/screens/ApprovalDetail",
        "client/screens/CardDetail",
        "client/screens/DefinePin",
        "client/screens/EditRequest",
        "client/screens/RequestDetail",
        "client/screens/TransactionDetail",
        "client/screens/Unlock",
      ],
      [
        "client/screens",
        "client/screens/Approvals",
        "client/screens/CreateRequest",
        "client/screens/Export",
        "client/screens/Filter",
        "client/screens/LostActivation",
        "client/screens/Options",
        "client/screens/Requests",
        "client/screens/Secure",
        "client/screens/Transactions",
      ],
      ["client/components"],
      ["client/actions"],
      ["client/offline"],
      ["client/api", "client/state"],
      ["client/i18n", "client/ocr"],
      ["client/lib"],
      ["client/crypto"],
      ["client/db", "client/sw"],
    ],
  },
  {
    // Imported by the server and the client: web platform only (tests/tools/shared_check.json).
    name: "shared",
    standsOn: [],
    layers: [
      ["client/shared/contract"],
      ["client/shared"],
      ["client/shared/i18n", "client/shared/receipt"],
      ["client/shared/i18n/locales"],
    ],
  },
];

export interface FolderReport {
  folders: number;
  /** Folder edges (pairs), each with one file edge that makes it. */
  pairs: { from: string; to: string; example: Edge }[];
  /** Folders that hold project code and are in no layer. */
  unplaced: string[];
  /** Folder imports against the declared order, each with a file import that makes it. */
  against: string[];
  /** Knots: folders that reach one another (0 when the order holds). */
  knots: string[][];
}

/** Where a folder sits: its tree and layer, or null. */
function placeOf(order: Tree[], folder: string): { tree: Tree; layer: number } | null {
  for (const tree of order) {
    const layer = tree.layers.findIndex((l) => l.includes(folder));
    if (layer >= 0) return { tree, layer };
  }
  return null;
}

const outside = (file: string) => !file.includes("/") || file.startsWith("tests/");

/** The folder graph of the file edges, checked against `order`. */
export function checkFolders(edges: Edge[], order: Tree[] = FOLDER_ORDER): FolderReport {
  const pairs = new Map<string, { from: string; to: string; example: Edge }>();
  const folders = new Set<string>();
  for (const e of edges) {
    if (outside(e.from)) continue;
    const from = posix.dirname(e.from);
    folders.add(from);
    if (outside(e.to)) continue;
    const to = posix.dirname(e.to);
    folders.add(to);
    if (from !== to && !pairs.has(`${from}>${to}`)) {
      pairs.set(`${from}>${to}`, { from, to, example: e });
    }
  }
  const unplaced = [...folders].filter((f) => !placeOf(order, f)).sort();
  const against: string[] = [];
  for (const { from, to, example } of pairs.values()) {
    const a = placeOf(order, from), b = placeOf(order, to);
    if (!a || !b) continue;
    const fine = a.tree === b.tree ? b.layer > a.layer : a.tree.standsOn.includes(b.tree.name);
    if (!fine) {
      const why = a.tree !== b.tree
        ? `${a.tree.name} does not stand on ${b.tree.name}`
        : b.layer === a.layer
        ? "same layer"
        : "a layer above";
      against.push(`${from} → ${to} (${why}): ${example.from} → ${example.to}`);
    }
  }
  const knots = circlesOf(
    folders,
    [...pairs.values()].map(({ from, to }) => ({ from, to, kind: "static" as const })),
  );
  return {
    folders: folders.size,
    pairs: [...pairs.values()],
    unplaced,
    against: against.sort(),
    knots,
  };
}

/** The declared order as lines: one per layer, top first. */
export function orderLines(order: Tree[] = FOLDER_ORDER): string[] {
  return order.flatMap((tree) => [
    `${tree.name}${tree.standsOn.length ? ` (stands on ${tree.standsOn.join(", ")})` : ""}:`,
    ...tree.layers.map((l, i) => `  ${i + 1}. ${l.join(", ")}`),
  ]);
}

if (import.meta.main) {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const { files, edges, circles } = await checkRepository(root);
  const pairs = new Set(edges.map((e) => `${e.from}>${e.to}`)).size;
  if (!circles.length) {
    console.log(`files: no import circles (${files} files, ${pairs} edges)`);
  } else {
    console.log(`files: ${circles.length} import circle(s) (${files} files, ${pairs} edges):`);
    for (const c of circles) {
      console.log(`  circle of ${c.length}: ${c.join(", ")}`);
      console.log(`    ${pathRound(c, edges)}`);
    }
  }
  const folders = checkFolders(edges);
  console.log(
    `folders: ${folders.folders} folders, ${folders.pairs.length} folder imports; ` +
      `${folders.knots.length} folder knot(s), ${folders.against.length} against the declared ` +
      `order, ${folders.unplaced.length} unplaced (tests/tools/folders.ts)`,
  );
  for (const k of folders.knots) console.log(`  knot of ${k.length}: ${k.join(", ")}`);
  for (const a of folders.against) console.log(`  against the order: ${a}`);
  for (const u of folders.unplaced) console.log(`  in no layer: ${u}`);
  console.log(
    "the declared order (a folder imports only later layers of its tree, or a tree it stands on):",
  );
  for (const line of orderLines()) console.log(`  ${line}`);
  const bad = circles.length + folders.knots.length + folders.against.length +
    folders.unplaced.length;
  if (bad) Deno.exit(1);
}
