/**
 * `deno task bench scale` (issue 40, docs/benchmarks.md "Scale"): the scale organisation
 * (org.ts, seed.ts) on a Deno KV file and on PostgreSQL, grown stage by stage to 10³, 10⁴, 10⁵
 * and 10⁶ transactions, each stage measured (measure.ts); the curves printed as a table and
 * drawn into docs/benchmarks/scale-<label>.svg, the figures kept in docs/benchmarks/scale-<label>.json.
 *
 * The stores are cached between runs under .bench-cache/ (the KV file, the issuer key) and
 * /var/tmp/qcard-scale-pg (a PostgreSQL cluster of its own, started again when found):
 * a second run grows nothing it has, so it only measures.
 *
 *   deno task bench scale [kv|postgres] [--sizes=1000,10000] [--label=after]
 */
import { parseArgs } from "node:util";
import postgres from "postgres";
import { testApp } from "../../helpers.ts";
import { newIssuerKeyText } from "../../../server/issuer/mod.ts";
import { openPgKv } from "../../../server/store/pg_kv.ts";
import { findPgBin } from "../../pg.ts";
import { growTo, seeded } from "./seed.ts";
import { type Figures, measureAll } from "./measure.ts";
import { chartSvg, type Curves, table } from "./chart.ts";

const ROOT = new URL("../../../", import.meta.url).pathname;
/** Where the stores are kept between runs (QCARD_SCALE_CACHE: another place, a fresh start). */
const CACHE = Deno.env.get("QCARD_SCALE_CACHE") ?? `${ROOT}.bench-cache`;
const SCHEMA = Deno.env.get("QCARD_SCALE_SCHEMA") ?? "qcard_scale";
const PG_DIR = "/var/tmp/qcard-scale-pg";
const PG_PORT = 54329;
const log = (s: string) => console.log(s);

async function issuerKey(): Promise<string> {
  const f = `${CACHE}/issuer-key.txt`;
  try {
    return (await Deno.readTextFile(f)).trim();
  } catch {
    const k = newIssuerKeyText();
    await Deno.writeTextFile(f, k);
    return k;
  }
}

async function sh(cmd: string, args: string[], asPg: boolean) {
  const [c, a] = asPg ? ["runuser", ["-u", "postgres", "--", cmd, ...args]] : [cmd, args];
  return await new Deno.Command(c, { args: a, stdout: "piped", stderr: "piped" }).output();
}

/** The cached cluster's URL (DATABASE_URL when set), its schema (SCHEMA) created. */
async function pgUrl(): Promise<string> {
  let base = Deno.env.get("DATABASE_URL");
  if (!base) {
    const bin = await findPgBin();
    const asPg = Deno.uid() === 0;
    const data = `${PG_DIR}/data`;
    if (!(await Deno.stat(data).catch(() => null))) {
      await sh("mkdir", ["-p", PG_DIR], false);
      if (asPg) await sh("chown", ["postgres", PG_DIR], false);
      const r = await sh(`${bin}/initdb`, [
        "-D",
        data,
        "-A",
        "trust",
        "-U",
        "postgres",
        "-E",
        "UTF8",
        "--no-sync",
      ], asPg);
      if (!r.success) throw new Error(new TextDecoder().decode(r.stderr));
    }
    if (!(await sh(`${bin}/pg_ctl`, ["-D", data, "status"], asPg)).success) {
      const opts = `-p ${PG_PORT} -k ${PG_DIR} -c listen_addresses=127.0.0.1 -c fsync=off ` +
        `-c synchronous_commit=off -c full_page_writes=off -c max_connections=100 -c shared_buffers=256MB`;
      const r = await sh(`${bin}/pg_ctl`, [
        "-D",
        data,
        "-l",
        `${PG_DIR}/log`,
        "-o",
        opts,
        "-w",
        "start",
      ], asPg);
      if (!r.success) throw new Error(new TextDecoder().decode(r.stderr));
    }
    base = `postgres://postgres@127.0.0.1:${PG_PORT}/postgres`;
  }
  const sql = postgres(base, { max: 1, onnotice: () => {} });
  await sql`CREATE SCHEMA IF NOT EXISTS ${sql(SCHEMA)}`;
  await sql.end();
  const u = new URL(base);
  u.searchParams.set("search_path", SCHEMA);
  return u.toString();
}

async function open(store: string): Promise<Deno.Kv> {
  if (store === "kv") return await Deno.openKv(`${CACHE}/scale-kv.sqlite`);
  return await openPgKv(await pgUrl(), { poolSize: 8 });
}

const { values, positionals } = parseArgs({
  args: Deno.args.filter((a) => a !== "scale"),
  options: { sizes: { type: "string" }, label: { type: "string" } },
  allowPositionals: true,
});
const stores = positionals.length ? positionals : ["kv", "postgres"];
const sizes = (values.sizes ?? "1000,10000,100000,1000000").split(",").map(Number);
const label = values.label ?? "now";
await Deno.mkdir(CACHE, { recursive: true });
await Deno.mkdir(`${ROOT}docs/benchmarks`, { recursive: true });
const jsonFile = `${ROOT}docs/benchmarks/scale-${label}.json`;
const curves: Curves = JSON.parse(await Deno.readTextFile(jsonFile).catch(() => "{}"));
const key = await issuerKey();

console.log(
  `Scale: 10,000 people, 200 teams, 30,000 cards; stores ${stores.join(", ")}; sizes ${
    sizes.join(", ")
  }\n`,
);
for (const store of stores) {
  const name = store === "kv" ? "Deno KV (file)" : "PostgreSQL";
  const kv = await open(store);
  const api = await testApp({
    DEMO_ORG: "false",
    ISSUER_KEY: key,
    STATIC_DIR: "./dist/preact",
  }, { kv });
  try {
    for (const n of sizes) {
      const have = await seeded(api.deps);
      if (have > n) {
        log(`${name}: holds ${have} transactions already, more than ${n}: skipped`);
        continue;
      }
      log(`${name}: growing to ${n} transactions`);
      await growTo(api.deps, n, log);
      log(`${name}: ${n} transactions`);
      const f: Figures = await measureAll(api, log);
      (curves[name] ??= {})[String(n)] = f;
      await Deno.writeTextFile(
        jsonFile,
        JSON.stringify(curves, (_, v) => typeof v === "number" ? Math.round(v * 100) / 100 : v, 2) +
          "\n",
      );
    }
  } finally {
    await api.close();
  }
}
console.log("\n" + table(curves));
await Deno.writeTextFile(
  `${ROOT}docs/benchmarks/scale-${label}.svg`,
  chartSvg(
    curves,
    `QCard at scale (${label}): p50 per call against the organisation's transactions`,
  ),
);
console.log(
  `chart: docs/benchmarks/scale-${label}.svg, figures: docs/benchmarks/scale-${label}.json`,
);
