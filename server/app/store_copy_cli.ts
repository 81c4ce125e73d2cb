/**
 * `deno task export [FILE|-] [--store STORE]` writes a whole store to a file (a backup);
 * `deno task import-store FILE [--store STORE] [--force]` writes one into a store and reads it
 * back to compare every record. STORE is a KV file path or a postgres:// URL; without
 * --store, the one the server would open (KV_PATH, DATABASE_URL, PG*, else ./data/qcard.kv).
 * KV → PostgreSQL: export from the KV file, import-store into the URL; and back the same way.
 */
import { storeFromEnv } from "../config.ts";
import { openKv } from "../store/kv.ts";
import {
  checkFile,
  compareRecords,
  exportStore,
  fileRecords,
  isEmpty,
  readStore,
  storeKind,
  writeStore,
} from "../store/copy.ts";

/** How far a copied expiry may move: the time between reading a batch and committing it. */
const EXPIRY_TOLERANCE_MS = 5_000;

const USAGE = "usage: deno task export [FILE|-] [--store KV_FILE|postgres://…]\n" +
  "       deno task import-store FILE [--store KV_FILE|postgres://…] [--force]";

/** A store named for people: never a password. */
export function describe(path: string): string {
  const kind = storeKind(path);
  if (kind !== "postgres") return kind === "kv-file" ? `the KV file ${path}` : `the KV ${path}`;
  const u = new URL(path);
  return `PostgreSQL ${u.hostname}${u.port ? `:${u.port}` : ""}${u.pathname}`;
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

/** Runs one command; its exit code. `log` gets what people read (stderr by default). */
export async function main(
  args: string[],
  log: (line: string) => void = console.error,
): Promise<number> {
  try {
    return await run(args, log);
  } catch (err) {
    log(err instanceof Error ? err.message : String(err));
    return 1;
  }
}

async function run(args: string[], log: (line: string) => void): Promise<number> {
  const [command, ...rest] = args;
  const store = option(rest, "--store") ?? storeFromEnv(Deno.env.toObject()) ??
    "./data/qcard.kv";
  const positional = rest.filter((a, i) => !a.startsWith("--") && rest[i - 1] !== "--store");
  if (command === "export") {
    const file = positional[0] ?? "-";
    const out = file === "-"
      ? Deno.stdout.writable
      : (await Deno.open(file, { write: true, create: true, truncate: true })).writable;
    const r = await exportStore(store, out);
    log(
      `Exported ${r.records} records (${r.expiring} with an expiry) from ${describe(store)}` +
        `${file === "-" ? "" : ` to ${file}`}` +
        (r.info.snapshot ? "" : " — read entry by entry, not as one snapshot") +
        (r.info.expiries ? "" : " — expiries are not readable there: none copied"),
    );
    return 0;
  }
  if (command === "import") {
    const file = positional[0];
    if (!file) {
      log(USAGE);
      return 2;
    }
    const { header, records } = await checkFile(file);
    const kv = await openKv(store, false);
    let written, expired;
    try {
      if (!rest.includes("--force") && !(await isEmpty(kv))) {
        log(
          `${describe(store)} is not empty: import into an empty store, or add --force to ` +
            `write over the keys the file has (the store's other keys stay)`,
        );
        return 1;
      }
      ({ written, expired } = await writeStore(kv, fileRecords(file)));
    } finally {
      await (kv.close() as void | Promise<void>);
    }
    // Read back and compare every record with the file.
    const back = await readStore(store);
    const c = await compareRecords(
      fileRecords(file),
      back.records,
      EXPIRY_TOLERANCE_MS,
      header.expiries && back.info.expiries,
    );
    log(
      `Imported ${written} of ${records} records from ${file} (exported ${header.exportedAt} ` +
        `from a ${header.from}) into ${describe(store)}` +
        (expired ? `; ${expired} had expired since and were skipped` : "") +
        `. Read back: ${c.equal} equal, ${c.missing.length} missing, ` +
        `${c.different.length} different, ${c.expiry.length} with another expiry, ` +
        `${c.extra} other records in the store.`,
    );
    for (const [what, keys] of [["missing", c.missing], ["different", c.different]] as const) {
      if (keys.length) log(`${what}: ${keys.join(" ")}`);
    }
    if (c.expiry.length) log(`another expiry: ${c.expiry.join(" ")}`);
    const clean = c.missing.length === 0 && c.different.length === 0 &&
      c.expiry.length === 0 && (rest.includes("--force") || c.extra === 0);
    return clean ? 0 : 1;
  }
  log(USAGE);
  return 2;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
