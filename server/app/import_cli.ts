/**
 * `deno task import org.json [--dry-run] [--send-activation]`: validates an organisation file
 * (the format of server/org/demo_org.json) and applies it to the configured store as a
 * difference (server/org_sync/sync.ts): users added, changed and left (the leaver path), reference
 * data added, changed, archived or removed. --dry-run prints that difference and writes nothing;
 * without it the same summary is printed once applied. Joiners get their activation e-mail once;
 * with --send-activation every user gets a fresh one.
 */
import { parseConfig } from "../config.ts";
import { makeDeps } from "./boot.ts";
import { sendActivation } from "../domain/activation.ts";
import { parseOrg } from "../org/parse.ts";
import { applyOrg, diffOrg, formatDiff } from "../org_sync/sync.ts";

const file = Deno.args.find((a) => !a.startsWith("--"));
if (!file) {
  console.error("usage: deno task import ORG.json [--dry-run] [--send-activation]");
  Deno.exit(2);
}
try {
  const org = parseOrg(JSON.parse(await Deno.readTextFile(file)));
  const deps = await makeDeps(parseConfig(Deno.env.toObject()));
  const dry = Deno.args.includes("--dry-run");
  const diff = dry ? await diffOrg(deps, org) : await applyOrg(deps, org);
  console.log(formatDiff(diff, !dry));
  if (!dry && Deno.args.includes("--send-activation")) {
    for (const u of await deps.store.users.all()) await sendActivation(deps, u);
  }
  await deps.store.kv.close();
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  Deno.exit(1);
}
