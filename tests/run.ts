/**
 * The test command (`deno task test`): finds or installs Chromium, builds both client
 * flavours, runs every test with a JUnit report, and ends with the plain line
 * `N passed, M failed` that CI reads. Exits non-zero on any failure.
 */
import { build } from "../build.ts";
import * as esbuild from "esbuild";
import { deployRuntime } from "./deploy/runtime.ts";
import { pgBaseUrl, stopPgCluster } from "./pg.ts";

const root = new URL("..", import.meta.url).pathname;

async function exists(p: string): Promise<boolean> {
  try {
    await Deno.stat(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * Debian's chromium, installed or brought up to the current version where we are root with
 * apt-get (the browser people have: tests that pass only on an old one hide a broken product).
 * The package lists are refreshed when older than six hours. A failure (no network) leaves
 * what is installed.
 */
async function currentDebianChromium(): Promise<void> {
  if (Deno.uid?.() !== 0 || !(await exists("/usr/bin/apt-get"))) return;
  const env = { DEBIAN_FRONTEND: "noninteractive" };
  const apt = (args: string[]) =>
    new Deno.Command("apt-get", { args, env, stdout: "null", stderr: "inherit" }).output();
  const lists = await Deno.stat("/var/lib/apt/lists").catch(() => null);
  const age = Date.now() - (lists?.mtime?.getTime() ?? 0);
  console.log("Chromium: installing or upgrading Debian's chromium package…");
  if (age > 6 * 3600_000) await apt(["update", "-qq"]);
  const r = await apt(["install", "-y", "-qq", "chromium"]);
  if (!r.success) console.log("Chromium: apt-get could not install or upgrade it");
}

/** CHROME_PATH, else Debian's chromium, kept current (above). */
async function findChromium(): Promise<string> {
  const fromEnv = Deno.env.get("CHROME_PATH");
  if (fromEnv && await exists(fromEnv)) return fromEnv;
  await currentDebianChromium();
  for (const p of ["/usr/bin/chromium", "/usr/bin/chromium-browser"]) {
    if (await exists(p)) return p;
  }
  console.error(
    "Browser tests need Chromium. Install the Debian package `chromium` " +
      "(apt-get install -y chromium) or set CHROME_PATH to a Chromium/Chrome binary.",
  );
  Deno.exit(2);
}

/** What the browser says of its version ("Chromium 156.0.8078.108 built on Debian…"). */
async function chromiumVersion(path: string): Promise<string> {
  const out = await new Deno.Command(path, { args: ["--version"], stdout: "piped", stderr: "null" })
    .output().catch(() => null);
  return out ? new TextDecoder().decode(out.stdout).trim() : "(version unknown)";
}

const runStarted = performance.now();
const chrome = await findChromium();
const version = await chromiumVersion(chrome);
console.log(`Chromium: ${chrome}: ${version}`);

for (const flavour of ["preact", "react"] as const) {
  const r = await build({ flavour, outDir: `${root}dist/${flavour}` });
  console.log(`built ${flavour}: first-load JS ${(r.firstLoadJsGzip / 1024).toFixed(1)} KB gzip`);
}
await esbuild.stop();

await Deno.mkdir(`${root}.test-results`, { recursive: true });

/**
 * The Deploy runtime (deno@2.5.0 from npm, tests/deploy/runtime.ts): the server and unit
 * suites, and the deploy rehearsal, run on it too, with KV queues removed as today's Deno
 * Deploy and KV Connect have none (tests/deploy/no_queues.ts). tests/deploy/test_defaults.ts
 * names the few tests that stay on the pinned runtime only, and why.
 */
interface Part {
  name: string;
  deno: string;
  args: string[];
  env?: Record<string, string>;
  /** Runs beside the following parts (after the first), its output held until it ends. */
  side?: boolean;
  /**
   * Test modules run this many at a time (`deno test --parallel`): the browser tests spend
   * most of their time waiting on the app, the browser and the server, not on the CPU.
   */
  jobs?: number;
  /** Not type-checked again: an earlier part checked the same modules. */
  checked?: boolean;
  /** A module with a failure is run once more, alone (see runPart). */
  retry?: boolean;
}
const asked = Deno.args.length > 0;
/**
 * PostgreSQL for the store tests: DATABASE_URL, or one throwaway cluster (tests/pg.ts) that
 * every part shares and that stops when this process exits. Each test uses its own schema.
 * Handed on as QCARD_TEST_PG_URL, not DATABASE_URL: a server a test starts from the
 * environment must not switch stores because of it (server/config.ts storeFromEnv).
 */
const pgEnv: Record<string, string> = asked ? {} : { QCARD_TEST_PG_URL: await pgBaseUrl() };
/**
 * The API suites again on the PostgreSQL store (QCARD_TEST_STORE=postgres): a subset that
 * covers every store operation the app performs — activation and sessions, requests,
 * approvals, cards, transactions, receipts and documents (blob chunks), messages,
 * idempotency records, leases and blobs, jobs; and the process tests: two main.ts on one
 * database (scale_out), a SIGKILL mid-burst (kill_burst) and one between a change and its push
 * (jobs_crash).
 */
const PG_SUITES = [
  "scale_reads",
  "session_activation",
  "session_confirm",
  "session_pin",
  "session_register",
  "session_tokens",
  "session_app",
  "requests_lookups",
  "requests_create",
  "requests_budget",
  "requests_create_rules",
  "requests_submit_edit",
  "requests_edit",
  "requests_cancel_comments",
  "requests_input",
  "approvals_policies",
  "approvals_reject",
  "approvals_lists",
  "approvals_refusals",
  "approvals_access",
  "approvals_races",
  "approvals_edit",
  "cards",
  "cards_secure",
  "transactions",
  "documents",
  "documents_access",
  "documents_readings",
  "messages",
  "idempotency",
  "idempotency_lost",
  "lease",
  "blobs",
  "scale_out",
  "kill_burst",
  "receipt_reminders",
  "declarations",
  "leavers",
  "changes",
  "org_sync",
  "scim",
  "store_outage",
  "concurrent_uploads",
  "export",
  "export_records",
  "jobs",
  "jobs_crash",
].map((name) => `tests/server/${name}_test.ts`);
/**
 * The browser tests' modules at a time (`QCARD_E2E_JOBS`, default 1): each starts its own
 * server, store and Chromium, and one alone keeps this 2-core machine 60–80 % busy. Three at a
 * time took the browser part from 23 to 16 minutes here, but at load 16–20 four modules failed
 * on timing in one run of three (a tap aimed before the screen moved, a notification later than
 * 20 s): one at a time is the default, more is for a bigger machine.
 */
const E2E_JOBS = Math.max(1, Number(Deno.env.get("QCARD_E2E_JOBS") ?? 1));
const parts: Part[] = asked
  ? [{ name: "pinned Deno (the suites asked for)", deno: Deno.execPath(), args: Deno.args }]
  : [
    {
      name: "pinned Deno (unit and server)",
      deno: Deno.execPath(),
      args: ["tests/unit/", "tests/server/"],
    },
    {
      name: `pinned Deno (browser${E2E_JOBS > 1 ? `, ${E2E_JOBS} modules at a time` : ""})`,
      deno: Deno.execPath(),
      args: ["tests/e2e/"],
      jobs: E2E_JOBS,
      retry: true,
    },
  ];
if (!asked) {
  // Deno's own KV tests (tests/kv_suite/: v2.9.5's tests/unit/kv_test.ts, unchanged) on the
  // PostgreSQL store, and on Deno KV through the same harness as the control.
  for (const store of ["kv", "postgres"] as const) {
    parts.push({
      name: `Deno's KV suite (v2.9.5) on ${store === "kv" ? "Deno KV, the control" : "PostgreSQL"}`,
      deno: Deno.execPath(),
      args: ["--preload=tests/kv_suite/harness.ts", "tests/kv_suite/upstream/kv_test.ts"],
      env: { KV_SUITE_STORE: store },
      side: true,
      checked: store === "postgres",
    });
  }
}

if (!asked) {
  parts.push({
    name: "pinned Deno on PostgreSQL (session, requests, approvals, cards, transactions, " +
      "documents, messages, idempotency, lease, blobs; scale_out and kill_burst processes)",
    deno: Deno.execPath(),
    args: PG_SUITES,
    env: { QCARD_TEST_STORE: "postgres" },
    checked: true,
    // Beside the Deploy runtime's part (which keeps about one core busy): mostly waiting on
    // PostgreSQL.
    side: true,
  });
  parts.push({
    name: "Deno Deploy runtime 2.5.0, KV without queues (server, unit, rehearsal)",
    deno: await deployRuntime(),
    args: [
      "--preload=tests/deploy/no_queues.ts",
      "--preload=tests/deploy/test_defaults.ts",
      "tests/unit/",
      "tests/server/",
      "tests/deploy/",
    ],
    env: { QCARD_KV_NO_QUEUES: "1" },
    checked: true,
  });
}

let passed = 0, failed = 0;
const failures: string[] = [];
/** Browser tests that failed once and passed when run again alone (see runPart). */
const flaky: string[] = [];

/**
 * Runs one part: its output straight through, or (`side`) collected and printed whole once it
 * ends, so a part running beside another does not interleave its lines with that one's.
 */
async function runPart(i: number, part: Part, side = false): Promise<void> {
  const junit = `${root}.test-results/junit-${i}.xml`;
  // A report left by an earlier run must not be read as this one's.
  await Deno.remove(junit).catch(() => {});
  const started = performance.now();
  if (!side) console.log(`\n=== ${part.name}`);
  const ok = await new Deno.Command(part.deno, {
    args: [
      "test",
      "-A",
      part.checked ? "--no-check" : "--no-check=remote",
      ...(part.jobs && part.jobs > 1 ? ["--parallel"] : []),
      `--junit-path=${junit}`,
      ...part.args,
    ],
    cwd: root,
    env: {
      CHROME_PATH: chrome,
      ...pgEnv,
      ...part.env,
      ...(part.jobs && part.jobs > 1 ? { DENO_JOBS: String(part.jobs) } : {}),
    },
    stdout: side ? "piped" : "inherit",
    stderr: side ? "piped" : "inherit",
  }).output();
  if (side) {
    const text = new TextDecoder();
    console.log(`\n=== ${part.name} (ran beside the parts above)`);
    await Deno.stdout.write(ok.stdout);
    console.error(text.decode(ok.stderr));
  }
  const xml = await Deno.readTextFile(junit).catch(() => "");
  let c = countJunit(xml);
  if (!ok.success && c.failed === 0) c.failed = 1;
  // A browser module that failed (they wait on a browser, a server and timers on a busy
  // 2-core machine) is run once more, alone, and counts as that run says. What failed only the
  // first time is listed at the end by name, as flaky; a real failure fails both times. More
  // than four failed modules are not run again: that is no flake.
  if (part.retry && c.failed && c.failedFiles.length && c.failedFiles.length <= 4) {
    const files = c.failedFiles;
    const againJunit = `${root}.test-results/junit-${i}-again.xml`;
    await Deno.remove(againJunit).catch(() => {});
    console.log(`\n=== ${part.name}: failed, run again alone: ${files.join(" ")}`);
    const again = await new Deno.Command(part.deno, {
      args: ["test", "-A", "--no-check", `--junit-path=${againJunit}`, ...files],
      cwd: root,
      env: { CHROME_PATH: chrome, ...pgEnv, ...part.env },
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    const a = countJunit(await Deno.readTextFile(againJunit).catch(() => ""));
    if (!again.success && a.failed === 0) a.failed = 1;
    const rest = countJunit(xml, new Set(files));
    flaky.push(
      ...c.names.filter((n) => !a.names.some((m) => m.split(" — ")[0] === n.split(" — ")[0])),
    );
    c = {
      passed: rest.passed + a.passed,
      failed: rest.failed + a.failed,
      skipped: rest.skipped + a.skipped,
      names: [...rest.names, ...a.names],
      failedFiles: [...rest.failedFiles, ...a.failedFiles],
    };
  }
  if (c.names.length < c.failed) {
    c.names.push(
      `exit code ${ok.code}, a failure outside the tests' report (see the output above)`,
    );
  }
  const secs = ((performance.now() - started) / 1000).toFixed(0);
  const skips = c.skipped ? `, ${c.skipped} skipped (reasons above)` : "";
  const browser = part.args.some((a) => a.startsWith("tests/e2e")) ? ` (browser: ${version})` : "";
  console.log(
    `=== ${part.name}: ${c.passed} passed, ${c.failed} failed${skips} in ${secs} s${browser}`,
  );
  passed += c.passed;
  failed += c.failed;
  failures.push(...c.names.map((n) => `${part.name.split(" (")[0]}: ${n}`));
}

// The parts marked `side` (Deno's KV suite twice and the PostgreSQL part: mostly waiting on
// timers and the database) run one after another beside the Deploy runtime's part, once the
// browser part is done; their output is printed whole as each ends. Each part prints its time.
let sideLane: Promise<void> = Promise.resolve();
for (const [i, part] of parts.entries()) {
  if (part.side) {
    sideLane = sideLane.then(() => runPart(i, part, true));
    continue;
  }
  await runPart(i, part);
}
await sideLane;

/**
 * Counts a part's JUnit report (without the modules in `skip`), names each failed test with the
 * first line of its failure, and lists the modules that had a failure.
 */
function countJunit(
  xml: string,
  skip = new Set<string>(),
): { passed: number; failed: number; skipped: number; names: string[]; failedFiles: string[] } {
  let passed = 0, failed = xml ? 0 : 1, skipped = 0;
  const names: string[] = [];
  const failedFiles = new Set<string>();
  for (const m of xml.matchAll(/<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const inner = m[3] ?? "";
    const file = unescapeXml(/\bclassname="([^"]*)"/.exec(m[1])?.[1] ?? "");
    if (skip.has(file)) continue;
    if (/<failure\b|<error\b/.test(inner)) {
      failed++;
      if (file.endsWith(".ts")) failedFiles.add(file);
      const name = `${file} › ${unescapeXml(/\bname="([^"]*)"/.exec(m[1])?.[1] ?? "?")}`;
      const why = unescapeXml(/<(?:failure|error)\b[^>]*?message="([^"]*)"/.exec(inner)?.[1] ?? "")
        .split("\n").find((l) => l.trim()) ?? "";
      names.push(`${name}${why ? ` — ${why.trim().slice(0, 300)}` : ""}`);
    } else if (!/<skipped\b/.test(inner)) passed++;
    else skipped++;
  }
  return { passed, failed, skipped, names, failedFiles: [...failedFiles] };
}

function unescapeXml(s: string): string {
  return s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'").replace(/&#10;/g, "\n").replace(/&amp;/g, "&");
}

// The failed tests again at the end, where a log cut to its tail still shows them.
if (flaky.length) {
  console.log(
    `\nFailed once, passed when run again alone (flaky):\n${flaky.map((f) => `- ${f}`).join("\n")}`,
  );
}
if (failures.length) console.log(`\nFailed:\n${failures.map((f) => `- ${f}`).join("\n")}`);
console.log(`all parts in ${((performance.now() - runStarted) / 1000).toFixed(0)} s`);
console.log(`${passed} passed, ${failed} failed`);
// Deno.exit skips the unload event: the throwaway PostgreSQL cluster is stopped here.
stopPgCluster();
Deno.exit(failed > 0 ? 1 : 0);
