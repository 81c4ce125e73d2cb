/**
 * A pending blob's batch on PostgreSQL (blobs.ts BlobBatchWriter): its marker moved on by a
 * compare-and-set on that one row, and its chunks written with COPY in PostgreSQL's binary
 * format — the bytes as they are. As statement parameters the same bytes went through
 * postgres.js as hex text, twice their size, in a message buffer regrown a dozen times for
 * 12 of them: a 720 KB batch cost ~8 MB of garbage, and 16 concurrent 10 MB uploads grew the
 * process by ~280 MB where Deno KV's grew by ~120 MB. Now ~120 MB on both.
 *
 * One READ COMMITTED transaction on a reserved connection, never retried here: the chunks'
 * keys are new and read by no one until the record naming them commits, so no other write
 * conflicts with them; the marker's row is the one thing shared (with the sweep and that
 * commit), and a row write orders those.
 *
 * A reserved connection that was lost is never used again (see `reserved`): postgres.js has
 * then already taken it back among its closed ones, and a query or a release on it writes to a
 * socket that is gone — an uncaught TypeError that ends the process, and a promise that never
 * settles. Each query here goes out in the same turn as the answer or write that showed the
 * connection alive, so a loss is always learnt from a query in flight.
 */
import type postgres from "postgres";
import process from "node:process";
import type { Writable } from "node:stream";
import { ENC_BYTES, NOT_EXPIRED, stamp, versionOf } from "./pg_atomic.ts";
import { reachFailure } from "./pg_outage.ts";
import { TABLE } from "./pg_schema.ts";

/** The encoded batch: the marker's key, new value and expected versionstamp, and the chunks. */
export interface EncodedBatch {
  marker: { key: Uint8Array; v: Uint8Array; enc: number; versionstamp: string | null };
  chunks: [key: Uint8Array, value: Uint8Array][];
}

/** COPY's binary header: signature, flags, no extension. */
const HEADER = new Uint8Array([
  0x50,
  0x47,
  0x43,
  0x4f,
  0x50,
  0x59,
  0x0a,
  0xff,
  0x0d,
  0x0a,
  0x00, // "PGCOPY\n\377\r\n\0"
  0,
  0,
  0,
  0,
  0,
  0,
  0,
  0,
]);
const TRAILER = new Uint8Array([0xff, 0xff]);

/**
 * Writes `batch` all or nothing: the marker's new versionstamp, or null when the marker was
 * not at the versionstamp given (swept meanwhile; or, for null, already there).
 */
export async function copyBlobBatch(pool: postgres.Sql, batch: EncodedBatch): Promise<
  string | null
> {
  const { marker } = batch;
  const from = marker.versionstamp === null ? null : versionOf(marker.versionstamp);
  const move = marker.versionstamp === null
    ? `INSERT INTO ${TABLE} (k, v, enc, vs) SELECT $1, $2, $3, n FROM n
         ON CONFLICT (k) DO NOTHING RETURNING vs`
    : `UPDATE ${TABLE} SET v = $2, enc = $3, vs = (SELECT n FROM n), expires_at = NULL
         WHERE k = $1 AND vs = ${from ?? "NULL"} AND ${NOT_EXPIRED} RETURNING vs`;
  const sql = await pool.reserve();
  let lost = false;
  try {
    // BEGIN and the marker's move go out together: one round trip.
    const begun = sql.unsafe("BEGIN ISOLATION LEVEL READ COMMITTED").execute();
    const moved = sql.unsafe<{ vs: string }[]>(
      `WITH n AS MATERIALIZED (SELECT nextval('qcard_kv_versionstamp') AS n) ${move}`,
      [marker.key, marker.v, marker.enc],
    ).execute();
    await begun.catch(() => {});
    const [row] = await moved;
    if (!row) {
      await sql.unsafe("ROLLBACK");
      return null;
    }
    if (batch.chunks.length) {
      const copy = await sql.unsafe(`COPY ${TABLE} (k, v, enc, vs) FROM STDIN (FORMAT binary)`)
        .writable();
      const pieces: Uint8Array[] = [HEADER];
      for (const [k, v] of batch.chunks) pieces.push(...tuple(k, v, BigInt(row.vs)));
      pieces.push(TRAILER);
      await writeAll(copy, pieces);
      // Every piece is on the socket: ending the stream sends the COPY's end now (postgres.js's
      // final, run within end() or on the next tick), so COMMIT can follow it in this turn. A
      // failure of the COPY then reaches COMMIT, which answers ROLLBACK.
      copy.end();
      await new Promise((ok) => process.nextTick(ok));
    }
    const done = await sql.unsafe("COMMIT");
    if ((done as unknown as { command?: string }).command !== "COMMIT") {
      throw new Error("the blob batch was rolled back");
    }
    return stamp(row.vs);
  } catch (err) {
    // Lost, or (never seen) still copying: the connection is not used again.
    lost = reachFailure(err) !== null || (err as { code?: string }).code === "COPY_IN_PROGRESS";
    if (!lost) await sql.unsafe("ROLLBACK").catch(() => {});
    throw err;
  } finally {
    if (!lost) sql.release();
  }
}

/**
 * One row of the COPY as three pieces: 4 fields — k and v (bytea: the bytes), enc (int2), vs
 * (int8). The value goes between the two small pieces as it is (COPY data may be cut anywhere).
 */
function tuple(k: Uint8Array, v: Uint8Array, vs: bigint): Uint8Array[] {
  const head = new Uint8Array(2 + 4 + k.length + 4);
  const h = new DataView(head.buffer);
  h.setInt16(0, 4);
  h.setInt32(2, k.length);
  head.set(k, 6);
  h.setInt32(6 + k.length, v.length);
  const tail = new Uint8Array(4 + 2 + 4 + 8);
  const t = new DataView(tail.buffer);
  t.setInt32(0, 2);
  t.setInt16(4, ENC_BYTES);
  t.setInt32(6, 8);
  t.setBigInt64(10, vs);
  return [head, v, tail];
}

/**
 * Writes `pieces`; resolves once the last is on the socket, rejects with the stream's error
 * (the connection's, when it was lost: postgres.js destroys the stream with it).
 */
function writeAll(w: Writable, pieces: Uint8Array[]): Promise<void> {
  return new Promise((ok, fail) => {
    let failure: unknown = null;
    w.on("error", (e) => {
      failure ??= e;
      fail(failure);
    });
    pieces.forEach((p, i) =>
      w.write(p, i < pieces.length - 1 ? undefined : (e) => e ? fail(failure ?? e) : ok())
    );
  });
}
