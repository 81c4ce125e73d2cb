/**
 * Bench (docs/security.md, connection guard): what the connection guard (server/net/guard.ts, a TCP
 * front copying bytes to an inner Deno.serve) costs against a bare Deno.serve. Same process, same
 * small JSON answer, 8 concurrent keep-alive fetch loops for 3 s after a 0.5 s warm-up; the two are
 * measured alternately, twice each, and the better run of each is printed (the box is shared).
 */
import { serveGuarded } from "../../server/net/guard.ts";

type Line = (name: string, value: string, budget?: string) => void;

const LOOPS = 8;
const SECONDS = 3;
const answer = () => Response.json({ ok: true, id: "req-000042", amount: 120, currency: "EUR" });

/** Requests per second from LOOPS concurrent keep-alive loops on one client. */
async function load(url: string, seconds: number): Promise<number> {
  const client = Deno.createHttpClient({});
  try {
    const loop = async (until: number) => {
      let n = 0;
      while (performance.now() < until) {
        const res = await fetch(url, { client } as RequestInit & { client: Deno.HttpClient });
        if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
        await res.arrayBuffer();
        n++;
      }
      return n;
    };
    const t0 = performance.now();
    const counts = await Promise.all(
      Array.from({ length: LOOPS }, () => loop(t0 + seconds * 1000)),
    );
    return counts.reduce((a, b) => a + b, 0) / ((performance.now() - t0) / 1000);
  } finally {
    client.close();
  }
}

export async function benchGuard(line: Line): Promise<void> {
  const bare = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, answer);
  const guarded = serveGuarded({ port: 0, hostname: "127.0.0.1" }, answer);
  try {
    const urls = {
      bare: `http://127.0.0.1:${bare.addr.port}/`,
      guarded: `http://127.0.0.1:${guarded.addr.port}/`,
    };
    const best = { bare: 0, guarded: 0 };
    for (let round = 0; round < 2; round++) {
      for (const which of ["bare", "guarded"] as const) {
        await load(urls[which], 0.5);
        best[which] = Math.max(best[which], await load(urls[which], SECONDS));
      }
    }
    line(
      "small JSON, 8 keep-alive loops: bare Deno.serve",
      `${best.bare.toFixed(0)} req/s`,
    );
    line(
      "small JSON, 8 keep-alive loops: guarded (TCP front)",
      `${best.guarded.toFixed(0)} req/s`,
      `guarded/bare ${(best.guarded / best.bare).toFixed(2)} (header 10 s, idle 30 s deadlines)`,
    );
  } finally {
    await guarded.shutdown();
    await bare.shutdown();
  }
}

if (import.meta.main) {
  await benchGuard((name, value, budget = "") =>
    console.log(`${name.padEnd(52)} ${value.padStart(12)}  ${budget}`)
  );
}
