/**
 * The test command (`deno task test`): finds or installs Chromium, builds both client
 * flavours, runs every test with a JUnit report, and ends with the plain line
 * `N passed, M failed` that CI reads. Exits non-zero on any failure.
 */
import { build } from "../build.ts";
import * as esbuild from "esbuild";

const root = new URL("..", import.meta.url).pathname;

async function exists(p: string): Promise<boolean> {
  try {
    await Deno.stat(p);
    return true;
  } catch {
    return false;
  }
}

/** CHROME_PATH, then /usr/bin/chromium, else apt-get install it where we are root on Debian. */
async function findChromium(): Promise<string> {
  const fromEnv = Deno.env.get("CHROME_PATH");
  if (fromEnv && await exists(fromEnv)) return fromEnv;
  for (const p of ["/usr/bin/chromium", "/usr/bin/chromium-browser"]) {
    if (await exists(p)) return p;
  }
  const isRoot = Deno.uid?.() === 0;
  if (isRoot && await exists("/usr/bin/apt-get")) {
    console.log("Chromium not found: installing Debian's chromium package…");
    const env = { DEBIAN_FRONTEND: "noninteractive" };
    const apt = (args: string[]) =>
      new Deno.Command("apt-get", { args, env, stdout: "inherit", stderr: "inherit" }).output();
    await apt(["update", "-qq"]);
    await apt(["install", "-y", "-qq", "chromium"]);
    if (await exists("/usr/bin/chromium")) return "/usr/bin/chromium";
  }
  console.error(
    "Browser tests need Chromium. Install the Debian package `chromium` " +
      "(apt-get install -y chromium) or set CHROME_PATH to a Chromium/Chrome binary.",
  );
  Deno.exit(2);
}

const chrome = await findChromium();
console.log(`Chromium: ${chrome}`);

for (const flavour of ["preact", "react"] as const) {
  const r = await build({ flavour, outDir: `${root}dist/${flavour}` });
  console.log(`built ${flavour}: first-load JS ${(r.firstLoadJsGzip / 1024).toFixed(1)} KB gzip`);
}
await esbuild.stop();

const junit = `${root}.test-results/junit.xml`;
await Deno.mkdir(`${root}.test-results`, { recursive: true });
const filters = Deno.args.length ? Deno.args : ["tests/"];
const ok = await new Deno.Command(Deno.execPath(), {
  args: ["test", "-A", "--no-check=remote", `--junit-path=${junit}`, ...filters],
  cwd: root,
  env: { CHROME_PATH: chrome },
  stdout: "inherit",
  stderr: "inherit",
}).output();

let passed = 0, failed = 0;
try {
  const xml = await Deno.readTextFile(junit);
  for (const m of xml.matchAll(/<testcase\b[^>]*?(\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const inner = m[2] ?? "";
    if (/<failure\b|<error\b/.test(inner)) failed++;
    else if (!/<skipped\b/.test(inner)) passed++;
  }
} catch {
  failed++;
}
if (!ok.success && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
Deno.exit(failed > 0 || !ok.success ? 1 : 0);
