/**
 * Anonymous upload connections against a running main.ts (the server test and `deno task
 * bench`): each one a made-up device-id and Idempotency-Key, no bearer, an ~11 MB multipart
 * body declared and streamed as fast as the server takes it. The client sends one shared
 * 64 KB chunk over and over, so its own memory does not grow with the bodies.
 */
import { UPLOAD_PATH } from "../../client/shared/contract/documents.ts";
import { localEnv, startMain } from "./main_process.ts";

export const BODY_BYTES = 11_000_000;
const CHUNK = new Uint8Array(64 * 1024).fill(0x61);
const enc = new TextEncoder();

/** The resident set of process `pid` in bytes (Linux /proc). */
export async function rssOf(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  if (!kb) throw new Error(`no VmRSS for ${pid}`);
  return Number(kb) * 1024;
}

/** What one connection saw: the answer's status line (or null) and the bytes it got to send. */
export interface Outcome {
  status: string | null;
  sent: number;
}

/**
 * One anonymous upload: the header, then the body until it is all sent or the server stops
 * taking it (closed or answered); gives up after `maxMs`. Resolves with what it saw.
 */
export async function anonymousUpload(
  port: number,
  bytes = BODY_BYTES,
  maxMs = 30_000,
): Promise<Outcome> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const boundary = "----qc" + crypto.randomUUID().replaceAll("-", "");
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; ` +
    `filename="x.pdf"\r\nContent-Type: application/pdf\r\n\r\n`;
  const tail = `\r\n--${boundary}--\r\n`;
  const length = head.length + bytes + tail.length;
  const header = `POST /bonita${UPLOAD_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
    `device-id: anon-${crypto.randomUUID()}\r\n` +
    `idempotency-key: ${crypto.randomUUID()}\r\n` +
    `content-type: multipart/form-data; boundary=${boundary}\r\n` +
    `content-length: ${length}\r\n\r\n${head}`;
  let answer = "";
  let done = false;
  const timer = setTimeout(() => {
    done = true;
    try {
      conn.close();
    } catch { /* closed */ }
  }, maxMs);
  const reading = (async () => {
    const buf = new Uint8Array(4096);
    try {
      for (;;) {
        const n = await conn.read(buf);
        if (n === null) break;
        answer += new TextDecoder().decode(buf.subarray(0, n));
      }
    } catch { /* reset */ }
    done = true;
  })();
  let sent = 0;
  try {
    await writeAll(conn, enc.encode(header));
    while (!done && sent < bytes) {
      const n = Math.min(CHUNK.length, bytes - sent);
      await writeAll(conn, CHUNK.subarray(0, n));
      sent += n;
    }
    if (!done) await writeAll(conn, enc.encode(tail));
  } catch { /* the server closed: it did not want the rest */ }
  await reading;
  clearTimeout(timer);
  try {
    conn.close();
  } catch { /* closed */ }
  return { status: /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? null, sent };
}

async function writeAll(conn: Deno.Conn, b: Uint8Array): Promise<void> {
  let off = 0;
  while (off < b.length) off += await conn.write(b.subarray(off));
}

/** The figure of the issue: RSS growth of the server and idempotency records left in KV. */
export interface AnonymousFigure {
  connections: number;
  /** RSS after the connections ended, minus before; and the most seen meanwhile. */
  rssGrowth: number;
  rssPeakGrowth: number;
  idemRecords: number;
  statuses: Record<string, number>;
  /** Body bytes the connections got to send, together. */
  sent: number;
  ms: number;
}

/**
 * Starts main.ts on a fresh KV file, opens `connections` anonymous uploads at once, and
 * measures the server's RSS (sampled every 50 ms) and the `["idem"]` records in its KV.
 */
export async function measureAnonymousUploads(
  connections = 60,
  env: Record<string, string> = {},
): Promise<AnonymousFigure> {
  const dir = await Deno.makeTempDir({ prefix: "qc-anon-" });
  const proc = await startMain({ ...localEnv(dir), ...env });
  try {
    const pid = proc.child.pid;
    // Settle first: start-up (seeding, delivery) allocates, and that is not the callers'.
    await new Promise((r) => setTimeout(r, 1500));
    const before = await rssOf(pid);
    let peak = before;
    const sampler = setInterval(() => {
      rssOf(pid).then((r) => peak = Math.max(peak, r), () => {});
    }, 50);
    const t0 = performance.now();
    const outcomes = await Promise.all(
      Array.from({ length: connections }, () => anonymousUpload(proc.port)),
    );
    const ms = performance.now() - t0;
    // Let the server finish what it does with the closed connections, then measure.
    await new Promise((r) => setTimeout(r, 500));
    clearInterval(sampler);
    const after = await rssOf(pid);
    peak = Math.max(peak, after);
    const statuses: Record<string, number> = {};
    for (const o of outcomes) {
      const s = o.status ?? "closed";
      statuses[s] = (statuses[s] ?? 0) + 1;
    }
    const kv = await Deno.openKv(`${dir}/qcard.kv`);
    let idemRecords = 0;
    try {
      for await (const _ of kv.list({ prefix: ["idem"] })) idemRecords++;
    } finally {
      kv.close();
    }
    return {
      connections,
      rssGrowth: after - before,
      rssPeakGrowth: peak - before,
      idemRecords,
      statuses,
      sent: outcomes.reduce((a, o) => a + o.sent, 0),
      ms,
    };
  } finally {
    proc.child.kill("SIGTERM");
    await proc.status;
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
