/**
 * PostgreSQL for tests. DATABASE_URL when set (or the URL tests/run.ts passes on); otherwise
 * a throwaway cluster from Debian's `postgresql` package, started once per test process
 * (initdb and pg_ctl as the `postgres` user when we are root — the server refuses to run as
 * root —, a temporary directory, a free port, 127.0.0.1 only) and stopped when the process
 * ends. Each test gets its own schema
 * (`freshPgUrl`), so tests never see each other's rows.
 */
import postgres from "postgres";
import { openPgKv } from "../server/store/pg_kv.ts";

let cluster: Promise<string> | undefined;

/**
 * The base URL: DATABASE_URL, or QCARD_TEST_PG_URL (the cluster tests/run.ts started for all
 * its parts), or a cluster this process starts.
 */
export function pgBaseUrl(): Promise<string> {
  const env = Deno.env.get("DATABASE_URL") || Deno.env.get("QCARD_TEST_PG_URL");
  if (env) return Promise.resolve(env);
  return cluster ??= startCluster();
}

/** A URL whose search_path is a new, empty schema; `drop()` removes it and its rows. */
export async function freshPgUrl(): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = await pgBaseUrl();
  const schema = `qct_${crypto.randomUUID().replace(/-/g, "").slice(0, 16)}`;
  await admin(base, (sql) => sql`CREATE SCHEMA ${sql(schema)}`);
  const u = new URL(base);
  u.searchParams.set("search_path", schema);
  return {
    url: u.toString(),
    drop: () => admin(base, (sql) => sql`DROP SCHEMA ${sql(schema)} CASCADE`).then(() => {}),
  };
}

/** A PostgreSQL-backed Deno.Kv on a fresh schema; close() also drops the schema. */
export async function openTestPgKv(poolSize = 4): Promise<Deno.Kv> {
  const { url, drop } = await freshPgUrl();
  const kv = await openPgKv(url, { poolSize });
  const close = kv.close.bind(kv) as unknown as () => Promise<void>;
  (kv as unknown as { close: () => Promise<void> }).close = () => close().then(drop);
  return kv;
}

async function admin<T>(url: string, fn: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, fetch_types: false });
  try {
    return await fn(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

async function run(cmd: string, args: string[], asPostgres: boolean): Promise<string> {
  const [c, a] = asPostgres ? ["runuser", ["-u", "postgres", "--", cmd, ...args]] : [cmd, args];
  const out = await new Deno.Command(c, { args: a, stdout: "piped", stderr: "piped" }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}${text}`);
  }
  return text;
}

async function exists(p: string): Promise<boolean> {
  return await Deno.stat(p).then(() => true, () => false);
}

/** Stops the cluster this process started, if any (idempotent). */
let stopCluster: (() => void) | null = null;
export function stopPgCluster(): void {
  stopCluster?.();
}

/** initdb/pg_ctl on PATH, else Debian's versioned directory; installed with apt as root. */
export async function findPgBin(install = true): Promise<string> {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (dir && await exists(`${dir}/initdb`) && await exists(`${dir}/pg_ctl`)) return dir;
  }
  const root = "/usr/lib/postgresql";
  const versions = await Array.fromAsync(Deno.readDir(root)).catch(() => []);
  const best = versions.map((e) => e.name).filter((n) => /^\d+$/.test(n)).sort((a, b) => +b - +a);
  for (const v of best) if (await exists(`${root}/${v}/bin/initdb`)) return `${root}/${v}/bin`;
  if (install && Deno.uid() === 0 && await exists("/usr/bin/apt-get")) {
    const env = { DEBIAN_FRONTEND: "noninteractive" };
    for (const args of [["update", "-qq"], ["install", "-y", "-qq", "postgresql"]]) {
      await new Deno.Command("apt-get", { args, env, stdout: "null", stderr: "inherit" }).output();
    }
    return await findPgBin(false);
  }
  throw new Error(
    "PostgreSQL tests need initdb and pg_ctl: install Debian's postgresql package " +
      "(apt-get install -y postgresql) or set DATABASE_URL",
  );
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function startCluster(): Promise<string> {
  const bin = await findPgBin();
  const asPg = Deno.uid() === 0;
  const dir = asPg
    ? (await run("mktemp", ["-d", "/tmp/qcard-pg-XXXXXX"], true)).trim()
    : await Deno.makeTempDir({ prefix: "qcard-pg-" });
  const data = `${dir}/data`;
  await run(`${bin}/initdb`, [
    "-D",
    data,
    "-A",
    "trust",
    "-U",
    "postgres",
    "-E",
    "UTF8",
    "--no-sync",
    "--no-instructions",
  ], asPg);
  const port = freePort();
  // Durability is not under test here: fsync off makes schema creation and commits cheap.
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off ` +
    `-c synchronous_commit=off -c full_page_writes=off -c max_connections=300`;
  await run(`${bin}/pg_ctl`, ["-D", data, "-l", `${dir}/log`, "-o", opts, "-w", "start"], asPg);
  stopCluster = () => {
    stopCluster = null;
    const stop = ["-D", data, "-m", "immediate", "stop"];
    const [c, a] = asPg
      ? ["runuser", ["-u", "postgres", "--", `${bin}/pg_ctl`, ...stop]]
      : [`${bin}/pg_ctl`, stop];
    new Deno.Command(c, { args: a, stdout: "null", stderr: "null" }).outputSync();
    Deno.removeSync(dir, { recursive: true });
  };
  // A test process ends without Deno.exit: the unload event stops its cluster. A process that
  // calls Deno.exit (tests/run.ts) calls stopPgCluster first.
  globalThis.addEventListener("unload", () => stopPgCluster());
  return `postgres://postgres@127.0.0.1:${port}/postgres`;
}
