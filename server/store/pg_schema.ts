/**
 * The PostgreSQL store's schema, created and migrated at start: versioned (one
 * `qcard_schema` row), idempotent (a migration runs once, in the transaction that records
 * it), and safe when several processes start together (they queue on an advisory lock held
 * for that transaction, then find the work done).
 */
import type postgres from "postgres";

export const TABLE = "qcard_kv";

/** Any fixed number: the lock every starting process takes around the migration. */
const MIGRATION_LOCK = 0x5143_4b56; // "QCKV"

/** Migration n takes the schema from version n to n + 1. Never edit one: append. */
const MIGRATIONS: string[] = [
  `CREATE TABLE qcard_kv (
     k bytea PRIMARY KEY,
     v bytea NOT NULL,
     enc smallint NOT NULL,
     vs bigint NOT NULL,
     expires_at bigint
   );
   CREATE INDEX qcard_kv_expiry ON qcard_kv (expires_at) WHERE expires_at IS NOT NULL;
   CREATE SEQUENCE qcard_kv_versionstamp;
   CREATE FUNCTION qcard_now_ms() RETURNS bigint LANGUAGE sql VOLATILE
     AS 'SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint';`,
];

/** The version this code writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the schema to SCHEMA_VERSION; refuses a store a newer QCard has migrated. Answers the
 * schema the store lives in (its watchers' channel is named after it). A store already at
 * SCHEMA_VERSION costs two reads, no lock.
 */
export async function migrate(sql: postgres.Sql): Promise<string> {
  const [{ schema, has }] = await sql<{ schema: string; has: boolean }[]>`
    SELECT current_schema() AS schema, to_regclass('qcard_schema') IS NOT NULL AS has`;
  if (has) {
    const [row] = await sql<{ version: number }[]>`SELECT version FROM qcard_schema WHERE id = 1`;
    if (row?.version === SCHEMA_VERSION) return schema;
  }
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`CREATE TABLE IF NOT EXISTS qcard_schema (
      id int PRIMARY KEY CHECK (id = 1), version int NOT NULL)`;
    const [row] = await tx<{ version: number }[]>`SELECT version FROM qcard_schema WHERE id = 1`;
    const from = row?.version ?? 0;
    if (from > SCHEMA_VERSION) {
      throw new Error(
        `The PostgreSQL store has schema version ${from}; this QCard knows ${SCHEMA_VERSION}: ` +
          `run a newer QCard`,
      );
    }
    for (let v = from; v < SCHEMA_VERSION; v++) await tx.unsafe(MIGRATIONS[v]).simple();
    if (from !== SCHEMA_VERSION) {
      await tx`INSERT INTO qcard_schema (id, version) VALUES (1, ${SCHEMA_VERSION})
        ON CONFLICT (id) DO UPDATE SET version = excluded.version`;
    }
  });
  return schema;
}
