/**
 * Bench (virtual cards): the card issuer's latency on an in-memory Deno.Kv — createCard (one atomic
 * write of card, sealed vault entry, last-4 entry and idempotency record, after the PAN is drawn
 * and sealed with AES-GCM), a replayed createCard, reveal (session + redeem: a KV write, then a
 * checked delete, two reads and an AES-GCM decrypt), 50 concurrent creates, and 50 concurrent
 * redeems of one session — next to a bare KV get + checked atomic set in the same run. Called by
 * tests/bench/run.ts.
 */
import { createIssuer, loadIssuerKey } from "../../server/issuer/mod.ts";

type Line = (name: string, value: string, budget?: string) => void;

const N = 1000;
const WARM = 100;
const CONCURRENT = 50;
const ROUNDS = 20;

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)];
const p95 = (xs: number[]) => sorted(xs)[Math.ceil(xs.length * 0.95) - 1];
const msf = (t: number) => `${t.toFixed(t < 10 ? 3 : 1)} ms`;
const times = (x: number) => `${x.toFixed(1)}×`;

async function timed(n: number, f: (i: number) => Promise<unknown>) {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await f(i);
    out.push(performance.now() - t0);
  }
  return out;
}

const order = (i: number) => ({
  idempotencyKey: `bench-${i}`,
  cardholderName: "Bench Holder",
  brand: i % 2 ? "visa" as const : "mastercard" as const,
  currency: "EUR",
  amount: 12_345,
  validUntil: "2099-12-31",
  metadata: { requestOid: `R${i}` },
});

export async function benchIssuer(line: Line) {
  const kv = await Deno.openKv(":memory:");
  try {
    const key = await loadIssuerKey({
      APP_ENV: "development",
      KV_PATH: ":memory:",
      onDeploy: false,
    });
    const issuer = createIssuer("simulator", { kv, key, now: Date.now });

    // Baseline: one record read and written back with a version check, one at a time.
    const bareKey = ["bench", "bare"];
    await kv.set(bareKey, { token: "ic_x", status: "active", amountSpent: 0 });
    const bareWrite = async (n: number) => {
      const e = await kv.get<Record<string, unknown>>(bareKey);
      const r = await kv.atomic().check(e).set(bareKey, { ...e.value, amountSpent: n }).commit();
      if (!r.ok) throw new Error("bare KV write lost its version check, alone");
    };
    await timed(WARM, bareWrite);
    const bare = await timed(N, bareWrite);

    await timed(WARM, (i) => issuer.createCard(order(-1 - i)));
    const creates = await timed(N, (i) => issuer.createCard(order(i)));
    const replays = await timed(N, (i) => issuer.createCard(order(i)));

    const tokens: string[] = [];
    for (let i = 0; i < N; i++) tokens.push((await issuer.createCard(order(i))).token);
    await timed(WARM, async (i) => {
      await issuer.redeemRevealSession((await issuer.createRevealSession(tokens[i])).sessionId);
    });
    const sessions: number[] = [];
    const redeems: number[] = [];
    const reveals = await timed(N, async (i) => {
      const t0 = performance.now();
      const s = await issuer.createRevealSession(tokens[i]);
      const t1 = performance.now();
      await issuer.redeemRevealSession(s.sessionId);
      sessions.push(t1 - t0);
      redeems.push(performance.now() - t1);
    });

    // Contention: 50 callers creating distinct cards at once; 50 redeeming one session.
    const createWalls: number[] = [];
    const redeemWalls: number[] = [];
    let wins = 0;
    for (let r = 0; r < ROUNDS; r++) {
      const base = 1_000_000 + r * CONCURRENT;
      const c0 = performance.now();
      await Promise.all(
        Array.from({ length: CONCURRENT }, (_, i) => issuer.createCard(order(base + i))),
      );
      createWalls.push(performance.now() - c0);
      const { sessionId } = await issuer.createRevealSession(tokens[r]);
      const r0 = performance.now();
      const rs = await Promise.allSettled(
        Array.from({ length: CONCURRENT }, () => issuer.redeemRevealSession(sessionId)),
      );
      redeemWalls.push(performance.now() - r0);
      wins += rs.filter((x) => x.status === "fulfilled").length;
    }

    const b = median(bare);
    const row = (name: string, xs: number[]) =>
      line(name, msf(median(xs)), `p95 ${msf(p95(xs))}, ${times(median(xs) / b)} bare`);
    line("bare Deno.Kv get + checked atomic set, median", msf(b), `p95 ${msf(p95(bare))}`);
    row("issuer createCard, median", creates);
    row("issuer createCard replayed (same key), median", replays);
    row("issuer reveal: session + redeem, median", reveals);
    row("  reveal session only, median", sessions);
    row("  redeem only (checked delete + decrypt), median", redeems);
    line(
      `issuer: ${CONCURRENT} concurrent createCard, median wall`,
      msf(median(createWalls)),
      `p95 ${msf(p95(createWalls))} (${ROUNDS} rounds)`,
    );
    line(
      `issuer: ${CONCURRENT} concurrent redeems of one session`,
      msf(median(redeemWalls)),
      `${wins} of ${ROUNDS} sessions revealed (must be ${ROUNDS})`,
    );
  } finally {
    kv.close();
  }
}

if (import.meta.main) {
  await benchIssuer((name, value, budget = "") =>
    console.log(`${name.padEnd(52)} ${value.padStart(12)}  ${budget}`)
  );
}
