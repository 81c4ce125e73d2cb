/** The live bench, part 3: 500 idle streams on main.ts as a subprocess — RSS per stream, idle CPU, fan-out of one change. */
import { CHANGE_STREAM_PATH } from "../../client/shared/contract/changes.ts";
import { DEMO } from "../helpers.ts";
import { freshPgUrl } from "../pg.ts";
import { rssOf } from "../server/anonymous_load.ts";
import { activateThrough, localEnv, startMain } from "../server/main_process.ts";

import {
  IDLE_MS,
  KB_GOAL,
  Line,
  msf,
  now,
  p50,
  sleep,
  Store,
  storeName,
  STREAMS,
} from "./live_tools.ts";

// ---- 3: 500 idle streams on main.ts ----

/** One stream over a raw socket: its status, data events (times) and heartbeats. */
export interface Raw {
  conn: Deno.Conn;
  status: string | null;
  events: number[];
  heartbeats: number;
  ended: boolean;
  first: Promise<void>;
}

export async function openRaw(port: number, h: Record<string, string>): Promise<Raw> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const head = `GET /bonita${CHANGE_STREAM_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
    `Authorization: ${h.authorization}\r\ndevice-id: ${h["device-id"]}\r\n` +
    `Accept: text/event-stream\r\n\r\n`;
  const bytes = new TextEncoder().encode(head);
  for (let n = 0; n < bytes.length;) n += await conn.write(bytes.subarray(n));
  let onFirst = () => {};
  const raw: Raw = {
    conn,
    status: null,
    events: [],
    heartbeats: 0,
    ended: false,
    first: new Promise<void>((ok) => (onFirst = ok)),
  };
  (async () => {
    const dec = new TextDecoder();
    const buf = new Uint8Array(2048);
    let text = "";
    try {
      for (;;) {
        const n = await conn.read(buf);
        if (n === null) break;
        text += dec.decode(buf.subarray(0, n), { stream: true });
        if (raw.status === null) {
          const eol = text.indexOf("\r\n");
          if (eol < 0) continue;
          raw.status = text.slice(0, eol);
        }
        let i;
        while ((i = text.indexOf("\n\n")) >= 0) {
          const block = text.slice(0, i);
          text = text.slice(i + 2);
          if (block.includes("data: ")) {
            raw.events.push(now());
            onFirst();
          } else if (block.endsWith(":")) raw.heartbeats++;
        }
      }
    } catch { /* closed */ }
    raw.ended = true;
    onFirst();
  })();
  return raw;
}

/** utime + stime of a process, in ms (Linux /proc; clock ticks of 10 ms). */
export async function cpuMs(pid: number): Promise<number> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
}

export async function streamsOn(store: Store, line: Line, guard = true): Promise<void> {
  const name = storeName(store) + (guard ? "" : ", no guard");
  const dir = await Deno.makeTempDir({ prefix: "qc-live-" });
  const pg = store === "postgres" ? await freshPgUrl() : null;
  const proc = await startMain({
    ...localEnv(dir),
    ...(pg ? { KV_PATH: pg.url } : {}),
    HTTP_MAX_CONNECTIONS_PER_PEER: String(STREAMS * 2),
    HTTP_GUARD: String(guard),
  });
  const pid = proc.child.pid;
  const base = `http://127.0.0.1:${proc.port}`;
  const all: Raw[] = [];
  const create = async (h: Record<string, string>, purpose: string) => {
    const res = await fetch(`${base}/bonita/scmapi/expense/pwaexpenserequestcreate`, {
      method: "POST",
      headers: { ...h, "content-type": "application/json" },
      body: JSON.stringify({
        expenseRequest: {
          typeOid: "type-travel",
          amount: 25,
          purpose,
          costCenterOid: "cc-sales",
          GLOid: "gl-travel",
          projectOid: "prj-crm",
        },
      }),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`create: ${res.status} ${text}`);
  };
  try {
    const a = await activateThrough(base, DEMO.employee);
    const b = await activateThrough(base, DEMO.manager);
    // Warm the stream's code paths (and a change's), so what follows is what streams hold.
    const warm = await Promise.all(Array.from({ length: 20 }, () => openRaw(proc.port, a)));
    await Promise.all(warm.map((r) => r.first));
    await create(a, "Warm-up");
    await create(b, "Warm-up");
    await sleep(500);
    for (const r of warm) r.conn.close();
    await sleep(1000);
    const base0 = await cpuMs(pid);
    await sleep(5000);
    const baseline = (await cpuMs(pid)) - base0;
    const rss0 = await rssOf(pid);

    const t0 = performance.now();
    for (let i = 0; i < STREAMS; i += 50) {
      const part = await Promise.all(
        Array.from(
          { length: Math.min(50, STREAMS - i) },
          (_, j) => openRaw(proc.port, i + j === STREAMS - 1 ? b : a),
        ),
      );
      all.push(...part);
    }
    await Promise.race([Promise.all(all.map((r) => r.first)), sleep(20_000)]);
    const openMs = performance.now() - t0;
    const opened = all.filter((r) => r.events.length > 0 && !r.ended).length;
    const statuses = new Set(all.map((r) => r.status));
    // Settle, then the RSS they hold; the idle window then covers the first heartbeat round.
    await sleep(5000);
    const rss1 = await rssOf(pid);
    line(
      `${STREAMS} idle streams, main.ts (${name}): open`,
      `${opened} of ${STREAMS}`,
      `${(openMs / 1000).toFixed(1)} s to open all (first event each); status ${
        [...statuses].join(" / ")
      }`,
    );
    await sleep(Math.max(0, t0 + 7000 - performance.now()));
    const beats0 = all.reduce((n, r) => n + r.heartbeats, 0);
    const c0 = await cpuMs(pid);
    await sleep(IDLE_MS);
    const idle = (await cpuMs(pid)) - c0;
    const beats = all.reduce((n, r) => n + r.heartbeats, 0) - beats0;
    // Read again after the idle window: garbage of the opening may have been collected.
    const rss2 = await rssOf(pid);
    const kb = (Math.min(rss1, rss2) - rss0) / 1024 / STREAMS;
    const mb = (n: number) => (n / 1048576).toFixed(0);
    line(
      `  server RSS per stream (${name})`,
      `${kb.toFixed(1)} KB`,
      `goal < ${KB_GOAL} KB ${kb < KB_GOAL ? "(ok)" : "(over)"} (RSS ${mb(rss0)} MB → ${
        mb(rss1)
      } MB open, ${mb(rss2)} MB after the idle window)`,
    );
    const pct = idle / IDLE_MS * 100;
    const basePct = baseline / 5000 * 100;
    line(
      `  server CPU, ${IDLE_MS / 1000} s idle (${name})`,
      `${pct.toFixed(1)} %`,
      `goal ~0 ${pct - basePct <= 1 ? "(ok)" : "(over)"} (${idle} ms CPU; ${beats} heartbeats ` +
        `in it; without streams ${basePct.toFixed(1)} %)`,
    );

    // A change to the lone user: only its stream hears of it.
    const lone = all[all.length - 1];
    const counts = () => all.map((r) => r.events.length);
    let before = counts();
    let c1 = await cpuMs(pid);
    await create(b, "Lone change");
    await sleep(1500);
    const cpuB = (await cpuMs(pid)) - c1;
    let after = counts();
    const woken = after.filter((n, i) => n > before[i]).length;
    const loneGot = after[all.length - 1] > before[all.length - 1];
    line(
      `  1 user's change: streams with an event (${name})`,
      `${woken} of ${STREAMS}`,
      `goal 1, its own ${woken === 1 && loneGot ? "(ok)" : "(over)"}; server CPU ${cpuB} ms`,
    );

    // A change to the user of the other 499: each of their streams gets it.
    before = counts();
    c1 = await cpuMs(pid);
    const t1 = now();
    await create(a, "Wide change");
    const others = all.slice(0, -1);
    for (const end = Date.now() + 10_000; Date.now() < end;) {
      if (others.every((r, i) => r.events.length > before[i])) break;
      await sleep(20);
    }
    await sleep(300);
    const cpuA = (await cpuMs(pid)) - c1;
    after = counts();
    const got = others.filter((_r, i) => after[i] > before[i]);
    const lat = got.map((r) => r.events[r.events.length - 1] - t1);
    line(
      `  change to the ${others.length}'s user: got it (${name})`,
      `${got.length} of ${others.length}`,
      `lone stream ${lone.events.length > before[all.length - 1] ? "too (over)" : "not (ok)"}; ` +
        `p50 ${msf(p50(lat))}, last ${msf(Math.max(...lat))}; server CPU ${cpuA} ms`,
    );
  } finally {
    for (const r of all) {
      try {
        r.conn.close();
      } catch { /* closed */ }
    }
    try {
      proc.child.kill("SIGTERM");
    } catch { /* ended */ }
    await Promise.race([proc.status, sleep(10_000)]);
    try {
      proc.child.kill("SIGKILL");
    } catch { /* ended */ }
    await proc.status;
    await pg?.drop().catch(() => {});
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
