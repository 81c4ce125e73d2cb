/**
 * `deno task export-accounting --from YYYY-MM-DD --to YYYY-MM-DD --format csv|datev|zip[,…]
 *  [--account OID] [--only-new] [--flat] [--lang en|fr|de|es] [--out FILE]`: the accounting
 * export (docs/export.md) for operators, on the configured store (KV_PATH or DATABASE_URL), as
 * the Export screen makes it: recorded, "only new" honoured. Writes the file (default: its own
 * name in the current folder) and prints where, how many bytes and the export's id. A bad
 * request prints the server's message and exits 2.
 */
import { parseArgs } from "node:util";
import { parseConfig } from "../config.ts";
import { makeDeps } from "./boot.ts";
import type { Deps } from "../domain/env.ts";
import { HttpError } from "../errors.ts";
import { exportAccounting } from "../export/run.ts";

const USAGE = "usage: deno task export-accounting --from YYYY-MM-DD --to YYYY-MM-DD " +
  "--format csv|datev|zip[,…] [--account OID] [--only-new] [--flat] [--lang LANG] [--out FILE]";

/** Runs one export; returns the exit code. */
export async function runExportCli(
  args: string[],
  deps: Deps,
  print: (line: string) => void = console.log,
): Promise<number> {
  let a;
  try {
    const s = { type: "string" } as const, b = { type: "boolean", default: false } as const;
    a = parseArgs({
      args,
      options: {
        from: s,
        to: s,
        format: s,
        account: s,
        lang: s,
        out: s,
        "only-new": b,
        flat: b,
        help: b,
      },
    }).values;
  } catch (e) {
    print(`${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  if (a.help || !a.from || !a.to || !a.format) {
    print(USAGE);
    return 2;
  }
  try {
    const file = await exportAccounting(deps, {
      oid: null,
      name: "operator",
      locale: a.lang ?? "en",
      scope: { accounts: null },
    }, {
      from: a.from,
      to: a.to,
      formats: a.format.split(",").map((f) => f.trim()),
      account: a.account ?? null,
      onlyNew: a["only-new"],
      layout: a.flat ? "flat" : "folders",
    });
    const out = a.out ?? file.name;
    await Deno.writeFile(out, file.body);
    print(`${out}: ${(await Deno.stat(out)).size} bytes, export ${file.id}`);
    return 0;
  } catch (e) {
    if (!(e instanceof HttpError)) throw e;
    print(`${e.code}: ${e.message}`);
    return 2;
  }
}

if (import.meta.main) {
  const deps = await makeDeps(parseConfig(Deno.env.toObject()));
  let code = 1;
  try {
    code = await runExportCli(Deno.args, deps);
  } finally {
    deps.store.kv.close();
  }
  Deno.exit(code);
}
