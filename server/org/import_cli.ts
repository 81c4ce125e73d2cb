/**
 * `deno task import org.json [--send-activation]`: validates an organisation file (the
 * format of server/org/demo_org.json) and stores it in the configured KV. With
 * --send-activation every user gets a fresh activation email.
 */
import { parseConfig } from "../config.ts";
import { makeDeps } from "../boot.ts";
import { sendActivation } from "../domain/activation.ts";
import { importOrg } from "./import.ts";
import { parseOrg } from "./parse.ts";

const file = Deno.args.find((a) => !a.startsWith("--"));
if (!file) {
  console.error("usage: deno task import ORG.json [--send-activation]");
  Deno.exit(2);
}
try {
  const org = parseOrg(JSON.parse(await Deno.readTextFile(file)));
  const deps = await makeDeps(parseConfig(Deno.env.toObject()));
  await importOrg(deps.store, org, deps.config.PIN_HASH_ITERATIONS);
  if (Deno.args.includes("--send-activation")) {
    for (const u of await deps.store.users.all()) await sendActivation(deps, u);
  }
  console.log(
    `Imported ${org.organisation.name}: ${org.users.length} users, ${org.teams.length} teams`,
  );
  deps.store.kv.close();
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  Deno.exit(1);
}
