/**
 * Which store the environment names (server/config.ts storeFromEnv): KV_PATH always wins,
 * then DATABASE_URL, then the libpq PG* variables Deno Deploy injects; and TLS as sslmode says.
 */
import assert from "node:assert/strict";
import { parseConfig, storeFromEnv } from "../../server/config.ts";
import { loadIssuerKey } from "../../server/issuer/mod.ts";
import { openPgKv } from "../../server/store/pg_kv.ts";
import { freshPgUrl } from "../pg.ts";

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
