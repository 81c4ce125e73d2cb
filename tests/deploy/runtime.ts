/**
 * The Deno that today's Deno Deploy runs (2.5.0), from npm like the pinned one, installed on
 * first use into .deploy-runtime/ (git-ignored). It is not a package.json dependency: 2.5.0's
 * platform packages exist on the registry here for linux-x64 only, and `npm ci` refuses a lock
 * that misses the others (engineering.md §3 says the same of 2.9.6); a plain `npm install` of the
 * exact version skips the missing optional ones.
 */
import { DEPLOY_DENO } from "../server/main_process.ts";

export const DEPLOY_DENO_VERSION = "2.5.0";

/** The path of the Deploy runtime's binary, installing it first if needed. */
export async function deployRuntime(): Promise<string> {
  if (await versionOf(DEPLOY_DENO) === DEPLOY_DENO_VERSION) return DEPLOY_DENO;
  const prefix = DEPLOY_DENO.replace(/\/node_modules\/deno\/deno$/, "");
  console.log(`Installing the Deno Deploy runtime (deno@${DEPLOY_DENO_VERSION}) into ${prefix}…`);
  await Deno.mkdir(prefix, { recursive: true });
  const npm = await new Deno.Command("npm", {
    args: [
      "install",
      "--prefix",
      prefix,
      "--no-save",
      "--no-audit",
      "--no-fund",
      `deno@${DEPLOY_DENO_VERSION}`,
    ],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  const got = await versionOf(DEPLOY_DENO);
  if (!npm.success || got !== DEPLOY_DENO_VERSION) {
    throw new Error(`could not install deno@${DEPLOY_DENO_VERSION} (found ${got ?? "none"})`);
  }
  return DEPLOY_DENO;
}

async function versionOf(bin: string): Promise<string | null> {
  try {
    const out = await new Deno.Command(bin, { args: ["--version"], stdout: "piped" }).output();
    return /^deno (\S+)/.exec(new TextDecoder().decode(out.stdout))?.[1] ?? null;
  } catch {
    return null;
  }
}
