/**
 * Runs Deno's own KV unit tests (tests/kv_suite/upstream/kv_test.ts, denoland/deno v2.9.5,
 * commit 17fadf33a8df3af9488b9f42efd1f2290d6dc7a3, unchanged) against a store, as a preload:
 *
 *   deno test -A --preload=tests/kv_suite/harness.ts tests/kv_suite/upstream/kv_test.ts
 *
 * KV_SUITE_STORE=postgres maps `Deno.openKv` to the PostgreSQL store (server/store/pg_kv.ts):
 * `:memory:` is a fresh schema per open, a file path one schema per path (reopening it finds
 * the data again, as a KV file does). KV_SUITE_STORE=kv (the control) leaves Deno KV as it is,
 * through the same harness, so a fault of the harness cannot pass for a fault of the store.
 * The cases that cannot run are skipped by name with their reason (SKIPS), printed first.
 */
import { openTestPgKv } from "../pg.ts";
import { openPgKv } from "../../server/store/pg_kv.ts";
import { freshPgUrl } from "../pg.ts";

const store = Deno.env.get("KV_SUITE_STORE") === "postgres" ? "postgres" : "kv";
const source = await Deno.readTextFile(new URL("./upstream/kv_test.ts", import.meta.url));

/** Names of the cases upstream declares through its queueTest helper. */
const queueCases = [...source.matchAll(/queueTest\(\s*"([^"]+)"/g)].map((m) => m[1]);

/** What is skipped, on which store, and why. */
const SKIPS: { names: (n: string) => boolean; on: ("kv" | "postgres")[]; why: string }[] = [
  {
    names: (n) => n.startsWith("remote backend"),
    on: ["kv", "postgres"],
    why: "KV Connect remote: needs Deno's own test server on localhost:4545",
  },
  {
    names: (n) =>
      queueCases.includes(n) || /^queue /.test(n) || n === "different kv instances for enqueue " +
          "and queueListen",
    on: ["postgres"],
    why: "queues: refused by the PostgreSQL store as by Deno Deploy and KV Connect",
  },
  {
    names: (n) =>
      ["openKv :memory: no permissions", "kvExplicitResourceManagement"].includes(n) ||
      n === "kvExplicitResourceManagementManualClose",
    on: ["postgres"],
    why: "runs with restricted permissions (none, or read only): PostgreSQL needs net and env",
  },
  {
    names: (n) =>
      n.startsWith("listenQueue and enqueue ") || n === "Invalid backoffSchedule" ||
      n === "AtomicOperation custom inspect - with enqueue operations" ||
      n === "AtomicOperation custom inspect - complex operation",
    on: ["postgres"],
    why: "builds a queue message (enqueue): queues are refused by the PostgreSQL store",
  },
];

const skipped = new Map<string, string>();

type Def = Deno.TestDefinition;
const realTest = Deno.test;
function wrapped(this: unknown, ...args: unknown[]): void {
  // Every form Deno.test takes: (def), (fn), (name, fn), (name, opts, fn), (opts, fn).
  const fn = args.find((a) => typeof a === "function") as Def["fn"] | undefined;
  const opts = args.find((a) => typeof a === "object") as Partial<Def> | undefined;
  const named = args.find((a) => typeof a === "string") as string | undefined;
  const def = { ...opts, name: named ?? opts?.name ?? fn?.name ?? "", fn: fn ?? opts?.fn } as Def;
  const skip = SKIPS.find((s) => s.on.includes(store) && s.names(def.name));
  if (skip) {
    skipped.set(def.name, skip.why);
    def.ignore = true;
  }
  if (store === "postgres") {
    // The pool's sockets end after close() returns (Deno KV's close is synchronous): the
    // resource and op sanitizers would blame the next case for them.
    def.sanitizeResources = false;
    def.sanitizeOps = false;
  }
  realTest(def);
}
Object.assign(wrapped, realTest);
(Deno as { test: unknown }).test = wrapped;

if (store === "postgres") {
  const realOpen = Deno.openKv;
  const byPath = new Map<string, Promise<string>>();
  const open = async (path?: string): Promise<Deno.Kv> => {
    if (path === ":memory:") return await openTestPgKv();
    if (path === undefined || path === "" || path.startsWith(":") || /^https?:/.test(path)) {
      return await realOpen(path); // the same refusals as Deno KV (invalid names)
    }
    // Set before anything is awaited: concurrent opens of one path share one schema.
    let url = byPath.get(path);
    if (!url) byPath.set(path, url = freshPgUrl().then((f) => f.url));
    return await openPgKv(await url, { poolSize: 4 });
  };
  // An unstable API: a getter on Deno, so it is redefined, not assigned.
  Object.defineProperty(Deno, "openKv", { value: open, configurable: true, writable: true });
}

addEventListener("load", () => {
  const lines = [...skipped].map(([n, why]) => `  - ${n}: ${why}`);
  console.log(
    `Deno's KV suite (v2.9.5) on ${store === "postgres" ? "PostgreSQL" : "Deno KV (control)"}: ` +
      `${skipped.size} skipped${lines.length ? ":\n" + lines.join("\n") : ""}`,
  );
});
