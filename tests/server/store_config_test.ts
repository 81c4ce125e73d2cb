/**
 * Which store the environment names (server/config.ts storeFromEnv): KV_PATH always wins,
 * then DATABASE_URL, then the libpq PG* variables Deno Deploy injects; and TLS as sslmode says.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { parseConfig, storeFromEnv } from "../../server/config.ts";
import { loadIssuerKey } from "../../server/issuer/mod.ts";
import { openPgKv } from "../../server/store/pg_kv.ts";
import { newIssuerKeyText } from "../../server/issuer/mod.ts";
import { DEMO } from "../helpers.ts";
import { freshPgUrl } from "../pg.ts";
import { activateThrough, type Proc, startMain } from "./main_process.ts";

const KEY = { ISSUER_KEY: "x".repeat(43) };

Deno.test("[config] KV_PATH wins, then DATABASE_URL, then PG* variables, else the KV file", () => {
  const db = "postgres://u:p@db.example:5432/qcard?sslmode=require";
  assert.equal(parseConfig({ ...KEY, KV_PATH: ":memory:", DATABASE_URL: db }).KV_PATH, ":memory:");
  assert.equal(parseConfig({ ...KEY, DATABASE_URL: db, PGHOST: "other" }).KV_PATH, db);
  assert.equal(parseConfig(KEY).KV_PATH, "./data/qcard.kv");
  const built = new URL(
    storeFromEnv({
      PGHOST: "pg.eu.example",
      PGPORT: "6543",
      PGDATABASE: "qcard",
      PGUSER: "app",
      PGPASSWORD: "p@ss/word",
      PGSSLMODE: "require",
    })!,
  );
  assert.equal(built.protocol, "postgres:");
  assert.equal(built.hostname, "pg.eu.example");
  assert.equal(built.port, "6543");
  assert.equal(built.pathname, "/qcard");
  assert.equal(decodeURIComponent(built.username), "app");
  assert.equal(decodeURIComponent(built.password), "p@ss/word");
  assert.equal(built.searchParams.get("sslmode"), "require");
  assert.equal(parseConfig({ ...KEY, PG_POOL_SIZE: "3" }).PG_POOL_SIZE, 3);
  assert.equal(parseConfig(KEY).PG_POOL_SIZE, 10);
});

Deno.test("[config] a PostgreSQL store needs ISSUER_KEY: no key file on one machine's disk", async () => {
  await assert.rejects(
    loadIssuerKey({ APP_ENV: "development", KV_PATH: "postgresql://h/db", onDeploy: false }),
    /ISSUER_KEY is required with a PostgreSQL store/,
  );
});

Deno.test("[store] sslmode=require is honoured: no silent fall-back to plain text", async () => {
  const { url, drop } = await freshPgUrl();
  try {
    // The test cluster has no TLS: require must refuse it, disable must connect.
    const required = new URL(url);
    required.searchParams.set("sslmode", "require");
    await assert.rejects(openPgKv(required.toString(), { poolSize: 1 }));
    const plain = new URL(url);
    plain.searchParams.set("sslmode", "disable");
    const kv = await openPgKv(plain.toString(), { poolSize: 1 });
    await kv.close();
  } finally {
    await drop();
  }
});

Deno.test({
  name:
    "[store] main.ts on PostgreSQL from DATABASE_URL: seeds, activates, keeps it over a restart",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const { url, drop } = await freshPgUrl();
    const env = {
      APP_ENV: "development",
      DATABASE_URL: url,
      PORT: "0",
      LISTEN_HOST: "127.0.0.1",
      DEMO_HISTORY: "false",
      PIN_HASH_ITERATIONS: "1000",
      ISSUER_KEY: newIssuerKeyText(),
    };
    const lists = (p: Proc, h: Record<string, string>) =>
      fetch(`http://127.0.0.1:${p.port}/bonita/scmapi/expense/pwalists`, { headers: h });
    try {
      const first = await startMain(env);
      const h = await activateThrough(`http://127.0.0.1:${first.port}`, DEMO.employee);
      const r1 = await lists(first, h);
      assert.equal(r1.status, 200);
      await r1.arrayBuffer();
      first.child.kill("SIGTERM");
      assert.equal((await first.status).code, 0);
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      const [{ n }] = await sql`SELECT count(*)::int AS n FROM qcard_kv`.finally(() => sql.end());
      assert.ok(n > 100, `the organisation is in PostgreSQL (${n} rows)`);
      // A new process on the same database: the device and its token are there.
      const second = await startMain(env);
      const r2 = await lists(second, h);
      assert.equal(r2.status, 200, "the token made before the restart still works");
      await r2.arrayBuffer();
      second.child.kill("SIGTERM");
      await second.status;
    } finally {
      await drop();
    }
  },
});
